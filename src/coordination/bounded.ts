// One bounded wait for an outcome that is decided elsewhere (a recipe's start()): the caller's
// timeout rejects with the one TimeoutError, its signal with the signal's reason; the outcome
// itself is never cancelled by either, only no longer waited for.
import { makeError, TimeoutError } from '../protocol/errors.js';
import { Bound, checkTimeout, deadlinesOf } from './deadline.js';

/** How long a caller waits, and how it gives up early. */
export interface BoundOptions {
  /** Give up after this many ms: rejects with a `TimeoutError`. Default: no limit. */
  timeout?: number;
  /** Give up when aborted: rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * Waits for `outcome` within `options`; `what` names it in the timeout's message. The wait is on
 * the shared timer of `owner` (the recipe's client; see Deadlines): it costs no timer of its own.
 */
export function waitBounded<T>(
  outcome: Promise<T>,
  options: BoundOptions,
  what: string,
  owner?: object,
): Promise<T> {
  const { timeout, signal } = options;
  try {
    checkTimeout(timeout, (message) => makeError('BADARGUMENTS', message));
  } catch (error) {
    return Promise.reject(error);
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    return Promise.reject(makeError('BADARGUMENTS', 'signal must be an AbortSignal'));
  }
  if (timeout === undefined && signal === undefined) return outcome;
  const bound = new Bound(
    signal,
    (ms) => new TimeoutError(ms, `timed out after ${ms} ms waiting for ${what}`),
  );
  if (bound.ended) return Promise.reject(bound.reason);
  // A timeout of 0 is on the timer too: an outcome already known is heard first (promise jobs
  // run before any timer), one still to come is given up on the next turn of the event loop.
  if (timeout !== undefined) deadlinesOf(owner).add(bound, timeout);
  return new Promise<T>((resolve, reject) => {
    bound.listen({ boundEnded: reject });
    outcome.then(
      (value) => {
        bound.end();
        resolve(value);
      },
      (error: unknown) => {
        bound.end();
        reject(error);
      },
    );
  });
}

/**
 * @internal A promise settled once from outside (Promise.withResolvers needs Node 22): what a
 * recipe's start() waits for. Settling again does nothing.
 */
export function outcome(): { promise: Promise<void>; settle(error?: unknown): void } {
  let settle!: (error?: unknown) => void;
  const promise = new Promise<void>((resolve, reject) => {
    settle = (error) => (error === undefined ? resolve() : reject(error));
  });
  // A start() nobody awaits must not leave a rejection unhandled.
  promise.catch(() => {});
  return { promise, settle };
}
