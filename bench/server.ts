// The ZooKeeper the benchmark runs against: one it starts through the test harness (local
// install or Docker), or an existing ensemble (--server / ZOOKEEPER_CONNECT) it leaves alone. On
// a machine with neither (no Java, no Docker), or with --model-server, the in-process model of
// zookeeper-ts/testing in a process of its own, and every report says so (MODEL_BANNER).
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  fourLetterWord,
  HarnessUnavailableError,
  parseMntr,
  startStandalone,
  type ZkServer,
} from '../test/harness/index.js';
import { BENCH_DIR, BUILD_DIR, REPO_DIR } from './paths.js';

export { MODEL_BANNER } from './model-banner.js';

export interface BenchServer {
  connectString: string;
  /** `started standalone (local JVM)`, `external`, ... */
  origin: string;
  /** forceSync as configured by us; undefined for an external server (unknown). */
  fsync: boolean | undefined;
  /** `Zookeeper version:` line of `srvr`, when the server answers four-letter words. */
  version: string | undefined;
  /** `mntr` of the server; undefined for an ensemble or when it does not answer four-letter words. */
  mntr(): Promise<Record<string, string> | undefined>;
  /** CPU time the server process has used so far, ms; undefined when it is not ours to read. */
  cpuMs(): number | undefined;
  /** The in-process model, not ZooKeeper: why (no ZooKeeper found, or --model-server). */
  model?: string;
  close(): Promise<void>;
}

/**
 * Server JVM flags for measuring rather than for fast test start-up: the harness's C1-only,
 * 192 MB defaults would make the server, not the client, the bottleneck. Appended last, so they win.
 */
function serverJvmFlags(fsync: boolean, testJvm: boolean): string[] {
  return [
    // `--server-jvm test` keeps the harness's start-up flags (C1 only, 192 MB, serial GC).
    ...(testJvm ? [] : ['-XX:TieredStopAtLevel=4', '-Xms256m', '-Xmx1g']),
    ...(fsync ? ['-Dzookeeper.forceSync=yes'] : []),
  ];
}

export async function provideServer(options: {
  server: string | undefined;
  fsync: boolean;
  /** Keep the test harness's JVM flags (C1 only, small heap) instead of the measuring ones. */
  testJvm?: boolean;
  /** Client port of the server started here; undefined: a free port. */
  port: number | undefined;
  /** Measure against the in-process model even where a ZooKeeper could be started. */
  model?: boolean;
}): Promise<BenchServer> {
  const external = options.server ?? (process.env.ZOOKEEPER_CONNECT?.trim() || undefined);
  if (external !== undefined) {
    return {
      connectString: external,
      origin: 'external',
      fsync: undefined,
      version: await versionOf(external),
      mntr: () => mntrOf(external),
      cpuMs: () => undefined,
      close: async () => {},
    };
  }
  if (options.model) return startModelServer(options.port, 'asked for with --model-server');
  let server: ZkServer;
  try {
    // The ZooKeeper default tick: session timeouts of 4..120 s, as a production server allows.
    server = await startStandalone({
      tickTime: 2000,
      jvmFlags: serverJvmFlags(options.fsync, options.testJvm ?? false),
      ...(options.port === undefined ? {} : { clientPort: options.port }),
    });
  } catch (error) {
    // No ZooKeeper to start here; a forced backend (ZOOKEEPER_HARNESS) that fails stays a failure.
    if (!(error instanceof HarnessUnavailableError) || process.env.ZOOKEEPER_HARNESS) throw error;
    return startModelServer(options.port, 'no ZooKeeper found');
  }
  return {
    connectString: server.connectString,
    origin: `standalone started by the test harness${options.testJvm ? ' (test JVM flags: C1 only, 192 MB)' : ''}`,
    fsync: options.fsync,
    version: await versionOf(server.connectString),
    mntr: () => mntrOf(server.connectString),
    cpuMs: () => processCpuMs(pidOf(server)),
    close: () => server.close(),
  };
}

/** The JVM's pid: the harness's local servers have one (a Docker server does not). */
function pidOf(server: ZkServer): number | undefined {
  const pid: unknown = (server as { pid?: unknown }).pid;
  return typeof pid === 'number' ? pid : undefined;
}

let ticksPerSecond: number | undefined;

/** utime + stime of a process from /proc (Linux), in ms. */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // The command name (field 2) may contain spaces: count fields after its closing parenthesis.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100;
    return Number.isFinite(ticks) ? (ticks * 1000) / ticksPerSecond : undefined;
  } catch {
    return undefined;
  }
}

/** A four-letter word to the first host of the connect string; undefined when it fails. */
async function fourLetter(connectString: string, cmd: string): Promise<string | undefined> {
  const first = connectString.split('/')[0]!.split(',')[0]!;
  const colon = first.lastIndexOf(':');
  const host = first.slice(0, colon).replace(/^\[|\]$/g, '');
  const port = Number(first.slice(colon + 1));
  try {
    return await fourLetterWord(host, port, cmd, 2000);
  } catch {
    return undefined;
  }
}

async function versionOf(connectString: string): Promise<string | undefined> {
  const srvr = await fourLetter(connectString, 'srvr');
  return srvr === undefined ? undefined : /^Zookeeper version: ([^,\s-]+)/m.exec(srvr)?.[1];
}

async function mntrOf(connectString: string): Promise<Record<string, string> | undefined> {
  // Sessions spread over an ensemble's members: one member's counters would be a fraction.
  if (connectString.split('/')[0]!.includes(',')) return undefined;
  const text = await fourLetter(connectString, 'mntr');
  if (text === undefined) return undefined;
  const values = parseMntr(text);
  return Object.keys(values).length > 0 ? values : undefined;
}

/** The model server (bench/model-server.ts) in a child process; resolves once it listens. */
async function startModelServer(port: number | undefined, why: string): Promise<BenchServer> {
  const program =
    BUILD_DIR === undefined
      ? ['--import', 'tsx', join(BENCH_DIR, 'model-server.ts')]
      : [join(BUILD_DIR, 'model-server.mjs')];
  const child = spawn(process.execPath, [...program, String(port ?? 0)], {
    cwd: REPO_DIR,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const connectString = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the model server did not start within 30 s'));
    }, 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { connectString: string }).connectString);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the model server exited with ${signal ?? code} before it listened`));
    });
  });
  return {
    connectString,
    origin: 'the in-process model of zookeeper-ts/testing, NOT ZooKeeper',
    fsync: undefined,
    version: undefined,
    model: why,
    mntr: async () => undefined,
    cpuMs: () => processCpuMs(child.pid),
    close: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
