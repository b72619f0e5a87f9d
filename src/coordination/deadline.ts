// The one deadline mechanism of the library: every wait (a lock's acquire, an election, a barrier,
// a cache's sync) is bounded by a Bound, which ends on the caller's signal or at its deadline.
// Deadlines do not cost a timer each: the waits of one client share one timer (see Deadlines),
// and the AbortSignal a wait's slower steps pass to the client's calls is made only when one of
// them asks for it. An acquire with a timeout thus costs one small object more than one without.
import { type AbortWaiter, stopWaiting, waitOn } from '../session/signal-waiters.js';

/** Makes a wait's timeout error, given the timeout in ms (called only when the deadline passes). */
export type TimeoutErrorOf = (timeout: number) => unknown;

/** Something a Bound tells when it ends (before anyone else hears of it). */
export interface BoundWaiter {
  /** The bound ended: `reason` is the caller's signal's reason or the timeout's error. */
  boundEnded(reason: unknown): void;
}

const now: () => number =
  typeof performance !== 'undefined' ? () => performance.now() : () => Date.now();

/**
 * The bound of one wait: the caller's `signal`, a deadline, both, or neither. Ends once, with the
 * first of them; `end()` says the wait is over (it leaves the timer and the caller's signal).
 */
export class Bound implements AbortWaiter {
  /** Set once the bound ended: why (the signal's reason, or the timeout's error). */
  reason: unknown;
  /** Whether the bound ended. */
  ended = false;
  /** @internal The deadline, on the clock of `now()`; Infinity without one. */
  at = Number.POSITIVE_INFINITY;
  /** @internal The timeout in ms, once the bound is on a timer (its error names it). */
  timeout = 0;
  /** @internal Neighbours in the shared timer's list of this duration. */
  prev: Bound | undefined;
  /** @internal */
  next: Bound | undefined;
  /** @internal The list this bound is in, while it is in one. */
  list: DeadlineList | undefined;
  private controller: AbortController | undefined;
  private waiters: BoundWaiter | BoundWaiter[] | undefined;
  /** Whether this bound is among the waiters of the caller's signal (one listener for all). */
  private listening = false;

  /**
   * @param outer the caller's signal, listened to until `end()`
   * @param timeoutError made when the deadline passes (so a timeout's error is built only then),
   *   given the timeout in ms; one function can serve every wait of a lock
   * @param stop a signal of the waiting object's whole life (its close), which ends the bound as
   *   the caller's does: no AbortSignal.any per wait to join the two
   */
  constructor(
    private readonly outer: AbortSignal | undefined,
    private readonly timeoutError: TimeoutErrorOf | undefined,
    private readonly stop?: AbortSignal,
  ) {
    if (outer?.aborted) {
      this.ended = true;
      this.reason = outer.reason;
    } else if (stop?.aborted) {
      this.ended = true;
      this.reason = stop.reason;
    } else if (outer || stop) {
      // One listener on each signal for all its waits (see waitOn): many acquires given one
      // signal would otherwise pass Node's limit of 10 and print MaxListenersExceededWarning.
      this.listening = true;
      if (outer) waitOn(outer, this);
      if (stop) waitOn(stop, this);
    }
  }

  /**
   * A signal that aborts when the bound ends, for the calls of a wait's slower steps. Made on the
   * first read only: the hot path of a wait never reads it. A bound of one signal and no
   * deadline hands out that signal itself.
   */
  get signal(): AbortSignal {
    if (this.timeoutError === undefined) {
      if (this.outer && !this.stop) return this.outer;
      if (this.stop && !this.outer) return this.stop;
    }
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.ended) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** Adds `waiter` to those told when the bound ends (at once if it has ended). */
  listen(waiter: BoundWaiter): void {
    if (this.ended) {
      waiter.boundEnded(this.reason);
      return;
    }
    const waiters = this.waiters;
    if (waiters === undefined) this.waiters = waiter;
    else if (Array.isArray(waiters)) waiters.push(waiter);
    else this.waiters = [waiters, waiter];
  }

  /** Stops telling `waiter`. */
  unlisten(waiter: BoundWaiter): void {
    const waiters = this.waiters;
    if (waiters === waiter) this.waiters = undefined;
    else if (Array.isArray(waiters)) {
      const at = waiters.indexOf(waiter);
      if (at >= 0) waiters.splice(at, 1);
    }
  }

