/**
 * Compares the jute codecs of two versions of src/ with bench/codec.ts, on this machine, now.
 *
 *   npx tsx bench/codec-compare.ts                      # before = cfd573e, after = the work tree
 *   npx tsx bench/codec-compare.ts --before main --after HEAD --runs 7
 *   npx tsx bench/codec-compare.ts --instructions       # also count instructions (callgrind)
 *
 * | flag | meaning |
 * |---|---|
 * | `--before <ref>` | git ref of the "before" side (default cfd573e: the last hand-written writeX/readX codecs) |
 * | `--after <ref>` | git ref of the "after" side (default: the work tree, uncommitted changes included) |
 * | `--runs N` | fresh processes per side, alternating before/after (default 5) |
 * | `--rounds N`, `--ms N` | passed to bench/codec.ts: rounds per case and their length (default 5 x 200) |
 * | `--instructions` | also count instructions under `valgrind --tool=callgrind` (slow: ~40 s per case and side) |
 * | `--iterations N` | operations counted per case under callgrind (default 20000) |
 * | `--case <text>` | only the cases whose name contains this text (repeatable) |
 * | `--warmup N` | operations of every case before those, under callgrind (default 5000) |
 *
 * Both sides run the *current* bench/codec.ts, bundled with esbuild against that side's src/
 * (a ref is extracted with `git archive` into a temporary directory), the way bench/main.ts
 * bundles: tsx's module wrappers are not what users run.
 *
 * Timing: each run is a fresh `node` process that prints the best round per case (CPU time of
 * the process, bench/codec.ts); runs alternate between the sides, starting with the other side
 * each time, so that a slow spell on a shared machine hits both. Reported: the median over runs,
 * and the lowest and highest run, per side.
 *
 * Instructions (load-independent): for each side and case, callgrind counts the instructions
 * of a process that warms every case up (`--warmup`) then runs that case `--iterations` times,
 * minus those of the same process with 0 iterations, divided by the iterations. Everything the
 * process does besides those operations (start-up, compilation during warm-up) cancels out; what
 * remains includes the garbage collection the operations cause. Node runs with `--predictable`
 * (V8 compiles and collects on the main thread, seeds fixed), which makes the count repeatable:
 * two runs of the same work differ by a few thousand instructions out of 1.6 billion. perf's
 * hardware counters would be faster, but are not available in every VM.
 */

import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { BENCH_DIR, REPO_DIR } from './paths.js';
import { median } from './stats.js';

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

const BEFORE = flag('before') ?? 'cfd573e';
const AFTER = flag('after'); // undefined: the work tree
const RUNS = Number(flag('runs') ?? 5);
const ROUNDS = flag('rounds') ?? '5';
const MS = flag('ms') ?? '200';
const INSTRUCTIONS = process.argv.includes('--instructions');
const ITERATIONS = Number(flag('iterations') ?? 20_000);
const WARMUP = Number(flag('warmup') ?? 5_000);
// --case <text> (repeatable): only the cases whose name contains one of them.
const CASES = process.argv.flatMap((a, i) => (a === '--case' ? [process.argv[i + 1] ?? ''] : []));

interface Side {
  label: string;
  bundle: string;
}

/** Bundles bench/codec.ts against the src/ of `ref` (or of the work tree) into `dir`. */
async function bundle(label: string, ref: string | undefined, dir: string): Promise<Side> {
  let entry = join(BENCH_DIR, 'codec.ts');
  if (ref !== undefined) {
    const root = join(dir, label);
    mkdirSync(join(root, 'bench'), { recursive: true });
    const tar = execFileSync('git', ['-C', REPO_DIR, 'archive', ref, 'src'], {
      maxBuffer: 256 * 1024 * 1024,
    });
    execFileSync('tar', ['-x', '-C', root], { input: tar });
    cpSync(entry, join(root, 'bench', 'codec.ts'));
    entry = join(root, 'bench', 'codec.ts');
  }
  const outfile = join(dir, `${label}.mjs`);
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    keepNames: false,
    logLevel: 'warning',
  });
  return {
    label: ref === undefined ? `${label} (work tree)` : `${label} (${ref})`,
    bundle: outfile,
  };
}

