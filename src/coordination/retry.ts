// The one retry classification of the library and the recipes' internal retry loop: which errors
// are worth sending a request again for (the error table's `retriable`, the same set the public
// `isRetriable`, `ZooKeeperError.retriable`, `RETRIABLE_CODES` and the public `retry` use), how
// long to pause first, and when to give up (the caller's deadline or signal).
import { type ErrorCodeName, isRetriable, RETRIABLE_CODES } from '../protocol/errors.js';
import type { StopSignal } from '../session/signal-waiters.js';
import { hasCode } from './codes.js';

/**
 * Codes after which the same request may succeed if sent again (see the error table's
 * `retriable`): CONNECTIONLOSS, REQUESTTIMEOUT, SESSIONMOVED, THROTTLEDOP and NOTREADONLY. The
 * recipes only repeat requests that are safe to repeat, or look first (a create whose reply was
 * lost is found by its prefix).
 */
export const RETRIABLE: readonly ErrorCodeName[] = RETRIABLE_CODES;

export { isRetriable };

/**
 * Waits before a request is sent again after `error`. A lost connection or a timed-out request
 * needs no pause: the next request waits for a connection (or for its own requestTimeout). A
 * server that refuses at once (throttled, read-only) would be asked again in a hot loop: pause
 * 100 to 200 ms (jittered, so that contenders refused together do not come back together).
 * Returns at once when `signal` aborts.
 */
export function pauseBeforeRetry(error: unknown, signal?: StopSignal): Promise<void> {
  if (hasCode(error, 'CONNECTIONLOSS', 'REQUESTTIMEOUT') || signal?.aborted) {
    return Promise.resolve();
  }
  return pauseUnlessAborted(100 + Math.random() * 100, signal);
}

/** Resolves after `ms`, or at once when `signal` aborts (it never rejects: the caller looks). */
export function pauseUnlessAborted(ms: number, signal?: StopSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** How {@link retry} treats the errors of one request. */
export interface RetryOptions {
  /**
   * The caller's deadline or signal: once it has aborted, an error is passed on instead of being
   * retried. Without one, retriable errors are retried until the request succeeds or fails
   * otherwise (the session ending fails every request, so that is the outer bound).
   */
  signal?: StopSignal | undefined;
  /**
   * Codes retried for this request on top of {@link RETRIABLE}, with the same pause (a
   * check-then-delete retries BADVERSION: the node changed between the read and the delete).
   */
  alsoRetry?: readonly ErrorCodeName[];
  /**
   * Consulted first on each error while the signal has not aborted: resolves true when it has
   * removed the cause (created a missing parent, say), and the request is then sent again at once,
   * without a pause. False hands the error to the policy.
   */
  recover?: (error: unknown) => boolean | Promise<boolean>;
}

/**
 * Runs `op` until it succeeds, sending it again after each retriable error (see
 * {@link RETRIABLE}, {@link RetryOptions.alsoRetry}) with {@link pauseBeforeRetry} between tries.
 * Any other error, and any error once `signal` has aborted, is thrown. `op` must be safe to repeat.
 * Requests made while disconnected wait for the next connection (or their own requestTimeout), so
 * this does not spin.
 */
export function retry<T>(op: () => Promise<T>, options: RetryOptions = NO_OPTIONS): Promise<T> {
  // The first try costs one promise: most requests succeed, and retry() sits on the lock's
  // hot path (the listing after each wake, the delete of each release).
  let first: Promise<T>;
  try {
    first = op();
  } catch (error) {
    first = Promise.reject(error);
  }
  return first.catch((error: unknown) => retryAfter(error, op, options));
}

const NO_OPTIONS: RetryOptions = {};

/** The rest of {@link retry}, from the first failure on. */
async function retryAfter<T>(
  error: unknown,
  op: () => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const { signal, alsoRetry = [], recover } = options;
  for (;;) {
    if (signal?.aborted) throw error;
    if (recover && (await recover(error))) {
      // Sent again at once: the cause is gone.
    } else if (!isRetriable(error) && !hasCode(error, ...alsoRetry)) {
      throw error;
    } else {
      await pauseBeforeRetry(error, signal);
    }
    try {
      return await op();
    } catch (next) {
      error = next;
    }
  }
}
