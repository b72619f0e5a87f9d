// The one way to listen, shared by the client and every recipe: `on(event, listener)` returns the
// unsubscribe function; `events()`-style streams are async iterators over one event. A listener
// that throws (or returns a promise that rejects) never breaks the object that called it and never
// reaches the process as an uncaught error: it is reported as a ListenerError to the object's
// `error` listeners, or to `console.error` when there are none.
import { InvalidArgumentError, makeError, ZooKeeperError } from '../protocol/errors.js';
import type { SessionRelay } from '../session/context.js';
import type { SessionRenewal } from '../session/renewal.js';
import type { SessionState } from '../session/types.js';
import type { ClientEvents, StateChange } from './types.js';

/** Removes the listener it was returned for. Calling it again does nothing. */
export type Unsubscribe = () => void;

/**
 * The events of an object with `on()`: each event's name, and the listener it calls. Every map
 * has `error`: what the object could not hand to anyone else (a listener that threw, a background
 * failure it retries through).
 */
export interface ErrorEvents {
  /** Told of a {@link ListenerError}, or of an error the object keeps retrying through. */
  error: (error: Error) => void;
}

/** A listener threw (or its promise rejected) while it handled `event`; `cause` is what it threw. */
export class ListenerError extends Error {
  /** The class name, for logs. */
  override name = 'ListenerError';
  /** The event whose listener threw. */
  readonly event: string;

  constructor(event: string, cause: unknown) {
    super(`a listener of "${event}" threw: ${String(cause)}`, { cause });
    this.event = event;
  }
}

// biome-ignore lint/suspicious/noExplicitAny: a listener's own parameters are checked by the map
type AnyListener = (...args: any[]) => unknown;
/** The arguments a listener of type `F` takes. */
type Args<F> = F extends (...args: infer A) => unknown ? A : never;

/**
 * @internal The listeners of one object, by event; see the module comment for the rules. The
 * map, each event's set and the set of streams are made when first needed: a client that nobody
 * listens to (most of the thousands a process may hold) carries none of them.
 */
export class Listeners<E extends ErrorEvents> {
  private byEvent: Map<keyof E, Set<AnyListener>> | null = null;
  private streams: Set<Stream<unknown>> | null = null;
  private ended = false;

  /**
   * @param events Every event name the object has (`error` included): `on()` refuses others.
   */
  constructor(private readonly events: readonly (keyof E & string)[]) {}

  /** Whether the object has `event` (every object has `error`). */
  private knows(event: keyof E): boolean {
    return event === 'error' || this.events.includes(event as keyof E & string);
  }

  /** The listeners of `event` (made on first use); undefined for an event the object lacks. */
  private setOf(event: keyof E): Set<AnyListener> | undefined {
    const existing = this.byEvent?.get(event);
    if (existing !== undefined) return existing;
    if (!this.knows(event)) return undefined;
    const made = new Set<AnyListener>();
    this.byEvent ??= new Map();
    this.byEvent.set(event, made);
    return made;
  }

  /** Adds `listener` for `event`; returns the function that removes it. */
  on<K extends keyof E & string>(event: K, listener: E[K]): Unsubscribe {
    if (!this.knows(event)) {
      throw new InvalidArgumentError(`unknown event "${String(event)}"`);
    }
    if (typeof listener !== 'function') {
      throw new InvalidArgumentError('listener must be a function');
    }
    // A listener added twice is called twice and removed once per unsubscribe: wrap each one.
    const entry: AnyListener = (...args) => (listener as AnyListener)(...args);
    if (this.ended) return () => {};
    const set = this.setOf(event)!;
    set.add(entry);
    return () => {
      set.delete(entry);
    };
  }

  /** True when `event` has a listener or a stream. */
  has(event: keyof E & string): boolean {
    return (this.byEvent?.get(event)?.size ?? 0) > 0;
  }

  /** Calls every listener of `event` with `args`, each guarded (see the module comment). */
  emit<K extends keyof E & string>(event: K, ...args: Args<E[K]>): void {
    const set = this.byEvent?.get(event);
    if (set === undefined || set.size === 0) return;
    for (const listener of [...set]) {
      try {
        const result = listener(...args);
        if (isThenable(result)) {
          result.then(undefined, (error: unknown) => this.listenerFailed(event, error));
        }
      } catch (error) {
        this.listenerFailed(event, error);
      }
    }
  }

