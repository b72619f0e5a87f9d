// `npm test`: every tier, failing fast, and one closing line for the whole run.
//   1. what the machine lacks, in one message, before anything slow (test/tiers/prerequisites.ts)
//   2. the unit tier (no server, under a minute), then the type check and lint, then the API docs
//      check; the first failure stops the run
//   3. in parallel: the integration, interop and soak tiers (one vitest run, one shared server,
//      two files at a time) beside the package test and then the runtime tests (each with its
//      own server)
// The closing line, `tests: N passed, N failed`, adds up every vitest test and counts each other
// step (type check and lint, docs check, package, runtimes) as one test: .ci/run reads it.
// With ZOOKEEPER_CONNECT, the runtime tests (which need a TLS port on a server of their own) are
// left out and said so; vitest.config.ts leaves out the test files that need such a server.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { externalConnectString } from '../harness/source.js';
import { COUNTS_FILE_ENV, type RunCounts } from '../summary-reporter.js';
import { describeMissing, missingPrerequisites } from './prerequisites.js';
import { type Outcome, tally } from './tally.js';

const countsDir = mkdtempSync(join(tmpdir(), 'zkts-tiers-'));
const countsFile = join(countsDir, 'counts.jsonl');
const outcomes: Outcome[] = [];
const children = new Set<ChildProcess>();
const started = Date.now();

/** Runs `command` as one step; `buffered` holds its output until it ends (for parallel steps). */
function step(name: string, command: string[], buffered = false): Promise<Outcome> {
  console.log(`::: ${name}: ${command.join(' ')}`);
  const begun = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command[0] as string, command.slice(1), {
      stdio: buffered ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      env: { ...process.env, [COUNTS_FILE_ENV]: countsFile },
    });
    children.add(child);
    const output: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => output.push(chunk));
    const finish = (ok: boolean, note?: string) => {
      children.delete(child);
      if (buffered) process.stdout.write(`::: ${name} output\n${Buffer.concat(output).toString()}`);
      const outcome = { name, ok, seconds: (Date.now() - begun) / 1000, ...(note ? { note } : {}) };
      console.log(`::: ${name} took ${outcome.seconds.toFixed(1)} s (${ok ? 'ok' : 'FAILED'})`);
      outcomes.push(outcome);
      resolve(outcome);
    };
    child.on('error', (error) => finish(false, error.message));
    child.on('close', (code, signal) =>
      finish(code === 0, signal ? `ended by ${signal}` : undefined),
    );
  });
}

const vitestSteps = new Set(['unit', 'integration, interop, soak']);

/** The closing line from the counts the vitest runs wrote (read before the folder goes). */
function closingLine(): string {
  let text = '';
  try {
    text = readFileSync(countsFile, 'utf8');
  } catch {
    // no vitest run got as far as its report
  }
  const runs = text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as RunCounts);
  return tally(outcomes, runs, vitestSteps);
}

function finish(): never {
  const closing = closingLine();
  rmSync(countsDir, { recursive: true, force: true });
  console.log('\n::: steps');
  for (const { name, ok, seconds, note } of outcomes) {
    console.log(
      `    ${name.padEnd(28)} ${seconds.toFixed(1).padStart(7)} s  ${ok ? 'ok' : 'FAILED'}${note ? ` (${note})` : ''}`,
    );
  }
  console.log(
    `    ${'whole run'.padEnd(28)} ${((Date.now() - started) / 1000).toFixed(1).padStart(7)} s`,
  );
  const failed = outcomes.some(({ ok }) => !ok);
  console.log(closing);
  process.exit(failed ? 1 : 0);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    for (const child of children) child.kill(signal);
  });
}

const missing = await missingPrerequisites();
if (missing.length > 0) {
  console.log(describeMissing(missing));
  outcomes.push({ name: 'prerequisites', ok: false, seconds: (Date.now() - started) / 1000 });
  finish();
}
const external = externalConnectString();
if (external !== undefined) {
  console.log(
    `ZOOKEEPER_CONNECT=${external}: the tiers run against that server; the runtime tests are ` +
      'left out (they start a server with a TLS port of their own), and so are the test files ' +
      'that start, stop or kill servers (vitest names them). Unset ZOOKEEPER_CONNECT to run everything.',
  );
}

for (const [name, command] of [
  ['unit', ['npx', 'vitest', 'run', '--project', 'unit']],
  ['type check and lint', ['npm', 'run', '--silent', 'check']],
  ['docs check', ['npm', 'run', '--silent', 'docs:check']],
] as const) {
  const outcome = await step(name, [...command]);
  if (!outcome.ok) finish();
}

const serverTiers = ['integration', 'interop', 'soak'].flatMap((tier) => ['--project', tier]);
await Promise.all([
  step('integration, interop, soak', ['npx', 'vitest', 'run', ...serverTiers]),
  (async () => {
    await step('package', ['npx', 'tsx', 'test/package/run.ts'], true);
    if (external === undefined)
      await step('runtimes', ['npx', 'tsx', 'test/runtimes/run.ts'], true);
  })(),
]);
finish();
