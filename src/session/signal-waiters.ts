// One abort listener per AbortSignal for everything waiting on it. A caller that passes one
// signal to a batch of requests (findLocks over many lock folders) would otherwise put a listener
// per request on it: past ten, Node prints MaxListenersExceededWarning on the caller's stderr,
// and every request pays an add and a remove on the caller's signal.

/**
 * What stops a wait: an AbortSignal, or an object read and listened to as one (a recipe's wait
 * bound, which joins its caller's signal, its timeout and its object's close without an
 * AbortController per wait). The calls and waits of the library take either.
 */
export interface StopSignal {
  /** Whether it has stopped. */
  readonly aborted: boolean;
  /** Why it stopped (set once `aborted`). */
  readonly reason: unknown;
  /** Calls `listener` once it stops (never when it has already). */
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  /** Stops calling `listener`. */
  removeEventListener(type: 'abort', listener: () => void): void;
  /**
   * Optional: tells `waiter` directly when it stops (never when it has already), so that
   * {@link waitOn} needs no listener function and no entry of its own for it.
   */
  addWaiter?(waiter: AbortWaiter): void;
  /** Optional, with addWaiter: stops telling `waiter`. */
  removeWaiter?(waiter: AbortWaiter): void;
}

/** Something that stops waiting when its signal aborts. */
export interface AbortWaiter {
  /** The signal aborted: stop waiting with its reason. Called at most once per {@link waitOn}. */
  aborted(reason: unknown): void;
}

/** The waiters of one signal and the one listener that tells them. */
interface Waiting {
  readonly waiters: Set<AbortWaiter>;
  readonly listener: () => void;
}

/**
 * Weak: a signal nobody holds any more takes its entry with it (an entry lives only while one of
 * its waiters does, and each removes itself when it ends).
 */
const bySignal = new WeakMap<StopSignal, Waiting>();

/**
 * Adds `waiter` to the signal's waiters; the first one adds the signal's listener. The signal
 * must not be aborted yet (the caller rejects at once instead).
 */
export function waitOn(signal: StopSignal, waiter: AbortWaiter): void {
  if (signal.addWaiter) {
    signal.addWaiter(waiter);
    return;
  }
  let waiting = bySignal.get(signal);
  if (!waiting) {
    const waiters = new Set<AbortWaiter>();
    const listener = () => {
      bySignal.delete(signal);
      const reason = signal.reason ?? new Error('aborted');
      // Taken out before they are told, so that a waiter's stopWaiting from aborted() finds the
      // entry gone and a waiter added meanwhile gets a fresh listener.
      for (const each of [...waiters]) each.aborted(reason);
    };
    waiting = { waiters, listener };
    bySignal.set(signal, waiting);
    signal.addEventListener('abort', listener, { once: true });
  }
  waiting.waiters.add(waiter);
}

/** Takes `waiter` off the signal's waiters; the last one removes the signal's listener. */
export function stopWaiting(signal: StopSignal, waiter: AbortWaiter): void {
  if (signal.removeWaiter) {
    signal.removeWaiter(waiter);
    return;
  }
  const waiting = bySignal.get(signal);
  if (!waiting?.waiters.delete(waiter) || waiting.waiters.size > 0) return;
  bySignal.delete(signal);
  signal.removeEventListener('abort', waiting.listener);
}
