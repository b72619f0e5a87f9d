// A wait's Bound as the signal its slower steps hand to the client's calls, to retries and to
// pauses: read as an AbortSignal is (aborted, reason, abort listeners), so the code written for
// signals takes it unchanged, but with no AbortController made per wait. The session waits on it
// through addWaiter (no listener function per request), and it listens to its Bound once, on the
// first step that asks: a wait whose steps all finish before it ends costs one small object.
import type { CallOptions } from '../client/types.js';
import { TimeoutError } from '../protocol/errors.js';
import type { AbortWaiter, StopSignal } from '../session/signal-waiters.js';
import { type Bound, type BoundWaiter, timeLeft } from './deadline.js';

type Listener = AbortWaiter | (() => void);

/**
 * A {@link Bound} read as a {@link StopSignal}: it stops when the bound ends (the caller's
 * signal, the timeout, the waiting object's close), with the bound's reason. A wait that ends
 * (`bound.end()`) without being stopped leaves it never stopping, as an AbortController's signal
 * that is never aborted.
 */
export class BoundSignal implements StopSignal, BoundWaiter {
  private listeners: Listener[] | undefined;
  /** Whether this is among the bound's waiters (from the first listener on). */
  private listening = false;

  constructor(private readonly bound: Bound) {}

  /** Whether the bound ended. */
  get aborted(): boolean {
    return this.bound.ended;
  }

  /** Why the bound ended: the caller's signal's reason or the timeout's error. */
  get reason(): unknown {
    return this.bound.reason;
  }

  /** Tells `waiter` when the bound ends (see StopSignal.addWaiter). */
  addWaiter(waiter: AbortWaiter): void {
    this.add(waiter);
  }

  /** Stops telling `waiter`. */
  removeWaiter(waiter: AbortWaiter): void {
    this.remove(waiter);
  }

  /** Calls `listener` once when the bound ends; never when it has already (as a signal's). */
  addEventListener(_type: 'abort', listener: () => void): void {
    this.add(listener);
  }

  /** Stops calling `listener`. */
  removeEventListener(_type: 'abort', listener: () => void): void {
    this.remove(listener);
  }

  /** @internal The bound ended: tells every listener, once. */
  boundEnded(reason: unknown): void {
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners === undefined) return;
    for (const listener of listeners) {
      if (typeof listener === 'function') listener();
      else listener.aborted(reason);
    }
  }

  private add(listener: Listener): void {
    if (this.bound.ended) return;
    if (!this.listening) {
      this.listening = true;
      this.bound.listen(this);
    }
    if (this.listeners === undefined) this.listeners = [listener];
    else this.listeners.push(listener);
  }

  private remove(listener: Listener): void {
    const listeners = this.listeners;
    if (listeners === undefined) return;
    const at = listeners.lastIndexOf(listener);
    if (at >= 0) listeners.splice(at, 1);
  }
}

/**
 * `options` made to stop with `stop`: an AbortSignal goes in `signal` (where a client wrapper
 * looks for it), a wait's own stop in the internal `stop`. Returns `options`.
 */
export function stopping<T extends object>(
  options: T,
  stop: StopSignal | undefined,
): T & CallOptions {
  const call: T & CallOptions = options;
  if (stop instanceof AbortSignal) call.signal = stop;
  else if (stop !== undefined) call.stop = stop;
  return call;
}

/** How long an acquire made inside a bounded wait may wait: the caller's signal, and a timeout. */
export interface InnerWait {
  signal?: AbortSignal;
  timeout?: number;
}

/**
 * The bound of a lock acquire made inside a wait bounded by `bound` (a Semaphore's guard, a
 * TimeLease's slot mutex), which takes only an AbortSignal and a timeout: the caller's `signal`,
 * and the time left of the bound's deadline in whole ms, rounded down (and a millisecond less)
 * so that the inner acquire has given up (its listener off the caller's signal) by the time the
 * wait ends, unless the process stalls between the two readings of the clock. Undefined when
 * less than 1 ms is left: the wait is about to end (see {@link untilEnded}).
 */
export function innerWait(
  bound: Bound | undefined,
  signal: AbortSignal | undefined,
): InnerWait | undefined {
  const left = bound === undefined ? Number.POSITIVE_INFINITY : timeLeft(bound);
  if (!Number.isFinite(left)) return { signal };
  const whole = Math.floor(left);
  if (whole < 1) return undefined;
  // A millisecond early where there is room: the inner acquire starts its clock a moment after
  // this reads the time left.
  return { signal, timeout: whole > 1 ? whole - 1 : whole };
}

/**
 * For an inner acquire's failure: a timeout of its own (rounded down, it may come a moment
 * before the wait's) waits for the wait's bound to end and rejects with its reason, so that the
 * caller hears the wait's own error at its time; any other error is thrown as it is.
 */
export function untilEnded(stop: StopSignal | undefined, error?: unknown): Promise<never> {
  if (stop === undefined || (error !== undefined && !(error instanceof TimeoutError))) {
    return Promise.reject(error);
  }
  // A promise of its own, not a shared one that never settles: that one would keep every
  // reaction added to it.
  return new Promise<never>((_resolve, reject) => {
    if (stop.aborted) reject(stop.reason);
    else stop.addEventListener('abort', () => reject(stop.reason), { once: true });
  });
}

/**
 * A lock acquire made inside a wait (a Semaphore's guard, a TimeLease's slot mutex): `acquire`
 * with `wait` (see {@link innerWait}), its own timeout answered by the wait's end (see
 * {@link untilEnded}); with no `wait` (the deadline is due) the wait's end itself.
 */
export function acquireInside<T>(
  wait: InnerWait | undefined,
  stop: StopSignal | undefined,
  acquire: (wait: InnerWait) => Promise<T>,
): Promise<T> {
  if (wait === undefined) return untilEnded(stop);
  return acquire(wait).catch((error: unknown) => untilEnded(stop, error));
}
