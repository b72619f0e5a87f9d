// The runtime driver: starts a real ZooKeeper (plain and TLS ports) with the test harness, runs
// the smoke suite and the examples under Node, Bun, Deno and workerd, and prints one table.
//   npx tsx test/runtimes/run.ts [--only node,bun,deno,workerd] [--round-trips 2000] [--json out.json]
//     [--verbose]   (also print workerd's own log)
// Runtimes come from node_modules/.bin (npm packages bun, deno, workerd), else from PATH.
// Exit code 0 only if every selected runtime passed everything.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, startStandalone, type ZkServer } from '../harness/index.js';
import { makeCertificates } from './certs.js';
import { exampleChecks } from './examples.js';
import { type Bundle, bundleFor, findBinary, type ProcessResult, run } from './processes.js';
import { type EntryConfig, RESULT_PREFIX } from './protocol.js';
import type { SmokeReport } from './smoke.js';
import { runnerExample, workerdTestingExample } from './testing-examples.js';
import { startWorkerd, workerdSmokeConfig } from './workerd.js';

const RUNTIMES = ['node', 'bun', 'deno', 'workerd'] as const;
type Runtime = (typeof RUNTIMES)[number];

/** Transports tried on each runtime: the default first, then the runtime's other adapters. */
const TRANSPORTS: Record<Runtime, string[]> = {
  node: ['default', 'node-web'],
  bun: ['default', 'bun'],
  deno: ['default', 'deno'],
  workerd: ['default'],
};

const DENO_FLAGS = ['run', '--quiet', '--no-prompt', '--sloppy-imports', '--allow-net=127.0.0.1'];
const SMOKE_TIMEOUT_MS = 180_000;
const SASL_USER = { username: 'runtime', password: 'r\u00fcntime "secret"' };

interface RuntimeResult {
  runtime: Runtime;
  version: string;
  reports: SmokeReport[];
  examples: { name: string; ok: boolean; detail: string }[];
  problems: string[];
}

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    'round-trips': { type: 'string', default: '2000' },
    json: { type: 'string' },
    verbose: { type: 'boolean', default: false },
  },
});
const selected = (values.only?.split(',') ?? [...RUNTIMES]) as Runtime[];
for (const name of selected) {
  if (!RUNTIMES.includes(name)) throw new Error(`unknown runtime ${name}`);
}
const roundTrips = Number(values['round-trips']);

const work = mkdtempSync(join(tmpdir(), 'zkts-runtimes-'));
let server: ZkServer | null = null;
const results: RuntimeResult[] = [];
try {
  console.log('starting ZooKeeper (plain + TLS) ...');
  const certificates = await makeCertificates(work);
  server = await startStandalone({
    tls: true,
    tickTime: 500,
    jvmFlags: certificates.jvmFlags,
    // SASL on, not enforced: the other steps keep working without it.
    sasl: { users: { [SASL_USER.username]: SASL_USER.password } },
  });
  const tlsConnectString = server.tlsConnectString;
  const ca = certificates.ca;
  if (!tlsConnectString) throw new Error('the harness started no TLS port');
  console.log(`ZooKeeper at ${server.connectString}, TLS at ${tlsConnectString}`);

  for (const runtime of selected) {
    const config: EntryConfig = {
      connectString: server.connectString,
      transports: TRANSPORTS[runtime],
      roundTrips,
      tls: { connectString: tlsConnectString, ca },
      sasl: SASL_USER,
    };
    console.log(`\n=== ${runtime} ===`);
    results.push(await runRuntime(runtime, config, work));
  }
} finally {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
}

printTable(results);
if (values.json) writeFileSync(values.json, `${JSON.stringify(results, null, 2)}\n`);
const passed = results.every(runtimePassed);
console.log(passed ? '\nall runtimes passed' : '\nFAILED');
process.exitCode = passed ? 0 : 1;

