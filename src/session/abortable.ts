// One way to stop waiting for a promise when a signal aborts: the session's transports use it for
// a socket that may still open after its attempt was given up, the recipes for their waits.
import type { StopSignal } from './signal-waiters.js';

/**
 * `work`, or a rejection with the signal's reason as soon as it aborts (at once if it already
 * has). What `work` yields after that goes to `discard` (a socket opened for an attempt that was
 * given up must not leak); a late failure of `work` is ignored, never unhandled.
 */
export function untilAborted<T>(
  work: Promise<T>,
  signal: StopSignal,
  discard?: (value: T) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      reject(signal.reason);
      work.then(discard, ignore);
    };
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

const ignore = () => {};
