// Runs the zkts CLI as a separate process against the shared server, each test in its own chroot.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, onTestFinished } from 'vitest';
import { type Client, type ConnectOptions, connect } from '../../../src/index.js';
import { sharedServer, uniquePath, waitFor } from '../../harness/index.js';
import { bundleInto } from '../../support/integration.js';

export { bundleInto };

/** The node binary that runs this test: the command zkts runs in the tests' `-- CMD`. */
export const node = process.execPath;
/** CLI processes start slowly on a loaded machine: poll patiently. */
export const POLL = { timeout: 10_000, interval: 20 };
/** A bounded look at something that must NOT happen meanwhile (never a wait for an event). */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const ROOT = join(import.meta.dirname, '../../..');
// Inside the checkout (ignored by git, tsc and biome), so that --version finds package.json.
const BUILD_DIR = join(ROOT, 'node_modules/.cache/zkts-cli-test');
const ENTRY = join(BUILD_DIR, 'main.mjs');
let built: Promise<string> | undefined;

/**
 * The CLI bundled by esbuild (~100 ms) once per test worker: spawning it costs a plain `node`
 * start instead of a TypeScript compile per process. Workers share the file; each writes it
 * whole and renames it into place, so a spawn never sees half a file.
 */
export function cliEntry(): Promise<string> {
  if (built === undefined || !existsSync(ENTRY)) {
    built = bundleInto(join(ROOT, 'src/cli/main.ts'), ENTRY).then(() => ENTRY);
  }
  return built;
}

const open: Client[] = [];
const running = new Set<ChildProcess>();

afterEach(async () => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
  await Promise.all(open.splice(0).map((client) => client.close()));
});

/** A client (closed after the test). */
export async function newClient(
  connectString: string,
  options: ConnectOptions = {},
): Promise<Client> {
  const client = await connect(connectString, { sessionTimeout: 10_000, ...options });
  open.push(client);
  return client;
}

/** A fresh, empty chroot on the shared server: `{ servers, root }` (root: a client of it). */
export async function freshChroot(): Promise<{ servers: string; chroot: string; root: Client }> {
  const { connectString } = sharedServer();
  const admin = await newClient(connectString);
  const chroot = uniquePath('cli');
  await admin.create(chroot);
  const root = await newClient(connectString + chroot);
  return { servers: connectString + chroot, chroot, root };
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout as bytes (binary data). */
  bytes: Buffer;
}

export interface CliOptions {
  servers?: string;
  input?: string | Uint8Array;
  env?: Record<string, string | undefined>;
}

/** A running CLI: its output so far, and its end. */
export interface CliProcess {
  child: ChildProcess;
  readonly stdout: string;
  readonly stderr: string;
  done: Promise<CliResult>;
  /** Resolves once stderr (or stdout) matches. */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<void>;
  waitForStdout(pattern: RegExp, timeoutMs?: number): Promise<void>;
}

