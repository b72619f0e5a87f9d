// A persistent watch seen as an async iterator of events: `for await (const e of zk.watch(p))`.
import { ErrorCode } from '../protocol/errors.js';
import type { PersistentListener, WatchRegistry } from '../session/watches.js';
import type { WatchedEvent } from './types.js';

export interface PersistentWatchDeps {
  registry: WatchRegistry;
  /**
   * Sends addWatch; `onReply` runs with the reply code before the promise settles, and also when
   * the reply comes after the call was given up (requestTimeout).
   */
  add(onReply: (err: number) => void): Promise<unknown>;
  /** Removes the watch on the server once no local listener needs it. Never rejects. */
  remove(): Promise<void>;
}

/** A persistent watch's events, plus `ready`: settled once the server has the watch. */
export interface PersistentWatchIterator extends AsyncIterableIterator<WatchedEvent> {
  /** Resolves once the watch is set on the server (rejects if it could not be set). */
  readonly ready: Promise<void>;
}

type Waiter = { resolve(r: IteratorResult<WatchedEvent>): void; reject(e: unknown): void };

export class PersistentWatch implements PersistentWatchIterator, PersistentListener {
  private readonly buffered: WatchedEvent[] = [];
  /** Callers of next() waiting for an event, oldest first (next() may be called concurrently). */
  private readonly waiters: Waiter[] = [];
  private finished = false;
  private failure: unknown = null;
  private registered = false;
  private readonly added: Promise<unknown>;
  /** The removal of a watch the server set after this iterator had already ended. */
  private undo: Promise<void> = Promise.resolve();

  constructor(
    private readonly path: string,
    private readonly recursive: boolean,
    private readonly signal: AbortSignal | undefined,
    private readonly deps: PersistentWatchDeps,
  ) {
    if (signal?.aborted) {
      this.finished = true;
      this.failure = signal.reason;
      this.added = Promise.resolve();
      return;
    }
    // While this add is in flight, the server watch it sets is needed even if another listener
    // of the path ends meanwhile; ended at the reply, or when the call is given up.
    const addDone = deps.registry.beginAdd(path);
    this.added = deps
      .add((err) => {
        addDone();
        // The server sets a persistent watch whether or not the node exists.
        if (err !== ErrorCode.OK && err !== ErrorCode.NONODE) return;
        if (!this.finished) {
          deps.registry.addPersistent(path, recursive, this);
          this.registered = true;
          return;
        }
        // Ended (abort, return(), requestTimeout) before the server answered: the server has
        // the watch anyway and would stream every change to us; take it off again.
        this.undo = deps.remove();
      })
      .catch((error: unknown) => this.finish(error))
      .finally(addDone);
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  get ready(): Promise<void> {
    return this.added.then(() => {
      if (!this.registered && this.failure !== null) throw this.failure;
    });
  }

  // Listened to only on a signal that was given, so its reason is set: the iterator ends with it
  // (no server code stands in for it).
  private readonly onAbort = () => {
    void this.stop(this.signal?.reason);
  };

  event(event: WatchedEvent): void {
    if (this.finished) return;
    const waiter = this.waiters.shift();
    if (waiter) waiter.resolve({ value: event, done: false });
    else this.buffered.push(event);
  }

  end(error: Error | null): void {
    this.registered = false;
    this.finish(error);
  }

  async next(): Promise<IteratorResult<WatchedEvent>> {
    await this.added;
    // Earlier callers first: an event buffered now belongs to a waiter queued before us.
    if (this.waiters.length === 0) {
      const event = this.buffered.shift();
      if (event) return { value: event, done: false };
    }
    if (this.finished) {
      if (this.failure !== null) throw this.failure;
      return { value: undefined, done: true };
    }
    return new Promise((resolve, reject) => {
      this.waiters.push({ resolve, reject });
    });
  }

  async return(): Promise<IteratorResult<WatchedEvent>> {
    await this.stop(null);
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<WatchedEvent> {
    return this;
  }

  private async stop(failure: unknown): Promise<void> {
    if (this.finished) return;
    this.finish(failure);
    await this.added;
    if (this.registered) {
      this.registered = false;
      this.deps.registry.removePersistent(this.path, this.recursive, this);
      await this.deps.remove();
    }
    await this.undo;
  }

  private finish(failure: unknown): void {
    if (this.finished) return;
    this.finished = true;
    this.failure = failure;
    this.signal?.removeEventListener('abort', this.onAbort);
    for (const waiter of this.waiters.splice(0)) {
      if (failure !== null) waiter.reject(failure);
      else waiter.resolve({ value: undefined, done: true });
    }
  }
}