  /** Tells the `error` listeners of a failure the object keeps going through; dropped if none. */
  report(error: unknown): void {
    const set = this.byEvent?.get('error');
    if (set === undefined || set.size === 0) return;
    const reported = error instanceof Error ? error : new Error(String(error), { cause: error });
    for (const listener of [...set]) {
      try {
        const result = listener(reported);
        if (isThenable(result)) result.then(undefined, lastResort);
      } catch (thrown) {
        lastResort(thrown);
      }
    }
  }

  /**
   * The first argument of every `event` from now on, as an async iterator: buffered until read,
   * done when the object ends (see {@link end}) or the iteration is ended (`break`, `return()`).
   */
  stream<K extends keyof E & string>(event: K): AsyncIterableIterator<Args<E[K]>[0]> {
    type T = Args<E[K]>[0];
    if (!this.knows(event)) {
      throw new InvalidArgumentError(`unknown event "${String(event)}"`);
    }
    const stream: Stream<T> = new Stream<T>(() => {
      this.byEvent?.get(event)?.delete(push);
      this.streams?.delete(stream as Stream<unknown>);
    });
    const push = (value: T) => stream.push(value);
    if (this.ended) stream.end();
    else {
      this.setOf(event)!.add(push);
      this.streams ??= new Set();
      this.streams.add(stream as Stream<unknown>);
    }
    return stream;
  }

  /** Drops every listener of `event` (a one-time event that has happened). */
  clear(event: keyof E & string): void {
    this.byEvent?.get(event)?.clear();
  }

  /** The object was closed: streams finish (after what they buffered), listeners are dropped. */
  end(): void {
    this.ended = true;
    if (this.streams) for (const stream of this.streams) stream.end();
    this.streams?.clear();
    if (this.byEvent) for (const set of this.byEvent.values()) set.clear();
  }

  private listenerFailed(event: string, error: unknown): void {
    const wrapped = new ListenerError(event, error);
    if (event === 'error' || !this.has('error')) lastResort(wrapped);
    else this.report(wrapped);
  }
}

/** A listener error that nobody listens for: written to the console, never thrown. */
function lastResort(error: unknown): void {
  try {
    console.error('zookeeper-ts: a listener threw; the object carries on:', error);
  } catch {
    // Nowhere left to report it; the object must still carry on.
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** @internal A buffered async iterator of pushed values, ended by `end()` or the reader's `return()`. */
export class Stream<T> implements AsyncIterableIterator<T> {
  private readonly buffered: T[] = [];
  private readonly waiters: Array<(result: IteratorResult<T>) => void> = [];
  private done = false;

  constructor(private readonly detach: () => void) {}

  push(value: T): void {
    if (this.done) return;
    const waiter = this.waiters.shift();
    if (waiter) waiter({ value, done: false });
    else this.buffered.push(value);
  }

  end(): void {
    this.done = true;
    for (const waiter of this.waiters.splice(0)) waiter({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<T>> {
    if (this.buffered.length > 0) {
      return Promise.resolve({ value: this.buffered.shift() as T, done: false });
    }
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  return(): Promise<IteratorResult<T>> {
    this.detach();
    this.buffered.length = 0;
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}

/** @internal What a client's state listener is told: the previous state, the cause typed. */
export function stateChange(previous: SessionState, cause: Error | undefined): StateChange {
  if (cause === undefined) return { previous };
  // A runtime error (ECONNRESET, a TLS alert) broke the link: a connection loss caused by it.
  const typed =
    cause instanceof ZooKeeperError
      ? cause
      : makeError('CONNECTIONLOSS', `the connection was lost: ${cause.message}`, { cause });
  return { previous, cause: typed };
}

/**
 * @internal Hands the session's state moves and renewals to the client's listeners: one object with
 * prototype methods per client instead of two closures subscribed to its session.
 */
export class ClientRelay implements SessionRelay {
  constructor(private readonly listeners: Listeners<ClientEvents>) {}

  stateChanged(state: SessionState, previous: SessionState, cause: Error | undefined): void {
    this.listeners.emit('state', state, stateChange(previous, cause));
  }

  renewed(renewal: SessionRenewal): void {
    this.listeners.emit('renewed', renewal);
  }
}
