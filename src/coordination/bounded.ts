// One bounded wait for an outcome that is decided elsewhere (a recipe's start()): the caller's
// timeout rejects with the one TimeoutError, its signal with the signal's reason; the outcome
// itself is never cancelled by either, only no longer waited for.
import { makeError, TimeoutError } from '../protocol/errors.js';

/** How long a caller waits, and how it gives up early. */
export interface BoundOptions {
  /** Give up after this many ms: rejects with a `TimeoutError`. Default: no limit. */
  timeout?: number;
  /** Give up when aborted: rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** Waits for `outcome` within `options`; `what` names it in the timeout's message. */
export function waitBounded<T>(
  outcome: Promise<T>,
  options: BoundOptions,
  what: string,
): Promise<T> {
  const { timeout, signal } = options;
  if (
    timeout !== undefined &&
    !(typeof timeout === 'number' && timeout >= 0 && Number.isFinite(timeout))
  ) {
    return Promise.reject(
      makeError(
        'BADARGUMENTS',
        `timeout must be a non-negative number of ms, got ${String(timeout)}`,
      ),
    );
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    return Promise.reject(makeError('BADARGUMENTS', 'signal must be an AbortSignal'));
  }
  if (timeout === undefined && signal === undefined) return outcome;
  return new Promise<T>((resolve, reject) => {
    const finish = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      finish();
      reject(signal?.reason);
    };
    const timer =
      timeout === undefined
        ? undefined
        : setTimeout(() => {
            finish();
            reject(new TimeoutError(timeout, `timed out after ${timeout} ms waiting for ${what}`));
          }, timeout);
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    outcome.then(
      (value) => {
        finish();
        resolve(value);
      },
      (error: unknown) => {
        finish();
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