  /** @internal The caller's signal aborted (told by its one listener). */
  aborted(reason: unknown): void {
    // Still listening to the other signal, if any: end() leaves it (and the aborted one's entry
    // is gone already, so leaving that one is a no-op).
    this.finish(reason);
  }

  /** @internal The deadline passed (called by the shared timer). */
  expired(): void {
    this.finish(this.timeoutError!(this.timeout));
  }

  /** The wait is over: the bound leaves the shared timer and the caller's signal. Idempotent. */
  end(): void {
    this.waiters = undefined;
    if (this.list) this.list.owner.remove(this);
    if (this.listening) {
      this.listening = false;
      if (this.outer) stopWaiting(this.outer, this);
      if (this.stop) stopWaiting(this.stop, this);
    }
  }

  private finish(reason: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.reason = reason;
    const waiters = this.waiters;
    this.end();
    this.controller?.abort(reason);
    if (waiters === undefined) return;
    if (Array.isArray(waiters)) for (const waiter of waiters) waiter.boundEnded(reason);
    else waiters.boundEnded(reason);
  }
}

/** The bounds of one duration, in deadline order (each was added `duration` after the last). */
interface DeadlineList {
  readonly owner: Deadlines;
  head: Bound | undefined;
  tail: Bound | undefined;
}

type Timer = ReturnType<typeof setTimeout>;

/** Bounds waiting on any Deadlines of this module instance. */
let waitingEverywhere = 0;

/**
 * @internal The bounds waiting on every client's timer together. A timer holds the process only
 * while bounds wait on it, so 0 means no deadline timer holds it (for tests: waits that ended
 * leave none).
 */
export function boundsWaiting(): number {
  return waitingEverywhere;
}

/**
 * The deadlines of one client's waits on one timer. Bounds of the same duration are added in
 * deadline order, so each duration keeps a list that only grows at its tail: adding and removing
 * a bound is a few pointer writes. The timer is armed for the earliest deadline and left armed
 * while other bounds come and go (a bound that ends before its deadline, the common case,
 * touches no timer while others wait); when it fires it ends the bounds that are due and re-arms
 * for the next.
 *
 * When the last bound ends, the timer stays armed but stops holding the process (Node's and
 * Bun's `unref`): the next wait, most often the next acquire a moment later, takes it up again
 * with a `ref` instead of paying a setTimeout and a clearTimeout of its own, and if none comes it
 * fires once, finds nothing due and is gone. A runtime whose timers cannot be unref'd (an id
 * number: Deno, workerd, browsers) clears it instead, as does a client whose timer functions
 * were replaced meanwhile (a test's fake timers installed or removed).
 */
export class Deadlines {
  private readonly lists = new Map<number, DeadlineList>();
  private timer: Timer | undefined;
  /** The clearTimeout that goes with the armed timer (of the functions it was armed with). */
  private clear: typeof clearTimeout = clearTimeout;
  /** The setTimeout the timer was armed with: a different one now means a swapped clock. */
  private armedWith: typeof setTimeout | undefined;
  /** When the armed timer fires; Infinity when none is armed. */
  private armedFor = Number.POSITIVE_INFINITY;
  /** Bounds waiting. */
  private count = 0;
  private readonly fire = () => this.fired();

  /** The number of bounds waiting (for tests: a wait that ended leaves none). */
  get size(): number {
    return this.count;
  }

  /** Whether a timer is armed, holding the process or not (for tests). */
  get armed(): boolean {
    return this.timer !== undefined;
  }

  /** Whether the timer holds the process: only while a bound waits (for tests). */
  get holdsProcess(): boolean {
    return this.timer !== undefined && this.count > 0;
  }

  /** Puts `bound` on this timer, to end `duration` ms from now. */
  add(bound: Bound, duration: number): void {
    let list = this.lists.get(duration);
    if (list === undefined) {
      list = { owner: this, head: undefined, tail: undefined };
      this.lists.set(duration, list);
    }
    const at = now() + duration;
    bound.at = at;
    bound.timeout = duration;
    bound.list = list;
    bound.prev = list.tail;
    bound.next = undefined;
    if (list.tail) list.tail.next = bound;
    else list.head = bound;
    list.tail = bound;
    waitingEverywhere++;
    if (this.count++ === 0 && this.timer !== undefined) this.resume();
    if (at < this.armedFor) this.arm(at);
  }

