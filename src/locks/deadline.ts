// One signal for "stop waiting": the caller's signal, or the timeout, whichever comes first.
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

export interface Deadline {
  /** Aborted with the caller's reason or a LockTimeoutError; undefined when neither was given. */
  readonly signal: AbortSignal | undefined;
  /**
   * `timeout: 0`: take the lock only if it is free now (as Curator's zero wait), failing with a
   * LockTimeoutError otherwise; the round trips to find out are not cut short.
   */
  readonly noWait: boolean;
  /** Stops the timer and forgets the caller's signal. */
  dispose(): void;
}

/**
 * Starts the clock of one acquire. Throws BADARGUMENTS for a timeout that is not a number of ms.
 * `awaited` names what is waited for in the timeout's message (see {@link LockTimeoutError}).
 */
export function startDeadline(
  options: AcquireOptions | undefined,
  path: string,
  awaited?: AwaitedWords,
): Deadline {
  const timeout = options?.timeout;
  const outer = options?.signal;
  if (
    timeout !== undefined &&
    !(typeof timeout === 'number' && timeout >= 0 && Number.isFinite(timeout))
  ) {
    throw badArguments(`timeout must be a non-negative number of ms, got ${String(timeout)}`, path);
  }
  if (outer !== undefined && !(outer instanceof AbortSignal)) {
    throw badArguments('signal must be an AbortSignal', path);
  }
  if (timeout === undefined || timeout === 0) {
    return { signal: outer, noWait: timeout === 0, dispose() {} };
  }
  const controller = new AbortController();
  // Stryker disable next-line OptionalChaining: only the listener on `outer` and the `outer?.aborted` branch call this, so outer is set
  const onAbort = () => controller.abort(outer?.reason);
  const timer = setTimeout(
    () => controller.abort(new LockTimeoutError(path, timeout, wordsOf(awaited))),
    timeout,
  );
  if (outer?.aborted) onAbort();
  else {
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: an abort event fires at most once; `once` only frees the listener sooner
    outer?.addEventListener('abort', onAbort, { once: true });
  }
  return {
    signal: controller.signal,
    noWait: false,
    dispose() {
      clearTimeout(timer);
      // Stryker disable next-line StringLiteral: after dispose the acquire is over; the signal aborting later reaches only waits already ended
      outer?.removeEventListener('abort', onAbort);
    },
  };
}

/**
 * Runs one acquire under its deadline: `contend` gets the deadline (and must not wait when
 * `noWait`); a `timeout: 0` attempt that finds the lock taken rejects with a LockTimeoutError.
 * The caller hears of a timeout or abort at once (see {@link onTime}), whatever `contend` is still
 * waiting for.
 */
export async function acquireWithin<T extends Releasable>(
  options: AcquireOptions | undefined,
  path: string,
  contend: (deadline: Deadline) => Promise<T | null>,
  awaited?: AwaitedWords,
): Promise<T> {
  const deadline = startDeadline(options, path, awaited);
  try {
    const lease = await onTime(contend(deadline), deadline.signal);
    if (lease === null) throw new LockTimeoutError(path, 0, wordsOf(awaited));
    return lease;
  } finally {
    deadline.dispose();
  }
}

/** What an acquire hands out: something to give back if it arrives too late. */
export interface Releasable {
  release(): Promise<void>;
}

/**
 * `attempt`, or the signal's reason as soon as the signal aborts: a timeout is a promise to the
 * caller, kept even when the attempt is stuck behind a link that silently drops everything (the
 * client notices only after two thirds of the session timeout). The attempt carries on in the
 * background: it sees the aborted signal and cleans up after itself (its retries are bounded by
 * the session), and a lease it still wins is released at once.
 */
export function onTime<T extends Releasable | null>(
  attempt: Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T> {
  if (!signal) return attempt;
  return new Promise<T>((resolve, reject) => {
    let late = false;
    const onAbort = () => {
      late = true;
      reject(signal.reason);
    };
    if (signal.aborted) onAbort();
    else {
      // Stryker disable next-line ObjectLiteral,BooleanLiteral: an abort event fires at most once; `once` only frees the listener sooner
      signal.addEventListener('abort', onAbort, { once: true });
    }
    attempt.then(
      (lease) => {
        // Stryker disable next-line StringLiteral: once settled, a later abort only rejects a settled promise (no effect) and sets `late`, read no more
        signal.removeEventListener('abort', onAbort);
        if (!late) return resolve(lease);
        lease?.release().catch(() => {
          // Best effort: the node goes with the session at the latest.
        });
      },
      (error: unknown) => {
        // Stryker disable next-line StringLiteral: once settled, a later abort only rejects a settled promise (no effect) and sets `late`, read no more
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
