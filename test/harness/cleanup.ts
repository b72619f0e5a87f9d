import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Everything the harness leaves behind lives under one temp directory per process, and every JVM it
 * starts is tracked here, so that exit, SIGINT and SIGTERM can kill the JVMs and remove the files.
 * `ZKTS_HARNESS_TMP` (set by the vitest global setup) nests the workers' directories under the run's
 * directory, so the global teardown can sweep JVMs orphaned by a worker that died hard.
 */
export const HARNESS_TMP_ENV = 'ZKTS_HARNESS_TMP';

const liveChildren = new Set<ChildProcess>();
const extraDirs = new Set<string>();
let processRoot: string | undefined;
let hooksInstalled = false;

/** This process's harness directory (created on first use, removed at exit). */
export function harnessRoot(): string {
  if (processRoot === undefined) {
    const parent = process.env[HARNESS_TMP_ENV];
    const base = parent && existsSync(parent) ? parent : tmpdir();
    processRoot = mkdtempSync(join(base, `zkts-harness-${process.pid}-`));
    installExitHooks();
  }
  return processRoot;
}

/** A fresh directory under the harness root. */
export function freshDir(name: string): string {
  const dir = mkdtempSync(join(harnessRoot(), `${name}-`));
  mkdirSync(dir, { recursive: true });
  return dir;
}

export function trackChild(child: ChildProcess): void {
  liveChildren.add(child);
  installExitHooks();
  child.once('exit', () => liveChildren.delete(child));
}

/** Synchronous on purpose: it also runs inside the 'exit' event, where nothing async completes. */
export function killAllChildren(): void {
  for (const child of liveChildren) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  liveChildren.clear();
}

/**
 * At exit (or interruption) of this process: kills JVMs configured under `dir` (left by workers that
 * died hard) and removes `dir`.
 */
export function removeOnExit(dir: string): void {
  extraDirs.add(dir);
  installExitHooks();
}

function removeDirs(): void {
  if (processRoot !== undefined) rmSync(processRoot, { recursive: true, force: true });
  processRoot = undefined;
  for (const dir of extraDirs) {
    killOrphans(dir);
    rmSync(dir, { recursive: true, force: true });
  }
  extraDirs.clear();
}

function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.once('exit', () => {
    killAllChildren();
    removeDirs();
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    const onSignal = (): void => {
      killAllChildren();
      removeDirs();
      // Only re-raise when nobody else listens: then the default action (terminate) must still
      // happen. Otherwise the other listener (e.g. vitest) decides, and 'exit' runs us again.
      process.removeListener(signal, onSignal);
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

/**
 * SIGKILLs every ZooKeeper JVM whose command line mentions `root` (their configs live under it).
 * Linux only (reads /proc); elsewhere it does nothing. Returns the PIDs it killed.
 */
export function killOrphans(root: string): number[] {
  if (!existsSync('/proc')) return [];
  const killed: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (cmdline.includes('QuorumPeerMain') && cmdline.includes(root)) {
      try {
        process.kill(Number(entry), 'SIGKILL');
        killed.push(Number(entry));
      } catch {
        // exited meanwhile
      }
    }
  }
  return killed;
}
