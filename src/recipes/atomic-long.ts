// Curator's DistributedAtomicLong: a 64-bit integer in one node's data (8 bytes, big-endian, as
// Curator writes it; an empty or missing node reads as 0), changed by compare-and-set with retries.
import type { RecipeClient } from '../client/recipe-client.js';
import { stopping } from '../coordination/bound-signal.js';
import { hasCode } from '../coordination/codes.js';
import { makeError } from '../protocol/errors.js';
import type { StopSignal } from '../session/signal-waiters.js';
import {
  type Outcome,
  type Progress,
  type PromotedToLock,
  type Promotion,
  promoteThroughLock,
  promotionOf,
  type Snapshot,
  unchanged,
} from './atomic-promotion.js';
import { type Run, type RunPolicy, startRun } from './atomic-run.js';
import { checkRecipePath, createWithParents } from './paths.js';
import { backoffDelay, checkPolicy, pauseUntil, type RetryPolicy, retryUntil } from './retry.js';
import type { WaitOptions } from './wait.js';

/** How a change went (Curator's `AtomicStats`). */
export interface AtomicStats {
  /** Compare-and-set rounds before any lock (at least 1). */
  readonly optimisticTries: number;
  /** Compare-and-set rounds under the lock (0: the change was not promoted, or got no lock). */
  readonly promotedLockTries: number;
  /** Time spent in the optimistic rounds, ms. */
  readonly optimisticTimeMs: number;
  /** Time spent waiting for the lock and in the rounds under it, ms (0 when not promoted). */
  readonly promotedTimeMs: number;
}

/** The outcome of one change (Curator's `AtomicValue`). */
export interface AtomicResult {
  /** Whether the change was made. False when every compare-and-set lost to another writer. */
  readonly succeeded: boolean;
  /** The value before the change (the last value read, when it did not succeed). */
  readonly preValue: bigint;
  /** The value after the change (equal to `preValue` when it did not succeed). */
  readonly postValue: bigint;
  /** How many rounds it took, and how long (see {@link AtomicStats}). */
  readonly stats: AtomicStats;
}

export type { PromotedToLock } from './atomic-promotion.js';

/** Options of {@link DistributedAtomicLong}. */
export interface AtomicLongOptions {
  /**
   * How many compare-and-set rounds a change gets, and the pauses between them when another
   * writer won the round. Default: 10 attempts, backoff from 10 ms up to 1 s. Lost connections
   * within a round are retried with the same policy. Its `signal` stops the change (it rejects
   * with the signal's reason; a write already sent is not taken back).
   */
  retry?: Omit<RetryPolicy, 'retryOn'>;
  /**
   * Take a lock when every optimistic round lost, and try again under it (Curator's
   * `PromotedToLock`); see {@link PromotedToLock}.
   * `compareAndSet` and `forceSet` are never promoted (as in Curator).
   */
  promotedToLock?: PromotedToLock;
}

/** Encodes `value` as Curator's DistributedAtomicLong does: 8 bytes, big-endian, two's complement. */
export function encodeLong(value: bigint): Uint8Array {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigInt64(0, BigInt.asIntN(64, value), false);
  return bytes;
}

/** Decodes a DistributedAtomicLong node's data: empty is 0 (as Curator), 8 bytes a value; else BADARGUMENTS. */
export function decodeLong(data: Uint8Array, path?: string): bigint {
  if (data.length === 0) return 0n;
  if (data.length !== 8) {
    throw makeError(
      'BADARGUMENTS',
      `an atomic long is 8 bytes, the node holds ${data.length}`,
      path === undefined ? {} : { path },
    );
  }
  return new DataView(data.buffer, data.byteOffset, 8).getBigInt64(0, false);
}

/**
 * A distributed 64-bit counter, interoperable with Curator's `DistributedAtomicLong` (and the
 * same idea as kazoo's `Counter`, whose node holds the value as text instead: the two do not share
 * a node). Each change reads the value and writes the new one only if the node is still at the
 * version read (or creates the node, parents as containers, if it did not exist); a lost round
 * is tried again per the retry policy, and when the rounds run out the result says
 * `succeeded: false`. With {@link AtomicLongOptions.promotedToLock}, a change whose rounds all
 * lost then takes a mutex and tries again under it. Values wrap around at 64 bits as Java's
 * `long` does.
 *
 * At a reconnect, reads are retried per the policy. A session renewal changes nothing (the node
 * is persistent and no watch is kept). A compare-and-set whose reply was lost is never sent again:
 * it may have applied, and a second round would count twice, so the change rejects with
 * CONNECTIONLOSS and {@link get} tells the value now. A promoted change whose lock is lost (the
 * connection was suspended, the session expired) writes nothing more and resolves
 * `succeeded: false`, unless a write of it was in flight (that write's outcome counts). The
 * counter itself creates no sequential nodes; the lock does (one per promoted change, deleted
 * again before the change resolves).
 *
 * Every operation takes `{ timeout, signal }` as its last argument (see {@link WaitOptions}),
 * bounding all of it: reads and their retries, the rounds and the pauses between them, a promoted
 * change's wait for the lock and its rounds under it. When `timeout` runs out the operation rejects
 * with a `TimeoutError`, when `signal` aborts with its reason, at once either way (a lock taken
 * is released). A write whose reply was awaited then may have applied, as after a lost reply:
 * {@link get} tells. `promotedToLock.timeout` is not such a bound: a lock not obtained within it
 * is one more lost round (`succeeded: false`).
 */
