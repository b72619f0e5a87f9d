// Runs the locked command: spawns it, forwards signals, stops it when the lease is lost.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { constants } from 'node:os';
import type { Lease } from '../locks/index.js';
import { CliError, describeError, ExitCode } from './errors.js';
import { runningTarget } from './process-group.js';
import { startWatchdog } from './watchdog.js';

export type Forwarded = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

/** Whose lease is supervised: names the zkts command in messages, and what a loss is called. */
export interface Role {
  /** The zkts command (`lock`, `elect`): the label of its messages, as for its other errors. */
  readonly command: string;
  /** What a loss without a reason of its own is reported as. */
  readonly lost: string;
  /** What zkts keeps while the command's leftovers run ("the lock", "leadership"). */
  readonly held: string;
}

/** `zkts lock`'s role. */
export const LOCK_ROLE: Role = { command: 'lock', lost: 'the lock was lost', held: 'the lock' };
/** `zkts elect`'s role: a term of leadership, not a lock. */
export const ELECT_ROLE: Role = {
  command: 'elect',
  lost: 'leadership was lost',
  held: 'leadership',
};

/**
 * What happens to processes the command left in its process group when it exits while the lease
 * holds: `wait` keeps the lease until the group is empty (flock(1)'s rule: its lock lives as long
 * as any process holding its descriptor), `stop` ends them (SIGTERM, SIGKILL after the grace).
 */
export type Leftovers = 'wait' | 'stop';

export interface Supervision {
  command: readonly string[];
  /** After SIGTERM on a lost lease, SIGKILL after this many ms. */
  grace: number;
  /** What the command leaves running in its group (default `wait`). */
  leftovers?: Leftovers;
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

/** Whether anything still runs in the process group `pgid` (zombies do not count). */
function groupRunning(pgid: number): boolean {
  return runningTarget(-pgid, fs);
}

/**
 * Runs the command while `lease` (a lock lease, or a term of leadership: see `role`) holds:
 * forwards signals (through `setForward`), stops the command when the lease is lost, and resolves
 * its exit status (75 when the lease was lost). Without a terminal the command has a process group
 * of its own, and the lease is kept after the command exits for as long as anything it left in
 * that group runs (`run.leftovers`: `wait`, the default), or those are stopped first (`stop`).
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
  const watchdog = startWatchdog(run.grace, group, (text) => run.note(text));
  const child = spawn(file, args, {
    stdio: 'inherit',
    detached: group,
    env: {
      ...process.env,
      ZKTS_LOCK_PATH: lease.path,
      ZKTS_FENCING_TOKEN: String(lease.fencingToken),
      // How the watchdog finds the command if zkts dies before telling it the pid (watchdog.ts).
      ZKTS_RUN_ID: watchdog.runId,
    },
  });
  const pid = child.pid;
  if (pid !== undefined) watchdog.watch(pid);
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
  /** The command runs, or (in its own group) something it started still does. */
  const running = () => !exited || (group && pid !== undefined && groupRunning(pid));
  setForward((signal) => {
    if (running()) signalCommand(pid, group, signal);
  });
  let lost: CliError | undefined;
  let killAt: number | undefined;
  let killTimer: NodeJS.Timeout | undefined;
  let killed = false;
  const kill = () => {
    if (killed) return;
    killed = true;
    const what = exited ? 'what the command left in its process group' : 'the command';
    run.note(`${what} did not stop within ${run.grace} ms: sending SIGKILL`);
    signalCommand(pid, group, 'SIGKILL');
  };
  /** SIGTERM now, SIGKILL after the grace; the watchdog is told the same deadline. */
  const stop = () => {
    if (killAt !== undefined) return;
    killAt = Date.now() + run.grace;
    // The watchdog hears the deadline before the command hears SIGTERM: were zkts killed between
    // the two, the watchdog would send a second SIGTERM and start a grace of its own.
    watchdog.stopBy(killAt);
    signalCommand(pid, group, 'SIGTERM');
    killTimer = setTimeout(() => {
      if (running()) kill();
    }, run.grace);
  };
  const onLost = () => {
    if (!running()) return;
    lost = lostError(
      lease.signal.reason,
      role.lost,
      `stopping the command (SIGTERM, then SIGKILL after ${run.grace} ms)`,
    );
    run.note(describeError(lost, role.command));
    stop();
  };
  lease.signal.addEventListener('abort', onLost, { once: true });
  let ending: Ending;
  try {
    ending = await ended;
    if (group && pid !== undefined && !('error' in ending) && groupRunning(pid)) {
      if (killAt === undefined && run.leftovers === 'stop') {
        run.note(
          `the command exited; stopping what it left in its process group (SIGTERM, then SIGKILL after ${run.grace} ms)`,
        );
        stop();
      } else if (killAt === undefined) {
        run.note(
          `the command exited; keeping ${role.held} until what it left in its process group ends (--leftovers stop ends it instead)`,
        );
      }
      // Until the group is empty: a loss or a forwarded signal may end it meanwhile.
      while (groupRunning(pid)) {
        if (killAt !== undefined && Date.now() >= killAt) {
          kill();
          // SIGKILL cannot be ignored; a process stuck in the kernel may still take a moment.
          if (Date.now() >= killAt + 2_000) break;
        }
        await sleep(50);
      }
    }
  } finally {
    lease.signal.removeEventListener('abort', onLost);
    clearTimeout(killTimer);
    watchdog.release();
  }
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
