// `zkts bench` end to end: spawned CLI processes against the real server, each in a fresh chroot
// so that "nothing left behind" means an empty chroot.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Client } from '../../../src/index.js';
import { buildBenchWorker } from './bench-helpers.js';
import { type CliResult, cliEntry, freshChroot, runCli, startCli } from './helpers.js';

interface BenchJson {
  scenario: string;
  interrupted: boolean;
  settings: { sessions: number; processes: number; root: string };
  results: {
    name: string;
    ops: number;
    throughput: number;
    measuredMs: number;
    latency: { count: number; p50Ms: number; p99Ms: number; p999Ms: number } | null;
    handoff: { count: number } | null;
    fairness: { jain: number; min: number; max: number } | null;
    errors: Record<string, number>;
  }[];
}

/** Short runs: a loaded 2-core machine still gets a few hundred operations in. */
const SHORT = ['--sessions', '3', '--duration', '300', '--warmup', '100'];
const THREE = ['--sessions', '3'];

/** A run that ended without errors but with a case that completed no operation in its rounds. */
function nothingMeasured(result: CliResult, json: boolean): boolean {
  if (/no operation completed in the measured rounds/.test(result.stderr)) return true;
  if (result.code !== 0 || !json) return false;
  const { results } = JSON.parse(result.stdout) as BenchJson;
  return results.some((row) => row.ops === 0 && Object.keys(row.errors).length === 0);
}

/**
 * `zkts bench ...args` with short rounds (`timing`: duration and warm-up, ms). A loaded machine can
 * starve the server through a whole short round, so that a case measures nothing without an
 * error: then the same run again with rounds twice as long, up to 16 times as long.
 */
async function benchMeasured(
  args: readonly string[],
  servers: string,
  [durationMs, warmupMs]: [number, number] = [300, 100],
): Promise<CliResult> {
  for (let stretch = 1; ; stretch *= 2) {
    const timing = [
      '--duration',
      String(durationMs * stretch),
      '--warmup',
      String(warmupMs * stretch),
    ];
    const result = await runCli(['bench', ...args, ...timing], { servers });
    if (stretch >= 16 || !nothingMeasured(result, args.includes('--json'))) return result;
  }
}

async function expectNothingLeft(root: Client): Promise<void> {
  expect(await root.getChildren('/')).toEqual([]);
  expect(await root.getEphemerals('/')).toEqual([]);
}

