// The Java baselines (raw ZooKeeper client, Curator): compiles bench/java/*.java once per source
// change, then runs one JVM per measured case and reads its JSON result from stdout.
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { BENCH_DIR } from '../paths.js';
import type { RoundResult, Timing } from '../stats.js';

const JAVA_SOURCES = join(BENCH_DIR, 'java');
const JAR_DIR = '/usr/share/java';
/** The jars' manifests pull in the rest (netty, metrics, jute, ...). */
const JARS = [
  'curator-recipes.jar',
  'curator-framework.jar',
  'curator-client.jar',
  'zookeeper.jar',
  'zookeeper-jute.jar',
  'guava.jar',
  'slf4j-api.jar',
  'slf4j-nop.jar',
];
/** Client JVM: a fixed heap so GC sizing does not differ between runs. */
const CLIENT_JVM_FLAGS = ['-Xms256m', '-Xmx1g', '-Djava.net.preferIPv4Stack=true'];

export interface JavaResult {
  rounds: RoundResult[];
  /** Operations completed over the whole run, warm-up included. */
  total: number;
}

export interface JavaRunner {
  /** `java -version` first line, for the results file. */
  readonly version: string;
  run(
    scenario: 'raw' | 'curator',
    args: Record<string, string | number>,
    timing: Timing,
  ): Promise<JavaResult>;
}

/** A runner, or the reason there is none (no JDK, no jars, compile error). */
export async function prepareJava(): Promise<JavaRunner | { skipped: string }> {
  const java = findTool('java');
  const javac = findTool('javac');
  if (!java || !javac)
    return { skipped: 'java/javac not found (set JAVA_HOME or put them on PATH)' };
  const missing = JARS.filter((jar) => !existsSync(join(JAR_DIR, jar)));
  if (missing.length > 0) {
    return {
      skipped: `missing ${missing.join(', ')} in ${JAR_DIR} (Debian: apt-get install libcurator-recipes-java libzookeeper-java libslf4j-java)`,
    };
  }
  const classpath = JARS.map((jar) => join(JAR_DIR, jar));
  const sources = readdirSync(JAVA_SOURCES)
    .filter((name) => name.endsWith('.java'))
    .sort()
    .map((name) => join(JAVA_SOURCES, name));
  const hash = createHash('sha256');
  for (const file of sources) hash.update(file).update(readFileSync(file));
  const out = join(tmpdir(), `zkts-bench-java-${hash.digest('hex').slice(0, 16)}`);
  if (!existsSync(join(out, 'ZkBench.class'))) {
    mkdirSync(out, { recursive: true });
    try {
      await exec(javac, [
        '-proc:none',
        '-implicit:none',
        '-Xlint:all,-path',
        '-d',
        out,
        '-cp',
        classpath.join(':'),
        ...sources,
      ]);
    } catch (err) {
      return { skipped: `javac failed: ${(err as Error).message}` };
    }
  }
  const version = (await exec(java, ['-version']).catch((err: Error) => err.message))
    .split('\n')[0]!
    .trim();
  const fullClasspath = [out, ...classpath].join(':');
  return {
    version,
    run: (scenario, args, timing) => runJava(java, fullClasspath, scenario, args, timing),
  };
}

async function runJava(
  java: string,
  classpath: string,
  scenario: string,
  args: Record<string, string | number>,
  timing: Timing,
): Promise<JavaResult> {
  const all = {
    ...args,
    warmupMs: timing.warmupMs,
    durationMs: timing.durationMs,
    rounds: timing.rounds,
  };
  const argv = [
    ...CLIENT_JVM_FLAGS,
    '-cp',
    classpath,
    'ZkBench',
    scenario,
    ...Object.entries(all).map(([k, v]) => `${k}=${v}`),
  ];
  // Generous: JVM start, sessions, the run itself, and closing up to 64 Curator clients.
  const timeoutMs = timing.warmupMs + timing.rounds * timing.durationMs + 60_000;
  const stdout = await exec(java, argv, timeoutMs);
  const line = stdout.trim().split('\n').pop() ?? '';
  const parsed = JSON.parse(line, (_key, value) => (value === null ? Number.NaN : value)) as {
    rounds: RoundResult[];
    total: number;
    errors: number;
    firstError?: string;
  };
  if (parsed.errors > 0) {
    throw new Error(
      `Java ${scenario}: ${parsed.errors} failed operation(s), first: ${parsed.firstError}`,
    );
  }
  return { rounds: parsed.rounds, total: parsed.total };
}

const liveChildren = new Set<ChildProcess>();

/** Kills every Java process this module started that is still running (on interruption). */
export function killJavaChildren(): void {
  for (const child of liveChildren) child.kill('SIGKILL');
  liveChildren.clear();
}

/** Runs a program to completion; rejects with its stderr tail on failure or timeout. */
function exec(file: string, args: string[], timeoutMs = 120_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    liveChildren.add(child);
    child.once('exit', () => liveChildren.delete(child));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // `java -version` writes to stderr.
      if (code === 0) resolve(stdout || stderr);
      else {
        const tail = stderr.trim().split('\n').slice(-8).join('\n');
        reject(new Error(`${file} exited with ${signal ?? `code ${code}`}: ${tail}`));
      }
    });
  });
}

function findTool(name: string): string | undefined {
  const javaHome = process.env.JAVA_HOME;
  const candidates = [
    ...(javaHome ? [join(javaHome, 'bin', name)] : []),
    ...(process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, name)),
  ];
  return candidates.find((path) => {
    try {
      return statSync(path).isFile();
    } catch {
      return false;
    }
  });
}
