// The deadline of an acquire: the caller's signal or the timeout, whichever comes first, as a
// Bound on the shared timer of the lock's client (src/coordination/deadline.ts).
import {
  type Bound,
  checkTimeout,
  deadlinesOf,
  isTimeoutValue,
  startBound,
} from '../coordination/deadline.js';
import { badArguments, LockTimeoutError } from './errors.js';
import type { AcquireOptions } from './types.js';

/**
 * What an acquire waits for, as a timeout's message names it: words, or a function asked at the
 * moment of the timeout (so that the message can say what holds the lock then).
 */
export type AwaitedWords = string | (() => string);

function wordsOf(awaited: AwaitedWords | undefined): string | undefined {
  return typeof awaited === 'function' ? awaited() : awaited;
}

/** The bound of one acquire: its signal made only when read (see {@link Bound}). */
export interface Deadline {
  /** Ends with the caller's signal or the timeout; undefined when neither was given. */
  readonly bound: Bound | undefined;
  /** Aborted with the caller's reason or a LockTimeoutError; undefined when neither was given. */
  readonly signal: AbortSignal | undefined;
  /**
   * `timeout: 0`: take the lock only if it is free now (as Curator's zero wait), failing with a
   * LockTimeoutError otherwise; the round trips to find out are not cut short.
   */
  readonly noWait: boolean;
  /** Leaves the shared timer and the caller's signal. */
  dispose(): void;
}

class AcquireDeadline implements Deadline {
  constructor(
    readonly bound: Bound | undefined,
    readonly noWait: boolean,
  ) {}

  get signal(): AbortSignal | undefined {
    return this.bound?.signal;
  }

  dispose(): void {
    this.bound?.end();
  }
}

/**
 * Throws BADARGUMENTS for a `timeout` that is not a number of ms or a `signal` that is not an
 * AbortSignal (allocating nothing when both are fine: it runs on every acquire).
 */
export function checkAcquireOptions(timeout: unknown, signal: unknown, path: string): void {
  if (!isTimeoutValue(timeout)) checkTimeout(timeout, (message) => badArguments(message, path));
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw badArguments('signal must be an AbortSignal', path);
  }
}

/** The waits of no one client in particular (a MultiLock's, say) share this timer. */
const shared = {};

/**
 * Starts the clock of one acquire on the shared timer of `owner` (the lock's client). Throws
 * BADARGUMENTS for a timeout that is not a number of ms. `awaited` names what is waited for in
 * the timeout's message (see {@link LockTimeoutError}).
 */
export function startDeadline(
  options: AcquireOptions | undefined,
  path: string,
  awaited?: AwaitedWords,
  owner: object = shared,
): Deadline {
  const timeout = options?.timeout;
  const outer = options?.signal;
  checkAcquireOptions(timeout, outer, path);
  const noWait = timeout === 0;
  if (outer === undefined && (timeout === undefined || noWait)) {
    return new AcquireDeadline(undefined, noWait);
  }
  const bound = startBound(
    deadlinesOf(owner),
    timeout,
    outer,
    () => new LockTimeoutError(path, timeout!, wordsOf(awaited)),
  );
  return new AcquireDeadline(bound, noWait);
}

/**
 * Runs one acquire under its deadline: `contend` gets the deadline (and must not wait when
 * `noWait`); a `timeout: 0` attempt that finds the lock taken rejects with a LockTimeoutError.
 * The caller hears of a timeout or abort at once, whatever `contend` is still waiting for: the
 * attempt carries on in the background, sees its bound ended and cleans up after itself, and a
 * lease it still wins is released at once. A timeout is a promise to the caller, kept even when
 * the attempt is stuck behind a link that silently drops everything.
 */
export function acquireWithin<T extends Releasable>(
  options: AcquireOptions | undefined,
  path: string,
  contend: (deadline: Deadline) => Promise<T | null>,
  awaited?: AwaitedWords,
  owner?: object,
): Promise<T> {
  let deadline: Deadline;
  let attempt: Promise<T | null>;
  try {
    deadline = startDeadline(options, path, awaited, owner);
    attempt = contend(deadline);
  } catch (error) {
    return Promise.reject(error);
  }
  const bound = deadline.bound;
  if (bound === undefined) {
    return attempt.then((lease) => {
      if (lease === null) throw new LockTimeoutError(path, 0, wordsOf(awaited));
      return lease;
    });
  }
  return new Promise<T>((resolve, reject) => {
    bound.listen({ boundEnded: reject });
    attempt.then(
      (lease) => {
        if (bound.ended) {
          // Won too late: the caller has heard of the timeout or abort already.
          lease?.release().catch(() => {
            // Best effort: the node goes with the session at the latest.
          });
          return;
        }
        bound.end();
        if (lease === null) reject(new LockTimeoutError(path, 0, wordsOf(awaited)));
        else resolve(lease);
      },
      (error: unknown) => {
        bound.end();
        reject(error);
      },
    );
  });
}

/** What an acquire hands out: something to give back if it arrives too late. */
export interface Releasable {
  release(): Promise<void>;
}

/**
 * `attempt`, or the bound's reason as soon as it ends (see {@link acquireWithin}): the attempt
 * carries on in the background, and a lease it still wins is released at once.
 */
export function onTime<T extends Releasable | null>(
  attempt: Promise<T>,
  bound: Bound | undefined,
): Promise<T> {
  if (!bound) return attempt;
  return new Promise<T>((resolve, reject) => {
    bound.listen({ boundEnded: reject });
    attempt.then(
      (lease) => {
        if (!bound.ended) return resolve(lease);
        lease?.release().catch(() => {
          // Best effort: the node goes with the session at the latest.
        });
      },
      (error: unknown) => reject(error),
    );
  });
}
