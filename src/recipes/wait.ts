// Bounded waits of the recipes: a timeout (rejects with the one TimeoutError) and the caller's signal (rejects with
// its reason), and a wait for one watch that leaves no closure behind when it gives up.
import type { WatchedEvent } from '../client/types.js';
import { Bound, checkTimeout as checkTimeoutRule, deadlinesOf } from '../coordination/deadline.js';
import { waitForWatch } from '../coordination/wait.js';
import { makeError, TimeoutError } from '../protocol/errors.js';

/** How long a recipe's wait may take. */
export interface WaitOptions {
  /** Give up after this many ms: the wait rejects with a `TimeoutError`. Default: no limit. */
  timeout?: number;
  /** Give up when aborted: the wait rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** One wait's bound: `signal` aborts on the caller's signal or the timeout; `timedOut` tells which. */
export interface WaitBound {
  readonly signal: AbortSignal;
  timedOut(): boolean;
  /** Calls `ended` with the reason when the wait is given up (at once if it was already). */
  listen(ended: (reason: unknown) => void): void;
  dispose(): void;
}

/** Throws BADARGUMENTS unless `timeout` is undefined or a non-negative finite number of ms. */
export function checkTimeout(timeout: unknown, path?: string): void {
  checkTimeoutRule(timeout, (message) =>
    makeError('BADARGUMENTS', message, path === undefined ? {} : { path }),
  );
}

/** Throws BADARGUMENTS (an `InvalidArgumentError`) for a bad `timeout` or `signal`. */
export function checkWaitOptions(options: WaitOptions, path?: string): void {
  checkTimeout(options.timeout, path);
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    throw makeError(
      'BADARGUMENTS',
      'signal must be an AbortSignal',
      path === undefined ? {} : { path },
    );
  }
}

/** Whose wait it is: the recipe's client, and the recipe's own signal (its close). */
export interface WaitOwner {
  /** The client whose shared timer the wait goes on (see Deadlines); default: one for all. */
  readonly client?: object;
  /** Ends the wait as the caller's signal does (the recipe closed). */
  readonly stop?: AbortSignal;
}

/**
 * Starts the clock of one wait; throws BADARGUMENTS for a bad timeout or signal. The wait is on
 * its client's shared timer (it costs no timer of its own) and ends with the recipe's `stop`.
 */
export function startWait(
  options: WaitOptions = {},
  path?: string,
  owner: WaitOwner = {},
): WaitBound {
  const { timeout, signal } = options;
  checkWaitOptions(options, path);
  let expired = false;
  const timedOut =
    timeout === undefined
      ? undefined
      : () => {
          expired = true;
          return new TimeoutError(timeout, undefined, path === undefined ? {} : { path });
        };
  const bound = new Bound(signal, timedOut, owner.stop);
  // A timeout of 0 is on the timer too: the wait gives up on the next turn of the event loop.
  if (timeout !== undefined && !bound.ended) deadlinesOf(owner.client).add(bound, timeout);
  return {
    get signal() {
      return bound.signal;
    },
    timedOut: () => expired,
    listen: (ended) => bound.listen({ boundEnded: ended }),
    dispose: () => bound.end(),
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