  /** Takes `bound` off this timer. */
  remove(bound: Bound): void {
    const list = bound.list!;
    if (bound.prev) bound.prev.next = bound.next;
    else list.head = bound.next;
    if (bound.next) bound.next.prev = bound.prev;
    else list.tail = bound.prev;
    bound.list = undefined;
    bound.prev = undefined;
    bound.next = undefined;
    waitingEverywhere--;
    if (--this.count === 0 && this.timer !== undefined) this.idle();
  }

  /** No bound waits: the timer stays armed without holding the process, or goes. */
  private idle(): void {
    const timer = this.timer as { unref?: unknown } | number;
    if (typeof timer === 'object' && typeof timer.unref === 'function') timer.unref();
    else this.disarm();
  }

  /** A bound waits again while the idle timer is armed: it holds the process again. */
  private resume(): void {
    const timer = this.timer as { ref?: unknown } | number;
    if (
      this.armedWith === setTimeout &&
      typeof timer === 'object' &&
      typeof timer.ref === 'function'
    ) {
      timer.ref();
    } else {
      this.disarm();
    }
  }

  private disarm(): void {
    const clear = this.clear; // called as a plain function: a browser's needs no `this`
    clear(this.timer);
    this.timer = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
  }

  private fired(): void {
    this.timer = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
    const time = now();
    let next = Number.POSITIVE_INFINITY;
    for (const [duration, list] of this.lists) {
      while (list.head !== undefined && list.head.at <= time) {
        const due = list.head;
        this.remove(due);
        due.expired();
      }
      if (list.head === undefined) this.lists.delete(duration);
      else if (list.head.at < next) next = list.head.at;
    }
    // A bound added by a waiter told above may have armed the timer already, possibly earlier.
    if (next < this.armedFor) this.arm(next);
  }

  private arm(at: number): void {
    if (this.timer !== undefined) {
      const clear = this.clear;
      clear(this.timer);
    }
    this.armedFor = at;
    this.armedWith = setTimeout;
    this.clear = clearTimeout;
    // A timer may fire a fraction of a millisecond before `at` by this clock: it then finds
    // nothing due and is armed again, so a deadline never ends a wait early.
    this.timer = setTimeout(this.fire, Math.max(0, Math.ceil(at - now())));
  }
}

const byOwner = new WeakMap<object, Deadlines>();

/** The owner of the waits of no one client in particular (a MultiLock's, say): one timer for all. */
const unowned = {};

/** The shared timer of the waits of `owner` (a client); without one, that of unowned waits. */
export function deadlinesOf(owner: object = unowned): Deadlines {
  let deadlines = byOwner.get(owner);
  if (deadlines === undefined) {
    deadlines = new Deadlines();
    byOwner.set(owner, deadlines);
  }
  return deadlines;
}

/** The ms left until `bound`'s deadline (Infinity without one), on the clock of the timers. */
export function timeLeft(bound: Bound): number {
  return bound.at - now();
}

/** Whether `timeout` is undefined or a non-negative finite number of ms. */
export function isTimeoutValue(timeout: unknown): timeout is number | undefined {
  return (
    timeout === undefined ||
    (typeof timeout === 'number' && timeout >= 0 && Number.isFinite(timeout))
  );
}

/** Throws `error()` unless `timeout` is undefined or a non-negative finite number of ms. */
export function checkTimeout(timeout: unknown, error: (message: string) => Error): void {
  if (!isTimeoutValue(timeout)) {
    throw error(`timeout must be a non-negative number of ms, got ${String(timeout)}`);
  }
}

/**
 * Starts the bound of one wait on `deadlines`: ends with the caller's `signal`, or `timeout` ms
 * from now with `timeoutError()`. A timeout of 0 or none puts nothing on the timer.
 */
export function startBound(
  deadlines: Deadlines,
  timeout: number | undefined,
  signal: AbortSignal | undefined,
  timeoutError: TimeoutErrorOf,
): Bound {
  const timed = timeout !== undefined && timeout > 0;
  const bound = new Bound(signal, timed ? timeoutError : undefined);
  if (timed && !bound.ended) deadlines.add(bound, timeout);
  return bound;
}