describe('zkts bench', () => {
  it('runs every scenario briefly, reports figures and removes its root', async () => {
    const { servers, root } = await freshChroot();
    const runs = [
      ['mutex'],
      ['paths', '--paths', '2'],
      ['rwlock'],
      ['semaphore', '--kind', 'semaphore:2'],
      ['exclusive'],
      ['mutex', '--naming', 'kazoo', '--hold', '1', '--payload', '16'],
      ['raw', '--sessions', '2', '--depth', '4'],
    ];
    // Two at a time, each under a root of its own (runs sharing the default parent leave it to
    // the server's container cleanup, which takes up to a minute).
    const results: { args: string[]; report: BenchJson }[] = [];
    for (let i = 0; i < runs.length; i += 2) {
      const batch = runs.slice(i, i + 2);
      const done = await Promise.all(
        batch.map((args, j) =>
          benchMeasured(
            [
              ...args,
              ...(args[0] === 'raw' ? [] : THREE),
              '--json',
              '--root',
              `/run${i + j}/bench`,
            ],
            servers,
            args[0] === 'raw' ? [100, 20] : [300, 100],
          ),
        ),
      );
      done.forEach((result, j) => {
        expect(result.stderr, `${batch[j]!.join(' ')}`).toBe(''); // no progress line when piped
        expect(result.code).toBe(0);
        results.push({ args: batch[j]!, report: JSON.parse(result.stdout) as BenchJson });
      });
    }
    for (const { args, report } of results) {
      const what = args.join(' ');
      expect(report.scenario, what).toBe(args[0]);
      expect(report.interrupted).toBe(false);
      expect(report.results.length, what).toBe(args[0] === 'raw' ? 6 : 1);
      for (const row of report.results) {
        expect(row.ops, `${what}: ${row.name}`).toBeGreaterThan(0);
        expect(row.errors, `${what}: ${row.name}`).toEqual({});
        // Every measured operation is in the histogram, once.
        expect(row.latency?.count).toBe(row.ops);
        expect(row.latency!.p50Ms).toBeGreaterThan(0);
        expect(row.latency!.p50Ms).toBeLessThanOrEqual(row.latency!.p999Ms);
        if (args[0] === 'raw') {
          expect(row.fairness).toBeNull();
        } else {
          expect(row.fairness!.min + row.fairness!.max).toBeGreaterThan(0);
          expect(row.fairness!.jain).toBeGreaterThan(0);
        }
      }
    }
    const mutex = results[0]!.report.results[0]!;
    // Three sessions on one mutex: grants follow releases.
    expect(mutex.handoff!.count).toBeGreaterThan(0);
    expect(results.at(-1)!.report.results.map((r) => r.name)).toEqual([
      'getData sequential',
      'getData pipelined',
      'setData sequential',
      'setData pipelined',
      'create+delete sequential',
      'create+delete pipelined',
    ]);
    await expectNothingLeft(root);
  });

  it('prints a table and writes an SVG chart', async () => {
    const { servers, root } = await freshChroot();
    const dir = mkdtempSync(join(tmpdir(), 'zkts-bench-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const svg = join(dir, 'chart.svg');
    const result = await benchMeasured(['mutex', ...THREE, '--svg', svg], servers);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^zkts bench mutex: 3 sessions on 1 path, mutex, 1 process/);
    expect(result.stdout).toMatch(
      /SCENARIO\s+OPS\s+OPS\/S\s+ACQUIRE p50\s+p99\s+p999\s+HANDOFF p50/,
    );
    expect(result.stdout).toMatch(/\nmutex\s+[\d,]+\s+[\d,]+\s+[\d.]+/);
    expect(existsSync(svg)).toBe(true);
    const chart = readFileSync(svg, 'utf8');
    expect(chart).toMatch(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(chart).toContain('>mutex<');
    await expectNothingLeft(root);
  });

  it('shows a live progress line on a terminal', async () => {
    const { servers, root } = await freshChroot();
    const entry = await cliEntry();
    // util-linux script(1) gives the CLI a pseudo-terminal: stderr is a TTY there.
    const command = `${process.execPath} ${entry} bench mutex --sessions 2 --duration 700 --warmup 100`;
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: { ...process.env, ZOOKEEPER_SERVERS: servers, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code).toBe(0);
    // A carriage return and ESC [K (erase the line) before each refresh.
    expect(output).toContain('\r\u001b[Kzkts bench: mutex, ');
    expect(output).toMatch(/zkts bench: mutex, (warm-up|round 1\/1), [\d,]+ ops\/s/);
    expect(output).toMatch(/SCENARIO\s+OPS\s+OPS\/S/);
    await expectNothingLeft(root);
  });

  it('--processes 2 spreads the sessions and merges the figures exactly', async () => {
    await buildBenchWorker();
    const { servers, root } = await freshChroot();
    const result = await runCli(
      'bench mutex --sessions 4 --processes 2 --duration 400 --warmup 100 --json'.split(' '),
      { servers },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as BenchJson;
    expect(report.settings).toMatchObject({ sessions: 4, processes: 2 });
    const [row] = report.results;
    expect(row!.ops).toBeGreaterThan(0);
    expect(row!.latency!.count).toBe(row!.ops); // the two histograms summed bucket by bucket
    // Each of the four sessions (two per process) got the lock: both processes took part.
    expect(row!.fairness!.min).toBeGreaterThan(0);
    expect(row!.handoff!.count).toBeGreaterThan(0);
    expect(row!.errors).toEqual({});
    await expectNothingLeft(root);
  });

  it('Ctrl-C in the middle stops the workers, closes every session and removes everything', async () => {
    await buildBenchWorker();
    const { servers, root } = await freshChroot();
    const cli = await startCli(
      'bench mutex --sessions 4 --processes 2 --duration 60000 --warmup 0 --json'.split(' '),
      { servers },
    );
    // Running: lock nodes of both processes' sessions are on the server.
    await expect
      .poll(
        async () => {
          const runs = await root.getChildren('/zkts-bench').catch(() => []);
          if (runs.length !== 1) return 0;
          const lock = `/zkts-bench/${runs[0]}/mutex`;
          return (await root.getChildren(lock).catch(() => [])).length;
        },
        { timeout: 15_000, interval: 20 },
      )
      .toBeGreaterThanOrEqual(2);
    cli.child.kill('SIGINT');
    const result = await cli.done;
    expect(result.code).toBe(130);
    const report = JSON.parse(result.stdout) as BenchJson;
    expect(report.interrupted).toBe(true);
    // Figures over the time it ran, not over the 60 s it was asked for.
    const [row] = report.results;
    expect(row!.measuredMs).toBeGreaterThan(0);
    expect(row!.measuredMs).toBeLessThan(60_000);
    // The JSON rounds measuredMs to whole ms and the throughput to 0.1 op/s: the throughput lies
    // within both roundings.
    expect(row!.throughput).toBeGreaterThanOrEqual(
      (row!.ops * 1000) / (row!.measuredMs + 0.5) - 0.05,
    );
    expect(row!.throughput).toBeLessThanOrEqual((row!.ops * 1000) / (row!.measuredMs - 0.5) + 0.05);
    await expectNothingLeft(root);
  });

  it('Ctrl-C while it sets up (root made, sessions connecting) also leaves nothing', async () => {
    await buildBenchWorker();
    const { servers, root } = await freshChroot();
    const cli = await startCli(
      ['bench', 'raw', '--sessions', '40', '--processes', '2', '--duration', '60000'],
      { servers },
    );
    // Whatever step it is in once its root exists: claiming, making nodes, connecting, running.
    await expect
      .poll(async () => (await root.getChildren('/zkts-bench').catch(() => [])).length, {
        timeout: 15_000,
        interval: 5,
      })
      .toBe(1);
    cli.child.kill('SIGINT');
    const result = await cli.done;
    expect(result.code).toBe(130);
    await expectNothingLeft(root);
  });

  it('refuses a root that holds data it did not write, and leaves it alone', async () => {
    const { servers, root } = await freshChroot();
    await root.create('/theirs', 'precious');
    await root.create('/busy');
    await root.create('/busy/child');
    for (const path of ['/theirs', '/busy']) {
      const result = await runCli(['bench', '--root', path, ...SHORT], { servers });
      expect(result.code).toBe(4);
      expect(result.stderr).toMatch(
        new RegExp(`NODEEXISTS: ${path} already holds data zkts bench did not write`),
      );
      expect(result.stdout).toBe('');
    }
    expect((await root.getData('/theirs')).data).toEqual(new TextEncoder().encode('precious'));
    expect((await root.getChildren('/')).sort()).toEqual(['busy', 'theirs']);
    expect(await root.getChildren('/busy')).toEqual(['child']);
    // An empty node is fine as a root: used, and kept (it is not ours to delete).
    await root.create('/empty');
    const ok = await benchMeasured(['--root', '/empty', ...THREE], servers);
    expect(ok.code).toBe(0);
    expect(await root.getChildren('/')).toContain('empty');
    expect(await root.getChildren('/empty')).toEqual([]);
  });

  it('a bad option is a clear usage error and touches nothing', async () => {
    const { servers, root } = await freshChroot();
    const cases: [string[], RegExp][] = [
      [
        ['nosuch'],
        /unknown scenario "nosuch"; scenarios: mutex, paths, rwlock, semaphore, exclusive, raw/,
      ],
      [['--duration', 'abc'], /--duration must be a whole number from 1 to 86400000, got "abc"/],
      [['--sessions', '0'], /--sessions must be a whole number from 1 to 10000, got "0"/],
      [
        ['--kind', 'fifo'],
        /--kind must be mutex, read, write, exclusive or semaphore:N, got "fifo"/,
      ],
      [
        ['rwlock', '--kind', 'write'],
        /--kind applies to the mutex, paths and semaphore scenarios, not rwlock/,
      ],
      [['--naming', 'zk'], /--naming must be curator or kazoo, got "zk"/],
      [
        ['--processes', '3', '--sessions', '2'],
        /--processes 3 needs at least as many --sessions \(got 2\)/,
      ],
      [['--root', 'relative'], /--root must be an absolute path below \/, got "relative"/],
      [['--bogus'], /unknown option --bogus for bench/],
    ];
    const results = await Promise.all(
      cases.map(([args]) => runCli(['bench', ...args], { servers })),
    );
    results.forEach((result, i) => {
      expect(result.code, cases[i]![0].join(' ')).toBe(2);
      expect(result.stderr).toMatch(cases[i]![1]);
      expect(result.stderr).toMatch(/\(see zkts bench --help\)\n$/);
    });
    await expectNothingLeft(root);
  });
});
