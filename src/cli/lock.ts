// `zkts lock`: run a command while holding a ZooKeeper lock, like flock(1) for a cluster.
import type { Client } from '../index.js';
import {
  ExclusiveLock,
  type Lease,
  type Lock,
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
import { type CaughtSignals, catchSignals, settleWithin, waitPatiently } from './waiting.js';

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
  /**
   * Who holds it (default `HOST:PID`), stored as the lock node's data where the kind has room for
   * it (not `exclusive`, whose data is its ownership token), for `zkts locks` to show.
   */
  id: string;
  /** Told the lease once it is held, before the command starts (`--json` prints it). */
  onHeld?: (lease: Lease) => void;
}

function makeLock(client: Client, run: LockedRun): Lock {
  const { path, kind, lossPolicy } = run;
  // UTF-8 text: Curator ignores a lock node's data (its own default is the host's address) and
  // kazoo reads it as its text identifier, so both layouts' readers take it as it is.
  const data = run.id;
  switch (kind.type) {
    case 'mutex':
      return new Mutex(client, path, { lossPolicy, data });
    case 'read':
      return new ReadWriteLock(client, path, { lossPolicy, data }).read;
    case 'write':
      return new ReadWriteLock(client, path, { lossPolicy, data }).write;
    case 'exclusive':
      return new ExclusiveLock(client, path, { lossPolicy });
    case 'semaphore':
      return new Semaphore(client, path, { maxLeases: kind.leases, lossPolicy, data });
  }
}

/**
 * Takes the lock of `run` (SIGINT, SIGTERM and SIGHUP end the wait: their status), hands the lease
 * to `use`, and releases it however `use` ends. Resolves `use`'s exit status.
 */
export async function withLease(
  client: Client,
  run: LockedRun,
  use: (lease: Lease, signals: CaughtSignals) => Promise<number>,
): Promise<number> {
  const lock = makeLock(client, run);
  const signals = catchSignals();
  try {
    const lease = await acquire(lock, run, signals.waiting);
    if (lease === undefined) return signalStatus(signals.waiting.reason as Forwarded);
    try {
      return await use(lease, signals);
    } finally {
      // Never wait long: the session's end removes the node anyway, and a lost lease's node is
      // gone or unreachable.
      await settleWithin(lease.release(), lease.signal.aborted ? 1_000 : 5_000);
    }
  } finally {
    signals.dispose();
  }
}

/** Resolves the exit status: the command's, or one of the lock statuses (see ExitCode). */
export function runLocked(client: Client, run: LockedRun): Promise<number> {
  return withLease(client, run, (lease, signals) => {
    // A signal between the grant and the start of the command: do not start it.
    if (signals.waiting.aborted) {
      return Promise.resolve(signalStatus(signals.waiting.reason as Forwarded));
    }
    run.onHeld?.(lease);
    return superviseCommand(lease, run, LOCK_ROLE, signals.forwardTo);
  });
}

/** Why `--no-wait` found no lease free, in the kind's words. */
function heldWords({ path, kind }: LockedRun): string {
  if (kind.type === 'semaphore')
    return `all ${kind.leases} leases of the semaphore ${path} are taken (or another process is taking one)`;
  if (kind.type === 'read') return `the lock ${path} is held or awaited by a writer`;
  return `the lock ${path} is held by another process`;
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
      throw new CliError('LOCKED', `${heldWords(run)} (--no-wait)`, ExitCode.LOCK_TIMEOUT);
    }
    return lease;
  }
  return waitPatiently(
    () => lock.acquire({ timeout: run.timeout, signal: interrupted }),
    {
      activity: `waiting for the lock ${run.path}`,
      timedOut: (ms) => `timed out after ${ms} ms waiting for the lock ${run.path}`,
    },
    (text) => run.note(text),
    interrupted,
  );
}
