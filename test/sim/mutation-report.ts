// Reads the mutation run's JSON report (reports/mutation/mutation.json, written by
// `npm run mutation`) and prints the per-file table test/sim/README.md keeps, the totals for
// src/locks and for the session files, and every surviving or uncovered mutant by file and line:
//
//   npx tsx test/sim/mutation-report.ts [report.json] [--survivors]
//   npx tsx test/sim/mutation-report.ts --events reports/mutation/events [--survivors]
//
// `--events` reads a run that has not finished (or was stopped) from the event recorder's files:
// one per mutant tested, and the plan, which gives each file's number of mutants (the `planned`
// column; a file is complete when its tested mutants reach it).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

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

interface EventMutant extends Mutant {
  fileName: string;
}

/** A report built from the event recorder's files, with each file's planned mutant count. */
function fromEvents(dir: string): { report: Report; planned: Map<string, number> } {
  const files: Report['files'] = {};
  const planned = new Map<string, number>();
  for (const name of readdirSync(dir).sort()) {
    const event = JSON.parse(readFileSync(join(dir, name), 'utf8')) as unknown;
    if (name.endsWith('onMutationTestingPlanReady.json')) {
      const plans = (event as { mutantPlans: { mutant: EventMutant }[] }).mutantPlans;
      for (const { mutant } of plans)
        planned.set(mutant.fileName, (planned.get(mutant.fileName) ?? 0) + 1);
    } else if (name.endsWith('onMutantTested.json')) {
      const mutant = event as EventMutant;
      files[mutant.fileName] ??= { mutants: [] };
      files[mutant.fileName]!.mutants.push(mutant);
    }
  }
  return { report: { files }, planned };
}

const args = process.argv.slice(2);
const eventsAt = args.indexOf('--events');
const positional = args.filter((a, i) => !a.startsWith('--') && i !== eventsAt + 1);
const source =
  eventsAt >= 0
    ? fromEvents(args[eventsAt + 1] ?? 'reports/mutation/events')
    : {
        report: JSON.parse(
          readFileSync(positional[0] ?? 'reports/mutation/mutation.json', 'utf8'),
        ) as Report,
        planned: undefined,
      };
const { report, planned } = source;

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

const row = (name: string, t: Tally, of?: number) => {
  const s = score(t);
  const tested = t.killed + t.timeout + t.survived + t.noCoverage + t.ignored + t.errors;
  const plan = planned ? ` ${tested} / ${of ?? '-'} |` : '';
  return `| ${name} |${plan} ${t.killed} | ${t.timeout} | ${t.survived} | ${t.noCoverage} | ${t.ignored} | ${s.all} | ${s.covered} |`;
};

const names = Object.keys(report.files).sort();
const locks = empty();
const session = empty();
const planColumn = planned ? ' tested / planned |' : '';
process.stdout.write(
  `| file |${planColumn} killed | timeout | survived | no coverage | ignored | score | of covered |\n|${' --- |'.repeat(planned ? 9 : 8)}\n`,
);
for (const name of names) {
  const t = tally(report.files[name]!.mutants);
  tally(report.files[name]!.mutants, name.includes('src/locks/') ? locks : session);
  process.stdout.write(
    `${row(`\`${name.replace(/^.*src\//, 'src/')}\``, t, planned?.get(name))}\n`,
  );
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
