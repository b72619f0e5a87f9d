// Bounded waits of the recipes: a timeout (resolves false) and the caller's signal (rejects with
// its reason), and a wait for one watch that leaves no closure behind when it gives up.
import type { WatchedEvent } from '../client/types.js';
import { waitForWatch } from '../coordination/wait.js';
import { makeError } from '../protocol/errors.js';

/** How long a recipe's wait may take. */
export interface WaitOptions {
  /** Give up after this many ms: the wait resolves false. Default: no limit but the signal. */
  timeout?: number;
  /** Give up when aborted: the wait rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** One wait's bound: `signal` aborts on the caller's signal or the timeout; `timedOut` tells which. */
export interface WaitBound {
  readonly signal: AbortSignal;
  timedOut(): boolean;
  dispose(): void;
}

/** Throws BADARGUMENTS unless `timeout` is undefined or a non-negative finite number of ms. */
export function checkTimeout(timeout: unknown, path?: string): void {
  if (
    timeout !== undefined &&
    !(typeof timeout === 'number' && timeout >= 0 && Number.isFinite(timeout))
  ) {
    throw makeError(
      'BADARGUMENTS',
      `timeout must be a non-negative number of ms, got ${String(timeout)}`,
      path === undefined ? {} : { path },
    );
  }
}

/** Starts the clock of one wait; throws BADARGUMENTS for a bad timeout or signal. */
export function startWait(options: WaitOptions = {}, path?: string): WaitBound {
  const { timeout, signal } = options;
  const details = path === undefined ? {} : { path };
  checkTimeout(timeout, path);
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw makeError('BADARGUMENTS', 'signal must be an AbortSignal', details);
  }
  const controller = new AbortController();
  let expired = false;
  const onAbort = () => controller.abort(signal?.reason);
  const timer =
    timeout === undefined
      ? undefined
      : setTimeout(() => {
          expired = true;
          controller.abort(makeError('OPERATIONTIMEOUT', `timed out after ${timeout} ms`, details));
        }, timeout);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => expired,
    dispose() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    },
  };
}

/**
 * Waits for one watch to fire: `arm` sets it with the watcher it is given and resolves `'now'`
 * when there is nothing to wait for, `'wait'` once the watch is set. Watchers on the same `key`
 * (the kind of watch and the path) share one closure in the client, so a wait that gives up
 * leaves nothing behind. Resolves with the event that fired (undefined when `arm` said
 * `'now'`); rejects with the signal's reason.
 */
export function waitForOneWatch(
  client: object,
  key: string,
  signal: AbortSignal,
  arm: (watcher: (event: WatchedEvent) => void) => Promise<'now' | 'wait'>,
): Promise<WatchedEvent | undefined> {
  return waitForWatch(client, key, signal, arm);
}
