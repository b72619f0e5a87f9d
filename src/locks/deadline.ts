// The deadline of an acquire: the caller's signal or the timeout, whichever comes first, as a
// Bound on the shared timer of the lock's client (src/coordination/deadline.ts). Every lock's
// wait goes through AcquireDeadlines: which options make a bound, which put it on the timer,
// and what `timeout: 0` answers are decided here once.
import {
  type Bound,
  checkTimeout,
  type Deadlines,
  deadlinesOf,
  isTimeoutValue,
  startBound,
  type TimeoutErrorOf,
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

/**
 * The deadlines of one lock's acquires, made once per lock: the timeout's error and the client's
 * timer are found on the first acquire that needs them, so an acquire with a timeout costs one
 * Bound and nothing else.
 */
export class AcquireDeadlines {
  private deadlines: Deadlines | undefined;
  private timedOut: TimeoutErrorOf | undefined;

  /**
   * @param path the lock's path, for messages
   * @param awaited what is waited for, as a timeout's message names it
   * @param owner whose shared timer the waits go on (the lock's client)
   */
  constructor(
    private readonly path: string,
    private readonly awaited?: AwaitedWords,
    private readonly owner?: object,
  ) {}

  /**
   * The bound of one acquire, or undefined when it has neither a timeout above 0 nor a signal
   * (nothing can end it early). Throws BADARGUMENTS for bad options. A timeout puts the bound on
   * the client's timer; `timeout: 0` puts nothing there (see {@link noWait}).
   */
  start(options: AcquireOptions | undefined): Bound | undefined {
    const timeout = options?.timeout;
    const signal = options?.signal;
    checkAcquireOptions(timeout, signal, this.path);
    if (signal === undefined && (timeout === undefined || timeout === 0)) return undefined;
    this.timedOut ??= (ms) => new LockTimeoutError(this.path, ms, wordsOf(this.awaited));
    this.deadlines ??= deadlinesOf(this.owner);
    return startBound(this.deadlines, timeout, signal, this.timedOut);
  }

  /**
   * The lease of an acquire, or, for a `timeout: 0` attempt that found the lock taken (null), the
   * LockTimeoutError of a zero wait.
   */
  readonly granted = <T>(lease: T | null): T => {
    if (lease === null) throw this.taken();
    return lease;
  };

  /** The error of a `timeout: 0` wait that could not be met at once. */
  taken(): LockTimeoutError {
    return new LockTimeoutError(this.path, 0, wordsOf(this.awaited));
  }
}

/**
 * `timeout: 0`: take the lock only if it is free now (as Curator's zero wait), failing with a
 * LockTimeoutError otherwise; the round trips to find out are not cut short.
 */
export function noWait(options: AcquireOptions | undefined): boolean {
  return options?.timeout === 0;
}

/** The bound of one acquire as its attempt sees it (see {@link acquireWithin}). */
export interface Deadline {
  /** Ends with the caller's signal or the timeout; undefined when neither was given. */
  readonly bound: Bound | undefined;
  /** Aborted with the caller's reason or a LockTimeoutError; undefined when neither was given. */
  readonly signal: AbortSignal | undefined;
  /** `timeout: 0` (see {@link noWait}): the attempt must not wait. */
  readonly noWait: boolean;
}

class AcquireDeadline implements Deadline {
  constructor(
    readonly bound: Bound | undefined,
    readonly noWait: boolean,
  ) {}

  /** Made on the first read only (see {@link Bound.signal}). */
  get signal(): AbortSignal | undefined {
    return this.bound?.signal;
  }
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
  deadlines: AcquireDeadlines,
  options: AcquireOptions | undefined,
  contend: (deadline: Deadline) => Promise<T | null>,
): Promise<T> {
  let bound: Bound | undefined;
  let attempt: Promise<T | null>;
  try {
    bound = deadlines.start(options);
    attempt = contend(new AcquireDeadline(bound, noWait(options)));
  } catch (error) {
    bound?.end();
    return Promise.reject(error);
  }
  if (bound === undefined) return attempt.then(deadlines.granted);
  const within = bound;
  return new Promise<T>((resolve, reject) => {
    within.listen({ boundEnded: reject });
    attempt.then(
      (lease) => {
        if (within.ended) {
          // Won too late: the caller has heard of the timeout or abort already.
          lease?.release().catch(() => {
            // Best effort: the node goes with the session at the latest.
          });
          return;
        }
        within.end();
        if (lease === null) reject(deadlines.taken());
        else resolve(lease);
      },
      (error: unknown) => {
        within.end();
        reject(error);
      },
    );
  });
}

/** What an acquire hands out: something to give back if it arrives too late. */
export interface Releasable {
  release(): Promise<void>;
}
