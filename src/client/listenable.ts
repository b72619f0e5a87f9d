/// <reference path="../disposable.ts" preserve="true" />
// The part of the one contract that is the same in every long-lived object: `on()` over the
// object's Listeners, and `await using` closing it. Written once here so that a recipe cannot
// drift from the others in how it listens or disposes.
import { type ErrorEvents, Listeners, type Unsubscribe } from './listeners.js';

/**
 * The base of every recipe with events: `on()` over its events map `E`, and
 * `[Symbol.asyncDispose]` calling its `close()`.
 */
export abstract class Listenable<E extends ErrorEvents> implements AsyncDisposable {
  /** @internal The object's listeners: it emits, reports and ends them. */
  protected readonly listeners: Listeners<E>;

  /** @param events Every event name the object has (`error` included): `on()` refuses others. */
  protected constructor(events: readonly (keyof E & string)[]) {
    this.listeners = new Listeners<E>(events);
  }

  /**
   * Listens to `event` (the object's events map names each one and what its listener is told);
   * returns the function that removes the listener. A listener that throws, or whose promise
   * rejects, never breaks the object: it is reported to the `error` listeners as a
   * `ListenerError` (to `console.error` when there are none). After `close()` nothing is called.
   */
  on<K extends keyof E & string>(event: K, listener: E[K]): Unsubscribe {
    return this.listeners.on(event, listener);
  }

  /** Idempotent: every call returns the same promise. */
  abstract close(): Promise<void>;

  /** What `await using` calls: `close()`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