export async function startCli(
  args: readonly string[],
  options: CliOptions = {},
): Promise<CliProcess> {
  const entry = await cliEntry();
  const env: Record<string, string | undefined> = { ...process.env, ZKTS_HISTORY: '' };
  delete env.NO_COLOR;
  if (options.servers !== undefined) env.ZOOKEEPER_SERVERS = options.servers;
  Object.assign(env, options.env ?? {});
  const child = spawn(process.execPath, [entry, ...args], {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  running.add(child);
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout!.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr!.on('data', (chunk: Buffer) => err.push(chunk));
  if (options.input !== undefined) child.stdin!.end(options.input);
  const done = new Promise<CliResult>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      running.delete(child);
      const bytes = Buffer.concat(out);
      resolve({
        code,
        signal,
        bytes,
        stdout: bytes.toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
  });
  const handle: CliProcess = {
    child,
    get stdout() {
      return Buffer.concat(out).toString('utf8');
    },
    get stderr() {
      return Buffer.concat(err).toString('utf8');
    },
    done,
    waitForStderr: (pattern, timeoutMs = 10_000) =>
      waitForText(() => handle.stderr, pattern, timeoutMs, handle),
    waitForStdout: (pattern, timeoutMs = 10_000) =>
      waitForText(() => handle.stdout, pattern, timeoutMs, handle),
  };
  return handle;
}

async function waitForText(
  text: () => string,
  pattern: RegExp,
  timeoutMs: number,
  cli: CliProcess,
): Promise<void> {
  await waitFor(async () => (pattern.test(text()) ? true : undefined), {
    what: `CLI output matching ${pattern}`,
    timeoutMs,
    intervalMs: 20,
    abortIf: () =>
      cli.child.exitCode !== null ? `the CLI exited (${cli.child.exitCode})` : undefined,
    details: () => `stdout: ${cli.stdout}\nstderr: ${cli.stderr}`,
  });
}

/** Runs the CLI to its end. Stdin is closed (or fed `input`), so it is never a terminal. */
export async function runCli(
  args: readonly string[],
  options: CliOptions = {},
): Promise<CliResult> {
  const cli = await startCli(args, { input: '', ...options });
  return cli.done;
}

/** A script the locked commands run: it logs `start`/`end`/`term` lines with timestamps. */
export function workerScript(): {
  script: string;
  log: string;
  dir: string;
  /** `until:<file>` as a duration, and the function that creates the file (ends such workers). */
  untilReleased: string;
  release: () => void;
} {
  const dir = mkdtempSync(join(tmpdir(), 'zkts-cli-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const script = join(dir, 'worker.mjs');
  const log = join(dir, 'log');
  writeFileSync(log, '');
  writeFileSync(
    script,
    `import { appendFileSync, existsSync } from 'node:fs';
// node worker.mjs LOG ID MS|until:FILE [STATUS]: logs start, runs MS ms (or until FILE exists), logs end.
const [log, id, duration, code] = process.argv.slice(2);
const write = (what) => appendFileSync(log, what + ' ' + id + ' ' + Date.now() + ' ' + (process.env.ZKTS_FENCING_TOKEN ?? '') + '\\n');
const finish = () => { write('end'); process.exit(Number(code ?? 0)); };
process.on('SIGTERM', () => {
  write('term');
  if (!process.env.IGNORE_TERM) process.exit(42);
});
write('start');
if (duration.startsWith('until:')) {
  const file = duration.slice('until:'.length);
  const poll = setInterval(() => { if (existsSync(file)) { clearInterval(poll); finish(); } }, 20);
} else setTimeout(finish, Number(duration));
`,
  );
  const gate = join(dir, 'release');
  return {
    script,
    log,
    dir,
    untilReleased: `until:${gate}`,
    release: () => writeFileSync(gate, ''),
  };
}

/**
 * Starts a CLI that runs `prefix -- node worker LOG id until-released` and waits until the
 * worker logged its start: the worker (and the command) runs on until `worker.release()`.
 */
export async function holdingCli(
  servers: string,
  prefix: string[],
  worker: ReturnType<typeof workerScript>,
  id: string,
): Promise<CliProcess> {
  const { script, log, untilReleased } = worker;
  const cli = await startCli([...prefix, '--', node, script, log, id, untilReleased], { servers });
  await waitForLog(log, 'start', id);
  return cli;
}

/**
 * Two CLIs on one lock or election at `path`: `first` (the prefix of its command line) holds, its
 * command logging as A and running until released, and `second` is started behind it with a
 * command logging as B that exits at once, with `status` if given. Resolves once both have their node under `path`.
 */
export async function holderAndQueued(
  servers: string,
  root: Client,
  path: string,
  [first, second]: [string[], string[]],
  status?: string,
): Promise<{ worker: ReturnType<typeof workerScript>; first: CliProcess; second: CliProcess }> {
  const worker = workerScript();
  const holder = await holdingCli(servers, first, worker, 'A');
  const command = [node, worker.script, worker.log, 'B', '0', ...(status ? [status] : [])];
  const queued = await startCli([...second, '--', ...command], { servers });
  await expect.poll(async () => (await root.getChildren(path)).length, POLL).toBe(2);
  return { worker, first: holder, second: queued };
}

export interface LogLine {
  what: 'start' | 'end' | 'term';
  id: string;
  time: number;
  token: string;
}

export function readLog(log: string): LogLine[] {
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [what, id, time, token] = line.split(' ') as [LogLine['what'], string, string, string];
      return { what, id, time: Number(time), token };
    });
}

export function logEntry(log: string, what: LogLine['what'], id: string): LogLine | undefined {
  return readLog(log).find((line) => line.what === what && line.id === id);
}

/** Waits for a line in the worker log. */
export function waitForLog(
  log: string,
  what: LogLine['what'],
  id: string,
  timeoutMs = 10_000,
): Promise<LogLine> {
  return waitFor(async () => logEntry(log, what, id), {
    what: `"${what} ${id}" in the worker log`,
    timeoutMs,
    intervalMs: 20,
  });
}
