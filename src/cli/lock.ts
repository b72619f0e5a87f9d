// `zkts lock`: run a command while holding a ZooKeeper lock, like flock(1) for a cluster.
import type { Client } from '../index.js';
import {
  ExclusiveLock,
  type Lease,
  type Lock,
  LockTimeoutError,
  type LossPolicy,
  Mutex,
  ReadWriteLock,
  Semaphore,
} from '../locks/index.js';
import { CliError, ExitCode, UsageError } from './errors.js';
import {
  type Forwarded,
  LOCK_ROLE,
  type Supervision,
  signalStatus,
  superviseCommand,
} from './supervise.js';

export type LockKind =
  | { type: 'mutex' | 'read' | 'write' | 'exclusive' }
  | { type: 'semaphore'; leases: number };

export function parseLockKind(text: string): LockKind {
  if (text === 'mutex' || text === 'read' || text === 'write' || text === 'exclusive') {
    return { type: text };
  }
  const semaphore = /^semaphore:(\d+)$/.exec(text);
  if (semaphore && Number(semaphore[1]) >= 1) {
    return { type: 'semaphore', leases: Number(semaphore[1]) };
  }
  throw new UsageError(
    `--kind must be mutex, read, write, exclusive or semaphore:N, got "${text}"`,
  );
}

export interface LockedRun extends Supervision {
  path: string;
  kind: LockKind;
  /** Give up waiting after this many ms (undefined: wait forever). */
  timeout: number | undefined;
  /** Do not wait at all (flock -n). */
  noWait: boolean;
  lossPolicy: LossPolicy;
}

const FORWARDED: readonly Forwarded[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function makeLock(client: Client, path: string, kind: LockKind, lossPolicy: LossPolicy): Lock {
  switch (kind.type) {
    case 'mutex':
      return new Mutex(client, path, { lossPolicy });
    case 'read':
      return new ReadWriteLock(client, path, { lossPolicy }).read;
    case 'write':
      return new ReadWriteLock(client, path, { lossPolicy }).write;
    case 'exclusive':
      return new ExclusiveLock(client, path, { lossPolicy });
    case 'semaphore':
      return new Semaphore(client, path, kind.leases, { lossPolicy });
  }
}

/** Resolves the exit status: the command's, or one of the lock statuses (see ExitCode). */
export async function runLocked(client: Client, run: LockedRun): Promise<number> {
  const lock = makeLock(client, run.path, run.kind, run.lossPolicy);
  const waiting = new AbortController();
  let forward: ((signal: Forwarded) => void) | undefined;
  const onSignal = (signal: Forwarded) => {
    if (forward) forward(signal);
    else waiting.abort(signal);
  };
  const listeners = FORWARDED.map((signal) => [signal, () => onSignal(signal)] as const);
  for (const [signal, listener] of listeners) process.on(signal, listener);
  try {
    const lease = await acquire(lock, run, waiting.signal);
    if (lease === undefined) return signalStatus(waiting.signal.reason as Forwarded);
    try {
      // A signal between the grant and the start of the command: do not start it.
      if (waiting.signal.aborted) return signalStatus(waiting.signal.reason as Forwarded);
      return await superviseCommand(lease, run, LOCK_ROLE, (f) => {
        forward = f;
      });
    } finally {
      // A lost lease's node is gone or unreachable: do not make the user wait for it.
      await releaseWithin(lease, lease.signal.aborted ? 1_000 : 5_000);
    }
  } finally {
    for (const [signal, listener] of listeners) process.off(signal, listener);
  }
}

/** The lease, or undefined when a signal interrupted the wait. */
async function acquire(
  lock: Lock,
  run: LockedRun,
  interrupted: AbortSignal,
): Promise<Lease | undefined> {
  if (run.noWait) {
    const lease = await lock.tryAcquire();
    if (lease === null) {
      throw new CliError(
        'LOCKED',
        `the lock ${run.path} is held by another process (--no-wait)`,
        ExitCode.LOCK_TIMEOUT,
      );
    }
    return lease;
  }
  // A person at a terminal should know why nothing happens.
  const patience = setTimeout(() => {
    if (process.stderr.isTTY) run.note(`waiting for the lock ${run.path}...`);
  }, 1_000);
  try {
    return await lock.acquire({ timeout: run.timeout, signal: interrupted });
  } catch (error) {
    if (error instanceof LockTimeoutError) {
      throw new CliError(
        'OPERATIONTIMEOUT',
        `timed out after ${error.timeout} ms waiting for the lock ${run.path}`,
        ExitCode.LOCK_TIMEOUT,
      );
    }
    if (interrupted.aborted) {
      run.note(
        `interrupted (${String(interrupted.reason)}) while waiting for the lock ${run.path}`,
      );
      return undefined;
    }
    throw error;
  } finally {
    clearTimeout(patience);
  }
}

/** Releases the lock, but never waits longer than `ms` (the session's end removes it anyway). */
async function releaseWithin(lease: Lease, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    lease.release().catch(() => {}),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}
