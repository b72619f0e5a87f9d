// Curator lock peers: checks that Curator and a JDK are installed, compiles java/LockPeer.java
// once (cached by content hash), and starts peers in JVMs.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LockPeer } from './peer.js';

const SOURCE = fileURLToPath(new URL('./java/LockPeer.java', import.meta.url));
/** What every Java peer shares (the line protocols, connecting), compiled beside each. */
const SUPPORT = fileURLToPath(new URL('./java/PeerSupport.java', import.meta.url));
const JAVA_DIR = '/usr/share/java';

/** Jars on the peer's class path, and the Debian package that provides each. */
const JARS = [
  { jar: 'curator-recipes.jar', pkg: 'libcurator-recipes-java' },
  { jar: 'curator-framework.jar', pkg: 'libcurator-framework-java' },
  { jar: 'curator-client.jar', pkg: 'libcurator-client-java' },
  { jar: 'zookeeper.jar', pkg: 'libzookeeper-java (or zookeeper)' },
  { jar: 'guava.jar', pkg: 'libguava-java' },
  { jar: 'slf4j-api.jar', pkg: 'libslf4j-java' },
  { jar: 'slf4j-nop.jar', pkg: 'libslf4j-java' },
] as const;

/** Curator's lock recipes, as the peer uses them. */
export type CuratorRecipe =
  | 'mutex'
  | 'revocable'
  | 'read'
  | 'write'
  | `semaphore:${number}`
  | `latch:${string}`
  | `selector:${string}`;

let compiled: string | undefined;

/**
 * What is missing for the Curator peers (the jars, a JDK), as a sentence naming the packages, or
 * undefined when nothing is. `npm test` asks this before it starts (test/tiers/prerequisites.ts).
 */
export function curatorMissing(): string | undefined {
  const missing = JARS.filter(({ jar }) => !existsSync(join(JAVA_DIR, jar)));
  if (missing.length > 0) {
    return (
      `Curator interop tests need ${missing.map(({ jar }) => join(JAVA_DIR, jar)).join(', ')}: ` +
      `install the Debian package(s) ${[...new Set(missing.map(({ pkg }) => pkg))].join(', ')} ` +
      '(.ci/run installs libcurator-recipes-java, which brings the others)'
    );
  }
  for (const tool of ['java', 'javac']) {
    try {
      execFileSync(tool, ['-version'], { stdio: 'ignore' });
    } catch {
      return `Curator interop tests need '${tool}' (a JDK, 17 or later) on PATH: install openjdk-17-jdk-headless`;
    }
  }
  return undefined;
}

/**
 * The directory holding the compiled LockPeer classes. Throws, naming what is missing, when
 * Curator or a JDK is not installed: CI installs them, so a missing one is a failure, not a skip.
 */
export function curatorPeerClasses(): string {
  if (compiled !== undefined) return compiled;
  const missing = curatorMissing();
  if (missing !== undefined) throw new Error(missing);
  // The jars take part in the key: a Curator upgrade recompiles against the new one.
  const jars = JARS.map(({ jar }) => {
    const stat = statSync(join(JAVA_DIR, jar));
    return `${jar}:${stat.size}:${stat.mtimeMs}\n`;
  }).join('');
  const dir = compileJava(SOURCE, 'LockPeer', 'lockpeer', jars);
  compiled = dir;
  return dir;
}

/**
 * Compiles one Java peer (`source`, whose main class is `className`, with java/PeerSupport.java)
 * against the Curator jars into a directory of its own under the system temp dir, named by a hash
 * of the sources and `key`: compiled once, reused by later runs. Compiled next to it and renamed into place, so concurrent
 * runs never see half a directory. `jars` are put on the class path before Curator's. Returns
 * the directory.
 */
export function compileJava(
  source: string,
  className: string,
  prefix: string,
  key = '',
  jars: readonly string[] = [],
): string {
  const hash = createHash('sha256').update(readFileSync(source)).update(readFileSync(SUPPORT));
  const dir = join(tmpdir(), `zkts-${prefix}-${hash.update(key).digest('hex').slice(0, 16)}`);
  if (existsSync(join(dir, `${className}.class`))) return dir;
  const staging = mkdtempSync(`${dir}-staging-`);
  try {
    const javac = ['-nowarn', '-d', staging, '-cp', classPath(...jars), source, SUPPORT];
    execFileSync('javac', javac, { stdio: ['ignore', 'pipe', 'pipe'] });
    renameSync(staging, dir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(join(dir, `${className}.class`))) {
      const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? String(error);
      throw new Error(`javac failed on ${source}:\n${stderr}`);
    }
  }
  return dir;
}

const peers = new Map<string, string>();

/**
 * The directory holding `className`.class, compiled from java/`className`.java against Curator,
 * LockPeer's classes and `jars` (compiled once per process, and once per content hash on disk).
 * Fails, naming the package, when Curator or a JDK is missing.
 */
export function peerClasses(className: string, jars: readonly string[] = []): string {
  let dir = peers.get(className);
  if (dir === undefined) {
    const source = fileURLToPath(new URL(`./java/${className}.java`, import.meta.url));
    dir = compileJava(source, className, className.toLowerCase(), curatorPeerClasses(), jars);
    peers.set(className, dir);
  }
  return dir;
}

/** The Curator jars (and `extra` first) as a Java class path. */
export function classPath(...extra: string[]): string {
  return [...extra, ...JARS.map(({ jar }) => join(JAVA_DIR, jar))].join(':');
}

/**
 * The arguments of `java` running `mainClass` from `classes` (and `jars` after Curator's) with
 * `args`: short-lived, small JVMs on a 2-core machine, that start fast and stay small.
 */
export function javaArgs(
  classes: readonly string[],
  mainClass: string,
  ...args: string[]
): string[] {
  const flags = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-Xss512k', '-Xmx64m'];
  return [...flags, '-cp', classPath(...classes), mainClass, ...args];
}

/** Starts a Curator contender on `path` (connected when this resolves). */
export function startCuratorPeer(
  connectString: string,
  path: string,
  recipe: CuratorRecipe,
): Promise<LockPeer> {
  const args = javaArgs([curatorPeerClasses()], 'LockPeer', connectString, path, recipe);
  return LockPeer.start({ name: `curator ${recipe}`, command: 'java', args });
}
