// Curator's PromotedToLock for DistributedAtomicLong: a change whose optimistic rounds all lost
// takes a mutex (Curator's InterProcessMutex layout) and runs its rounds again under it.
// The lock recipes are used as any user uses them: through their entry point.
import type { RecipeClient } from '../client/recipe-client.js';
import { type Lease, LockTimeoutError, Mutex } from '../locks/index.js';
import { makeError } from '../protocol/errors.js';
import type { AtomicResult } from './atomic-long.js';
import { checkPolicy, type RetryPolicy } from './retry.js';
import { checkTimeout } from './wait.js';

/**
 * Curator's `PromotedToLock`: a change whose optimistic rounds all lost takes a mutex and tries
 * again under it. Every write under the lock is still a compare-and-set, so writers that do not
 * take the lock stay safe; the lock only stops the promoted writers from beating each other.
 */
export interface PromotedToLock {
  /**
   * The lock's path: a Curator `InterProcessMutex` layout (`_c_<uuid>-lock-<seq>` children), so
   * Curator's `DistributedAtomicLong` promoted to the same path queues with us. Not the value's
   * own path.
   */
  path: string;
  /**
   * The longest wait for the lock, ms. When it runs out the change resolves `succeeded: false`
   * with nothing changed. Default: no limit (as Curator), bounded only by the retry's `signal`.
   */
  timeout?: number;
  /**
   * The rounds under the lock and the pauses between them. Default: one round (Curator's
   * default, `RetryNTimes(0, 0)`). Its `signal` also bounds the lock wait and the rounds.
   */
  retry?: Omit<RetryPolicy, 'retryOn'>;
}

/** The value read and the version to compare against (-1: the node does not exist). */
export interface Snapshot {
  value: bigint;
  version: number;
}

/** One phase of a change, as it goes: the rounds run and the last value read. */
export interface Progress {
  tries: number;
  last: Snapshot;
}

export type Outcome = Omit<AtomicResult, 'stats'>;

export const unchanged = (last: Snapshot): Outcome => ({
  succeeded: false,
  preValue: last.value,
  postValue: last.value,
});

/** The mutex of a promoted counter and how to use it. */
export interface Promotion {
  mutex: Mutex;
  timeout: number | undefined;
  /** The rounds under the lock. */
  policy: RetryPolicy;
  /** The counter's own policy: lost connections within a round are retried per it. */
  reads: RetryPolicy;
}

/**
 * Takes the lock, runs the promoted rounds under it (`run`, given the rounds' policy, the
 * reads' policy, both bounded by the lease, and the lease's signal), and releases the lock
 * whatever happened. The lock not obtained within the timeout, or lost before a write went out:
 * nothing changed.
 */
export async function promoteThroughLock(
  { mutex, timeout, policy, reads }: Promotion,
  callerSignal: AbortSignal | undefined,
  progress: Progress,
  run: (rounds: RetryPolicy, reads: RetryPolicy, held: AbortSignal) => Promise<Outcome>,
): Promise<Outcome> {
  const signal = anySignal(callerSignal, policy.signal);
  let lease: Lease;
  try {
    lease = await mutex.acquire({ timeout, signal });
  } catch (error) {
    if (error instanceof LockTimeoutError) return unchanged(progress.last);
    throw error;
  }
  const held = lease.signal;
  let outcome: Outcome;
  try {
    const bounded = anySignal(signal, held);
    outcome = await run({ ...policy, signal: bounded }, { ...reads, signal: bounded }, held);
  } catch (error) {
    // A read or a pause cut short because the lock was lost: no write of this phase is
    // unaccounted for. Anything else (a write's lost reply, the caller's abort) is the
    // change's own error.
    const lost = held.aborted && error === held.reason;
    await lease.release().catch(() => undefined);
    if (lost) return unchanged(progress.last);
    throw error;
  }
  try {
    await lease.release();
  } catch (error) {
    // A value already changed is reported as changed: an error would invite a second change.
    if (!outcome.succeeded) throw error;
  }
  return outcome;
}

/** Checks the promotion's options and makes its mutex. */
export function promotionOf(
  client: RecipeClient,
  path: string,
  options: PromotedToLock,
  reads: RetryPolicy,
): Promotion {
  if (typeof options !== 'object' || options === null) {
    throw makeError('BADARGUMENTS', 'promotedToLock must be an object', { path });
  }
  const { path: lockPath, timeout, retry: policy } = options;
  if (lockPath === path) {
    throw makeError('BADARGUMENTS', "the lock's path must not be the value's own node", { path });
  }
  checkTimeout(timeout, path);
  // A client typed as a RecipeClient only through a cast: refused now, not at the first promotion.
  const given = client as Partial<RecipeClient>;
  if (typeof given.exists !== 'function' || typeof given.on !== 'function') {
    throw makeError(
      'BADARGUMENTS',
      'promotedToLock needs a client the lock can use (exists, on, sync...)',
      { path },
    );
  }
  // Curator's default for the rounds under the lock: RetryNTimes(0, 0), one round.
  const promoted: RetryPolicy = { maxAttempts: 1, baseDelay: 10, maxDelay: 1_000, ...policy };
  checkPolicy(promoted);
  const mutex = new Mutex(client, lockPath);
  return { mutex, timeout, policy: promoted, reads };
}

/** One signal for several (undefined when none is given). */
function anySignal(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const given = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  if (given.length <= 1) return given[0];
  return AbortSignal.any(given);
}