async function runRuntime(
  runtime: Runtime,
  config: EntryConfig,
  dir: string,
): Promise<RuntimeResult> {
  const result: RuntimeResult = { runtime, version: '', reports: [], examples: [], problems: [] };
  const binary = runtime === 'node' ? process.execPath : findBinary(runtime);
  if (!binary) {
    result.problems.push(
      `${runtime} not found in node_modules/.bin or PATH (npm i -D ${runtime}; it must run its postinstall)`,
    );
    return result;
  }
  result.version = await versionOf(runtime, binary);
  console.log(`${runtime} ${result.version} (${binary})`);

  if (runtime === 'workerd') {
    await runWorkerd(binary, config, dir, result);
    return result;
  }
  const entry = 'test/runtimes/cli.ts';
  const argv = JSON.stringify(config);
  const smoke =
    runtime === 'node'
      ? await run(binary, ['--import', 'tsx', entry, argv], SMOKE_TIMEOUT_MS)
      : runtime === 'bun'
        ? await run(binary, [entry, argv], SMOKE_TIMEOUT_MS)
        : await run(binary, [...DENO_FLAGS, entry, argv], SMOKE_TIMEOUT_MS);
  collect(smoke, result);

  const example = `examples/${runtime}.ts`;
  const exampleRun =
    runtime === 'node'
      ? await run(binary, ['--import', 'tsx', example, config.connectString], 60_000)
      : runtime === 'bun'
        ? await run(binary, [example, config.connectString], 60_000)
        : await run(binary, [...DENO_FLAGS, example, config.connectString], 60_000);
  const ok = exampleRun.code === 0 && /^done$/m.test(exampleRun.stdout);
  result.examples.push({ name: example, ok, detail: ok ? '' : describeRun(exampleRun) });
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${example}`);
  // The testing guide's example, on this runtime's own test runner.
  const guide = await runnerExample(runtime, binary);
  result.examples.push(guide);
  console.log(`${guide.ok ? 'ok  ' : 'FAIL'} ${guide.name}`);
  return result;
}

async function runWorkerd(
  binary: string,
  config: EntryConfig,
  dir: string,
  result: RuntimeResult,
): Promise<void> {
  // Smoke suite: one bundle, one request.
  const smokeBundle: Bundle = await bundleFor('test/runtimes/worker.ts', join(dir, 'smoke.js'), {
    // The node-web test transport is never used on workerd; keep it out of the bundle.
    external: ['node:*'],
  });
  const port = await freePort();
  const configFile = join(dir, 'smoke.capnp');
  writeFileSync(
    configFile,
    workerdSmokeConfig({ bundle: smokeBundle.file, port, trustedCa: config.tls?.ca ?? '' }),
  );
  const smokeServer = await startWorkerd(binary, configFile, [port]);
  try {
    const response = await fetch(`http://127.0.0.1:${port}/smoke`, {
      method: 'POST',
      body: JSON.stringify(config),
      signal: AbortSignal.timeout(SMOKE_TIMEOUT_MS),
    });
    const body = await response.text();
    collect({ code: response.ok ? 0 : 1, stdout: body, stderr: '', timedOut: false }, result);
  } catch (error) {
    result.problems.push(`smoke request failed: ${String(error)}`);
  } finally {
    const log = await smokeServer.stop();
    if (values.verbose) console.log(`workerd log (smoke):\n${log}`);
    if (result.reports.length === 0 || result.reports.some((r) => !r.ok)) {
      result.problems.push(`workerd log: ${log.slice(-2000)}`);
    }
  }

  // Examples: their own config file, ports and ZooKeeper address substituted.
  try {
    const { checks, log } = await exampleChecks(binary, config.connectString, dir);
    if (values.verbose) console.log(`workerd log (examples):\n${log}`);
    for (const check of checks) {
      result.examples.push(check);
      console.log(`${check.ok ? 'ok  ' : 'FAIL'} ${check.name}`);
    }
  } catch (error) {
    result.examples.push({ name: 'workerd examples', ok: false, detail: String(error) });
    console.log(`FAIL workerd examples: ${String(error)}`);
  }
  // The testing guide's Worker: the in-process server and its client, in memory.
  const guide = await workerdTestingExample(binary, dir);
  result.examples.push(guide);
  console.log(`${guide.ok ? 'ok  ' : 'FAIL'} ${guide.name}`);
}

function collect(process: ProcessResult, result: RuntimeResult): void {
  const before = result.reports.length;
  for (const line of process.stdout.split('\n')) {
    if (line.startsWith(RESULT_PREFIX)) {
      result.reports.push(JSON.parse(line.slice(RESULT_PREFIX.length)) as SmokeReport);
    } else if (line.trim() !== '') {
      console.log(line);
    }
  }
  if (process.code !== 0 || process.timedOut || result.reports.length === before) {
    result.problems.push(describeRun(process));
  }
}

function describeRun(process: ProcessResult): string {
  const how = process.timedOut
    ? 'timed out (a handle kept it alive?)'
    : `exit code ${process.code}`;
  const tail = (process.stderr || process.stdout).trim().split('\n').slice(-15).join('\n');
  return `${how}${tail ? `\n${tail}` : ''}`;
}

async function versionOf(runtime: Runtime, binary: string): Promise<string> {
  if (runtime === 'node') return process.version;
  const out = await run(binary, ['--version'], 30_000);
  // "deno 2.9.6 (stable, ...)", "workerd 2026-11-17", "1.4.5": keep the version itself.
  const first = out.stdout.split('\n')[0]?.trim() ?? '';
  return first.replace(/^(deno|workerd) /, '').replace(/ \(.*$/, '') || '?';
}

function runtimePassed(result: RuntimeResult): boolean {
  return (
    result.problems.length === 0 &&
    result.reports.length === TRANSPORTS[result.runtime].length &&
    result.reports.every((r) => r.ok) &&
    result.examples.length > 0 &&
    result.examples.every((e) => e.ok)
  );
}

function printTable(all: RuntimeResult[]): void {
  console.log(
    '\n| runtime | version | transport | smoke steps | getData/s (sequential) | examples | result |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const r of all) {
    const examples = `${r.examples.filter((e) => e.ok).length}/${r.examples.length}`;
    const verdict = runtimePassed(r) ? 'pass' : 'FAIL';
    if (r.reports.length === 0) {
      console.log(`| ${r.runtime} | ${r.version || '-'} | - | - | - | ${examples} | ${verdict} |`);
    }
    for (const report of r.reports) {
      const passedSteps = report.steps.filter((s) => s.ok).length;
      const failed = report.steps.filter((s) => !s.ok).map((s) => s.name);
      const steps = `${passedSteps}/${report.steps.length}${failed.length ? ` (failed: ${failed.join(', ')})` : ''}`;
      const rate = report.getDataPerSecond ?? '-';
      console.log(
        `| ${r.runtime} | ${r.version} | ${report.transport} | ${steps} | ${rate} | ${examples} | ${verdict} |`,
      );
    }
  }
  for (const r of all) {
    for (const problem of r.problems) console.log(`\n${r.runtime}: ${problem}`);
    for (const e of r.examples.filter((x) => !x.ok))
      console.log(`\n${r.runtime} ${e.name}: ${e.detail}`);
  }
}
