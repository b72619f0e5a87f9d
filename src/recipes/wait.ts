// Bounded waits of the recipes: a timeout (rejects with the one TimeoutError) and the caller's signal (rejects with
// its reason), and a wait for one watch that leaves no closure behind when it gives up.
import type { WatchedEvent } from '../client/types.js';
import { BoundSignal, type InnerWait, innerWait } from '../coordination/bound-signal.js';
import { Bound, checkTimeout as checkTimeoutRule, deadlinesOf } from '../coordination/deadline.js';
import { waitForWatch } from '../coordination/wait.js';
import { makeError, TimeoutError } from '../protocol/errors.js';
import type { StopSignal } from '../session/signal-waiters.js';

/** How long a recipe's wait may take. */
export interface WaitOptions {
  /** Give up after this many ms: the wait rejects with a `TimeoutError`. Default: no limit. */
  timeout?: number;
  /** Give up when aborted: the wait rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * One wait's bound: `signal` stops on the caller's signal, the timeout or the recipe's close;
 * `timedOut` tells whether it was the timeout. `signal` is the one AbortSignal itself when the
 * wait has no timeout and one signal, else the bound read as a signal (no AbortController).
 */
export interface WaitBound {
  readonly signal: StopSignal;
  /**
   * The bound as an AbortSignal, for what takes nothing else (a lock's acquire): made on the
   * first read (one AbortController), or the one signal itself as `signal` is.
   */
  readonly abortSignal: AbortSignal;
  timedOut(): boolean;
  /** Calls `ended` with the reason when the wait is given up (at once if it was already). */
  listen(ended: (reason: unknown) => void): void;
  /**
   * `work`, or a rejection with the bound's reason as soon as the wait is given up, whatever
   * `work` still waits for (a call of a client wrapper that does not pass the bound's stop on,
   * say): the caller hears of a timeout at its time. A later failure of `work` is handled here.
   */
  within<T>(work: Promise<T>): Promise<T>;
  /**
   * How a lock acquire made inside this wait waits (see innerWait): the caller's `signal` and
   * the time left, rounded down; undefined when the deadline is due.
   */
  innerWait(signal: AbortSignal | undefined): InnerWait | undefined;
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
  // One signal and no timeout: that signal is the wait's; else the bound read as one.
  const one = timeout === undefined && (signal === undefined) !== (owner.stop === undefined);
  let stop: StopSignal | undefined = one ? (signal ?? owner.stop) : undefined;
  return {
    get signal() {
      stop ??= new BoundSignal(bound);
      return stop;
    },
    get abortSignal() {
      return bound.signal;
    },
    innerWait: (signal) => innerWait(bound, signal),
    timedOut: () => expired,
    listen: (ended) => bound.listen({ boundEnded: ended }),
    within: <T>(work: Promise<T>) =>
      new Promise<T>((resolve, reject) => {
        bound.listen({ boundEnded: reject });
        work.then(resolve, reject);
      }),
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
  signal: StopSignal,
  arm: (watcher: (event: WatchedEvent) => void) => Promise<'now' | 'wait'>,
): Promise<WatchedEvent | undefined> {
  return waitForWatch(client, key, signal, arm);
}
