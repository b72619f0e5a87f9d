// Curator's counter and barrier recipes in a JVM (java/RecipePeer.java, compiled once per content
// hash next to LockPeer), one command per process.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { SharedCount } from '../../src/recipes/index.js';
import { sharedServer } from '../harness/index.js';
import { javaArgs, peerClasses } from './curator.js';
import { PYTHON, pythonArgs } from './kazoo.js';

/**
 * Increments `count` by compare-and-set `rounds` times, retrying each lost round a millisecond
 * later, while `peer` (already started) does the same on its side.
 */
export async function incrementBeside(
  peer: CuratorRecipeRun,
  count: SharedCount,
  rounds: number,
): Promise<void> {
  peer.go();
  for (let done = 0; done < rounds; ) {
    const { count: value, version } = count.versioned;
    if (await count.trySet(value + 1, version)) done++;
    else await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** Lets the peer `starting` go once it has connected; resolves with its first `prefix` line. */
export async function goAndRead(starting: Promise<CuratorRecipeRun>, prefix: string) {
  const run = await starting;
  run.go();
  return run.line(prefix);
}

/** A Curator process running one recipe command; `go()` starts it, `lines` collects its output. */
export interface CuratorRecipeRun {
  /** Starts the command (the process is connected once `start` resolved). */
  go(): void;
  /** Resolves with the next output line that starts with `prefix` (rejects after `ms`). */
  line(prefix: string, ms?: number): Promise<string>;
  /** Kills the process if it still runs. */
  kill(): void;
}

const running = new Set<ChildProcess>();

/** Kills every peer still running (call in afterEach). */
export function killRecipePeers(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

/** Starts `java RecipePeer <shared server> <command> <path> [args]`; resolves once connected. */
export function startCuratorRecipe(command: string, path: string, ...args: string[]) {
  return startJavaCommand('RecipePeer', command, path, args);
}

/** Starts the one-command Java peer `className` (`<shared server> <command> <path> [args]`). */
export function startJavaCommand(
  className: string,
  command: string,
  path: string,
  args: readonly string[],
): Promise<CuratorRecipeRun> {
  const connect = sharedServer().connectString;
  const java = javaArgs([peerClasses(className)], className, connect, command, path, ...args);
  return startRecipeProcess(`curator ${command}`, 'java', java);
}

/** Starts the one-command Python peer `script` (`<shared server> <command> <path> [args]`). */
export function startPythonCommand(
  script: string,
  command: string,
  path: string,
  args: readonly string[],
): Promise<CuratorRecipeRun> {
  const python = pythonArgs(script, sharedServer().connectString, command, path, ...args);
  return startRecipeProcess(`kazoo ${command}`, PYTHON, python);
}

/**
 * Starts a recipe peer speaking the line protocol of RecipePeer (`ready` once connected, `go` on
 * stdin runs the command, `error <message>` on failure) and waits for it to connect.
 */
export async function startRecipeProcess(
  label: string,
  executable: string,
  args: string[],
): Promise<CuratorRecipeRun> {
  const child = spawn(executable, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  running.add(child);
  child.on('exit', () => running.delete(child));
  const seen: string[] = [];
  const waiters: Array<() => void> = [];
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  createInterface({ input: child.stdout! }).on('line', (text) => {
    seen.push(text);
    for (const wake of waiters.splice(0)) wake();
  });
  child.on('exit', () => {
    for (const wake of waiters.splice(0)) wake();
  });
  const line = (prefix: string, ms = 60_000) =>
    new Promise<string>((resolve, reject) => {
      const deadline = Date.now() + ms;
      let settled = false;
      const check = () => {
        if (settled) return;
        const error = seen.find((text) => text.startsWith('error '));
        settled = true;
        if (error) return reject(new Error(`${label}: ${error} ${stderr}`));
        const index = seen.findIndex((text) => text.startsWith(prefix));
        if (index >= 0) return resolve(seen.splice(index, 1)[0]!);
        if (child.exitCode !== null || Date.now() > deadline) {
          // Exited or out of time: nothing more will come.
          return reject(new Error(`${label}: no "${prefix}" line (${seen.join(' | ')}) ${stderr}`));
        }
        settled = false;
        waiters.push(check);
        setTimeout(
          () => {
            const at = waiters.indexOf(check);
            if (at >= 0) waiters.splice(at, 1);
            check();
          },
          Math.max(0, Math.min(500, deadline - Date.now())),
        );
      };
      check();
    });
  await line('ready');
  return {
    go: () => child.stdin?.write('go\n'),
    line,
    kill: () => child.kill('SIGKILL'),
  };
}
