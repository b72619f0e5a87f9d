// Runs the locked command: spawns it, forwards signals, stops it when the lease is lost.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { Lease } from '../locks/index.js';
import { CliError, describeError, ExitCode } from './errors.js';
import { startWatchdog } from './watchdog.js';

export type Forwarded = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

/** Whose lease is supervised: names the zkts command in messages, and what a loss is called. */
export interface Role {
  /** The zkts command (`lock`, `elect`): the label of its messages, as for its other errors. */
  readonly command: string;
  /** What a loss without a reason of its own is reported as. */
  readonly lost: string;
}

/** `zkts lock`'s role. */
export const LOCK_ROLE: Role = { command: 'lock', lost: 'the lock was lost' };
/** `zkts elect`'s role: a term of leadership, not a lock. */
export const ELECT_ROLE: Role = { command: 'elect', lost: 'leadership was lost' };

export interface Supervision {
  command: readonly string[];
  /** After SIGTERM on a lost lease, SIGKILL after this many ms. */
  grace: number;
  /** Diagnostics for people (stderr). */
  note(text: string): void;
}

/** Status of a process killed by `signal`, as shells report it. */
export function signalStatus(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 0);
}

type Ending = { code: number | null; signal: NodeJS.Signals | null } | { error: Error };

/**
 * Without a terminal (cron, CI, systemd) the command gets a process group of its own and signals
 * go to the whole group, so a script's children stop with it. On a terminal it stays in the
 * foreground group, where it can read the terminal; signals then go to the command alone.
 */
function ownGroup(): boolean {
  return process.stdin.isTTY !== true;
}

function signalCommand(pid: number | undefined, group: boolean, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(group ? -pid : pid, signal);
  } catch {
    // Already gone.
  }
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs the command while `lease` (a lock lease, or a term of leadership: see `role`) holds:
 * forwards signals (through `setForward`), stops the command when the lease is lost, and resolves
 * its exit status (75 when the lease was lost).
 */
export async function superviseCommand(
  lease: Pick<Lease, 'path' | 'fencingToken' | 'signal'>,
  run: Supervision,
  role: Role,
  setForward: (forward: (signal: Forwarded) => void) => void,
): Promise<number> {
  if (lease.signal.aborted) {
    throw lostError(lease.signal.reason, role.lost, 'before the command started');
  }
  const [file, ...args] = run.command as [string, ...string[]];
  const group = ownGroup();
  // If zkts itself dies, the watchdog stops the command (see watchdog.ts).
  const watchdog = startWatchdog(run.grace, (text) => run.note(text));
  const child = spawn(file, args, {
    stdio: 'inherit',
    detached: group,
    env: {
      ...process.env,
      ZKTS_LOCK_PATH: lease.path,
      ZKTS_FENCING_TOKEN: String(lease.fencingToken),
    },
  });
  if (child.pid !== undefined) watchdog.watch(child.pid, group);
  const ended = new Promise<Ending>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.on('error', (error) => {
      // Only a failed spawn ends it here; a failed kill() of a running child also lands here.
      if (child.pid === undefined) resolve({ error });
    });
  });
  let exited = false;
  void ended.then(() => {
    exited = true;
  });
  setForward((signal) => {
    if (!exited) signalCommand(child.pid, group, signal);
  });
  let lost: CliError | undefined;
  let killAt = 0;
  let killTimer: NodeJS.Timeout | undefined;
  let killed = false;
  const kill = () => {
    if (killed) return;
    killed = true;
    run.note(`the command did not stop within ${run.grace} ms: sending SIGKILL`);
    signalCommand(child.pid, group, 'SIGKILL');
  };
  const onLost = () => {
    if (exited) return;
    lost = lostError(
      lease.signal.reason,
      role.lost,
      `stopping the command (SIGTERM, then SIGKILL after ${run.grace} ms)`,
    );
    run.note(describeError(lost, role.command));
    signalCommand(child.pid, group, 'SIGTERM');
    killAt = Date.now() + run.grace;
    killTimer = setTimeout(() => {
      if (!exited) kill();
    }, run.grace);
  };
  lease.signal.addEventListener('abort', onLost, { once: true });
  let ending: Ending;
  try {
    ending = await ended;
    lease.signal.removeEventListener('abort', onLost);
    if (lost && group && child.pid !== undefined) {
      // The command is gone, but what it started may still run in its group: same grace, then KILL.
      while (groupAlive(child.pid) && Date.now() < killAt) await sleep(50);
      if (groupAlive(child.pid)) kill();
    }
  } finally {
    watchdog.release();
  }
  clearTimeout(killTimer);
  if ('error' in ending) {
    const code = (ending.error as NodeJS.ErrnoException).code;
    const notFound = code === 'ENOENT';
    throw new CliError(
      notFound ? 'NOTFOUND' : 'CANNOTEXECUTE',
      `cannot run "${file}": ${notFound ? 'command not found' : ending.error.message}`,
      notFound ? ExitCode.NOT_FOUND : ExitCode.CANNOT_EXECUTE,
    );
  }
  if (lost) return ExitCode.LOCK_LOST;
  return ending.code ?? signalStatus(ending.signal ?? 'SIGKILL');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function lostError(reason: unknown, lost: string, consequence: string): CliError {
  const code = (reason as { code?: string } | undefined)?.code ?? 'LOCKLOST';
  const message = reason instanceof Error ? reason.message : lost;
  return new CliError(code, `${message}; ${consequence}`, ExitCode.LOCK_LOST);
}
