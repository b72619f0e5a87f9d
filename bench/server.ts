// The ZooKeeper the benchmark runs against: one it starts through the test harness (local
// install or Docker), or an existing ensemble (--server / ZOOKEEPER_CONNECT) it leaves alone.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import {
  fourLetterWord,
  parseMntr,
  startStandalone,
  type ZkServer,
} from '../test/harness/index.js';

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
  // The ZooKeeper default tick: session timeouts of 4..120 s, as a production server allows.
  const server: ZkServer = await startStandalone({
    tickTime: 2000,
    jvmFlags: serverJvmFlags(options.fsync, options.testJvm ?? false),
    ...(options.port === undefined ? {} : { clientPort: options.port }),
  });
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