export class DistributedAtomicLong {
  /** The node holding the value. */
  readonly path: string;
  private readonly policy: RetryPolicy;
  private readonly promotion: Promotion | undefined;

  /**
   * @param client The client to use (the promoted lock uses it too).
   * @param path The node holding the value.
   * @param options The retry policy, and the promotion to a lock.
   */
  constructor(
    private readonly client: RecipeClient,
    path: string,
    options: AtomicLongOptions = {},
  ) {
    checkRecipePath(path, 'DistributedAtomicLong');
    this.path = path;
    this.policy = { maxAttempts: 10, baseDelay: 10, maxDelay: 1_000, ...options.retry };
    checkPolicy(this.policy);
    this.promotion =
      options.promotedToLock === undefined
        ? undefined
        : promotionOf(client, path, options.promotedToLock, this.policy);
  }

  /**
   * The current value (0 when the node does not exist). `timeout` rejects with a `TimeoutError`,
   * `signal` with its reason (see {@link WaitOptions}).
   */
  async get(options: WaitOptions = {}): Promise<bigint> {
    const run = this.begin(options);
    try {
      return (await run.within(this.read(run.policy))).value;
    } finally {
      run.end();
    }
  }

  /** Adds 1. Every change takes `{ timeout, signal }`: see {@link DistributedAtomicLong}. */
  increment(options?: WaitOptions): Promise<AtomicResult> {
    return this.add(1n, options);
  }

  /** Subtracts 1. */
  decrement(options?: WaitOptions): Promise<AtomicResult> {
    return this.add(-1n, options);
  }

  /** Adds `delta` (a bigint, or a safe integer). */
  add(delta: bigint | number, options?: WaitOptions): Promise<AtomicResult> {
    const amount = toBigInt(delta, this.path);
    return this.change((value) => value + amount, options);
  }

  /** Subtracts `delta`. */
  subtract(delta: bigint | number, options?: WaitOptions): Promise<AtomicResult> {
    const amount = toBigInt(delta, this.path);
    return this.change((value) => value - amount, options);
  }

  /** Sets the value whatever it is now (still through compare-and-set rounds, promoted if set up). */
  trySet(value: bigint | number, options?: WaitOptions): Promise<AtomicResult> {
    const next = toBigInt(value, this.path);
    return this.change(() => next, options);
  }

  /** Sets the value only if it is `expected` now: one round, `succeeded: false` if not; never promoted. */
  async compareAndSet(
    expected: bigint | number,
    value: bigint | number,
    options: WaitOptions = {},
  ): Promise<AtomicResult> {
    const want = BigInt.asIntN(64, toBigInt(expected, this.path));
    const next = BigInt.asIntN(64, toBigInt(value, this.path));
    const started = Date.now();
    const run = this.begin(options);
    let snapshot: Snapshot;
    let written: boolean;
    try {
      snapshot = await run.within(this.read(run.policy));
      written =
        snapshot.value === want && (await run.within(this.write(snapshot, next, run.signal)));
    } finally {
      run.end();
    }
    const stats = {
      optimisticTries: 1,
      promotedLockTries: 0,
      optimisticTimeMs: Date.now() - started,
      promotedTimeMs: 0,
    };
    return written
      ? { succeeded: true, preValue: snapshot.value, postValue: next, stats }
      : { ...unchanged(snapshot), stats };
  }

  /** Writes `value` unconditionally (Curator's `forceSet`), creating the node if needed. */
  async forceSet(value: bigint | number, options: WaitOptions = {}): Promise<void> {
    const bytes = encodeLong(toBigInt(value, this.path));
    const run = this.begin(options);
    const { policy, signal } = run;
    try {
      // Both writes are safe to repeat: an unconditional set, and a create that a lost reply
      // turns into NODEEXISTS (then set again).
      for (;;) {
        try {
          await run.within(
            retryUntil(
              () => this.client.setData(this.path, bytes, -1, stopping({}, signal)),
              policy,
              signal,
            ),
          );
          return;
        } catch (error) {
          if (!hasCode(error, 'NONODE')) throw error;
        }
        try {
          await run.within(
            retryUntil(
              () => createWithParents(this.client, this.path, bytes, stopping({}, signal)),
              policy,
              signal,
            ),
          );
          return;
        } catch (error) {
          if (!hasCode(error, 'NODEEXISTS')) throw error;
        }
      }
    } finally {
      run.end();
    }
  }