function run(cmd: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve({ stdout, stderr });
      else reject(new Error(`${cmd} ${args.join(' ')} exited ${code}\n${stderr}`));
    });
  });
}

async function timed(side: Side): Promise<Record<string, number>> {
  const { stdout } = await run(process.execPath, [
    side.bundle,
    '--json',
    '--rounds',
    ROUNDS,
    '--ms',
    MS,
  ]);
  return JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, number>;
}

/** Instructions callgrind counts for one process of bench/codec.ts in fixed-work mode. */
async function instructions(side: Side, only: number, iterations: number): Promise<number> {
  const { stderr } = await run('valgrind', [
    '--tool=callgrind',
    '--callgrind-out-file=/dev/null',
    process.execPath,
    // Deterministic V8 (no background compilation or GC threads, fixed seeds): two runs of the
    // same work then count the same instructions to within a few thousand.
    '--predictable',
    '--hash-seed=1',
    '--random-seed=1',
    side.bundle,
    '--only',
    String(only),
    '--warmup',
    String(WARMUP),
    '--iterations',
    String(iterations),
  ]);
  const m = /Collected : (\d+)/.exec(stderr);
  if (!m) throw new Error(`no instruction count in callgrind's output:\n${stderr}`);
  return Number(m[1]);
}

const fmt = (v: number, digits = 0): string => (Number.isFinite(v) ? v.toFixed(digits) : '-');

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'zkts-codec-compare-'));
  try {
    const sides = [await bundle('before', BEFORE, dir), await bundle('after', AFTER, dir)];
    const all = JSON.parse(
      (await run(process.execPath, [sides[1]!.bundle, '--list'])).stdout,
    ) as string[];
    const names = CASES.length === 0 ? all : all.filter((n) => CASES.some((c) => n.includes(c)));
    const samples = sides.map(() => new Map<string, number[]>(names.map((n) => [n, []])));
    for (let r = 0; r < RUNS; r++) {
      const order = r % 2 === 0 ? [0, 1] : [1, 0];
      for (const s of order) {
        const result = await timed(sides[s]!);
        for (const n of names) samples[s]!.get(n)!.push(result[n] ?? Number.NaN);
        process.stderr.write(`run ${r + 1}/${RUNS} ${sides[s]!.label} done\n`);
      }
    }
    const ir: number[][] = sides.map(() => []);
    if (INSTRUCTIONS) {
      // The two sides side by side: instruction counts do not depend on the load.
      await Promise.all(
        sides.map(async (side, s) => {
          const base = await instructions(side, 0, 0);
          for (let i = 0; i < names.length; i++) {
            const total = await instructions(side, all.indexOf(names[i]!), ITERATIONS);
            ir[s]![i] = (total - base) / ITERATIONS;
            process.stderr.write(`callgrind ${side.label} ${names[i]}: ${fmt(ir[s]![i]!)}\n`);
          }
        }),
      );
    }

    const load = (await import('node:os')).loadavg().map((l) => l.toFixed(2));
    console.log(`\nbefore: ${sides[0]!.label}   after: ${sides[1]!.label}`);
    console.log(
      `${RUNS} runs per side, alternating; each run the best of ${ROUNDS} rounds of ${MS} ms (CPU time); load ${load.join(' ')}\n`,
    );
    const header = [
      'case',
      'before ns/op',
      'after ns/op',
      'after/before',
      'before runs',
      'after runs',
    ];
    if (INSTRUCTIONS) header.push('before instr/op', 'after instr/op', 'after/before');
    console.log(`| ${header.join(' | ')} |`);
    console.log(`|${header.map(() => '---').join('|')}|`);
    names.forEach((n, i) => {
      const [b, a] = samples.map((m) => m.get(n)!);
      const mb = median(b!);
      const ma = median(a!);
      const range = (v: number[]): string => `${fmt(Math.min(...v))}-${fmt(Math.max(...v))}`;
      const row = [n, fmt(mb), fmt(ma), fmt(ma / mb, 2), range(b!), range(a!)];
      if (INSTRUCTIONS) {
        const [ib, ia] = [ir[0]![i]!, ir[1]![i]!];
        row.push(fmt(ib), fmt(ia), fmt(ia / ib, 2));
      }
      console.log(`| ${row.join(' | ')} |`);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
