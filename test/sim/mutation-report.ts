// Reads the mutation run's JSON report (reports/mutation/mutation.json, written by
// `npm run mutation`) and prints the per-file table test/sim/README.md keeps, the totals for
// src/locks and for the session files, and every surviving or uncovered mutant by file and line:
//
//   npx tsx test/sim/mutation-report.ts [report.json] [--survivors]
import { readFileSync } from 'node:fs';

interface Mutant {
  id: string;
  mutatorName: string;
  replacement?: string;
  status: string;
  location: { start: { line: number; column: number } };
}

interface Report {
  files: Record<string, { mutants: Mutant[] }>;
}

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--')) ?? 'reports/mutation/mutation.json';
const report = JSON.parse(readFileSync(file, 'utf8')) as Report;

interface Tally {
  killed: number;
  timeout: number;
  survived: number;
  noCoverage: number;
  ignored: number;
  errors: number;
}

const empty = (): Tally => ({
  killed: 0,
  timeout: 0,
  survived: 0,
  noCoverage: 0,
  ignored: 0,
  errors: 0,
});

function tally(mutants: readonly Mutant[], into: Tally = empty()): Tally {
  for (const m of mutants) {
    if (m.status === 'Killed') into.killed++;
    else if (m.status === 'Timeout') into.timeout++;
    else if (m.status === 'Survived') into.survived++;
    else if (m.status === 'NoCoverage') into.noCoverage++;
    else if (m.status === 'Ignored') into.ignored++;
    else into.errors++; // CompileError, RuntimeError: not counted in Stryker's score either
  }
  return into;
}

/** Stryker's score: detected over valid mutants (ignored and error mutants left out). */
function score(t: Tally): { all: string; covered: string } {
  const detected = t.killed + t.timeout;
  const valid = detected + t.survived + t.noCoverage;
  const covered = detected + t.survived;
  const pct = (a: number, b: number) => (b === 0 ? '-' : `${((100 * a) / b).toFixed(1)}%`);
  return { all: pct(detected, valid), covered: pct(detected, covered) };
}

const row = (name: string, t: Tally) => {
  const s = score(t);
  return `| ${name} | ${t.killed} | ${t.timeout} | ${t.survived} | ${t.noCoverage} | ${t.ignored} | ${s.all} | ${s.covered} |`;
};

const names = Object.keys(report.files).sort();
const locks = empty();
const session = empty();
process.stdout.write(
  '| file | killed | timeout | survived | no coverage | ignored | score | of covered |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n',
);
for (const name of names) {
  const t = tally(report.files[name]!.mutants);
  tally(report.files[name]!.mutants, name.includes('src/locks/') ? locks : session);
  process.stdout.write(`${row(`\`${name.replace(/^.*src\//, 'src/')}\``, t)}\n`);
}
process.stdout.write(
  `${row('**src/locks**', locks)}\n${row('**src/session (four files)**', session)}\n`,
);

if (args.includes('--survivors')) {
  for (const name of names) {
    const left = report.files[name]!.mutants.filter(
      (m) => m.status === 'Survived' || m.status === 'NoCoverage',
    );
    if (left.length === 0) continue;
    process.stdout.write(`\n${name}\n`);
    for (const m of left.sort((a, b) => a.location.start.line - b.location.start.line)) {
      const what = (m.replacement ?? '').replace(/\s+/g, ' ').slice(0, 70);
      process.stdout.write(
        `  ${m.location.start.line}:${m.location.start.column} ${m.status} ${m.mutatorName} ${what}\n`,
      );
    }
  }
}
