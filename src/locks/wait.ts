// Waiting for one node to change, without leaving a watch behind when it is already gone.
import { hasCode } from './errors.js';
import type { LockClient } from './types.js';

/**
 * Resolves when the node at `path` is deleted or changes, or is already gone; rejects with the
 * signal's reason on abort. It uses a getData watch (not exists) as Curator does: getData sets no
 * watch on a missing node. A CONNECTIONLOSS resolves too: the caller re-checks, never assumes.
 */
export function waitForChange(
  client: LockClient,
  path: string,
  signal: AbortSignal | undefined,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const finish = (error?: unknown) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onAbort = () => finish(signal?.reason);
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    // Any event wakes us: deletion, data change, or the session ending (the re-check then fails).
    client.getData(path, { watch: () => finish(), signal }).then(
      () => {
        // Watch set: keep waiting for it.
      },
      (error: unknown) => {
        if (hasCode(error, 'NONODE', 'CONNECTIONLOSS')) finish();
        else finish(error ?? new Error('getData failed'));
      },
    );
  });
}

/** `promise`, or the signal's reason if it aborts first. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
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