  /** Starts one operation's bound (see {@link startRun}). */
  private begin(options: WaitOptions): Run {
    return startRun(options, this.path, this.client, this.policy);
  }

  /** The optimistic rounds, then (when they all lost and a lock is set up) the promoted ones. */
  private async change(
    next: (value: bigint) => bigint,
    options: WaitOptions = {},
  ): Promise<AtomicResult> {
    const run = this.begin(options);
    try {
      return await run.within(this.changeWithin(next, run));
    } finally {
      run.end();
    }
  }

  private async changeWithin(next: (value: bigint) => bigint, run: Run): Promise<AtomicResult> {
    const started = Date.now();
    const optimistic: Progress = { tries: 0, last: { value: 0n, version: -1 } };
    const outcome = await this.rounds(next, run.policy, run.policy, optimistic, run.signal);
    const optimisticTimeMs = Date.now() - started;
    const stats = (promoted: Progress | undefined) => ({
      optimisticTries: optimistic.tries,
      promotedLockTries: promoted?.tries ?? 0,
      optimisticTimeMs,
      promotedTimeMs: promoted ? Date.now() - started - optimisticTimeMs : 0,
    });
    if (outcome.succeeded || !this.promotion) return { ...outcome, stats: stats(undefined) };
    const promoted: Progress = { tries: 0, last: optimistic.last };
    const result = await promoteThroughLock(
      this.promotion,
      run.abortSignal(),
      promoted,
      // Under the lock, a write goes out with the caller's signal only: losing the lock stops
      // the rounds before a write, never a write in flight (its outcome counts).
      (rounds, reads, held) => this.rounds(next, rounds, reads, promoted, run.signal, held),
    );
    return { ...result, stats: stats(promoted) };
  }

  /**
   * Compare-and-set rounds per `rounds` (attempts, elapsed time, pauses); reads retry lost
   * connections per `reads`; writes carry `signal`. With `held`, no write goes out once the lock
   * is lost.
   */
  private async rounds(
    next: (value: bigint) => bigint,
    rounds: RunPolicy,
    reads: RunPolicy,
    progress: Progress,
    signal: StopSignal | undefined,
    held?: AbortSignal,
  ): Promise<Outcome> {
    const { maxAttempts = 10, maxElapsed = Number.POSITIVE_INFINITY } = rounds;
    const started = Date.now();
    for (let round = 1; ; round++) {
      if (held?.aborted) return unchanged(progress.last);
      progress.tries++;
      const last = await this.read(reads);
      progress.last = last;
      if (held?.aborted) return unchanged(last);
      const value = BigInt.asIntN(64, next(last.value));
      if (await this.write(last, value, signal)) {
        return { succeeded: true, preValue: last.value, postValue: value };
      }
      if (round >= maxAttempts) return unchanged(last);
      const delay = backoffDelay(round, rounds);
      if (Date.now() + delay - started > maxElapsed) return unchanged(last);
      await pauseUntil(delay, rounds.signal);
    }
  }

  private async read(policy: RunPolicy): Promise<Snapshot> {
    const { signal } = policy;
    try {
      const { data, stat } = await retryUntil(
        () => this.client.getData(this.path, stopping({}, signal)),
        policy,
        signal,
      );
      return { value: decodeLong(data, this.path), version: stat.version };
    } catch (error) {
      if (hasCode(error, 'NONODE')) return { value: 0n, version: -1 };
      throw error;
    }
  }

  /**
   * One compare-and-set: true when written, false when another writer changed the node first.
   * A lost reply is not retried here (the write may have applied): it rejects with CONNECTIONLOSS.
   * `signal` ends the wait for the reply (the write may have applied too).
   */
  private async write(
    snapshot: Snapshot,
    value: bigint,
    signal: StopSignal | undefined,
  ): Promise<boolean> {
    const bytes = encodeLong(value);
    try {
      if (snapshot.version === -1) {
        await createWithParents(this.client, this.path, bytes, stopping({}, signal));
      } else {
        await this.client.setData(this.path, bytes, snapshot.version, stopping({}, signal));
      }
      return true;
    } catch (error) {
      if (hasCode(error, 'BADVERSION', 'NODEEXISTS', 'NONODE')) return false;
      throw error;
    }
  }
}

function toBigInt(value: bigint | number, path: string): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  throw makeError('BADARGUMENTS', `expected a bigint or a safe integer, got ${String(value)}`, {
    path,
  });
}
