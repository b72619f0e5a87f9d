// A persistent watch seen as an async iterator of events: `for await (const e of zk.watch(p))`.
import { ZooKeeperError } from '../protocol/errors.js';
import type { WatchedEvent } from './types.js';
import type { PersistentListener, WatchRegistry } from './watches.js';

const NONODE = -101;

export interface PersistentWatchDeps {
  registry: WatchRegistry;
  /** Sends addWatch; `onReply` runs with the reply code before the promise settles. */
  add(onReply: (err: number) => void): Promise<unknown>;
  /** Removes the watch on the server once no local listener needs it. */
  remove(): Promise<void>;
}

/** A persistent watch's events, plus `ready`: settled once the server has the watch. */
export interface PersistentWatchIterator extends AsyncIterableIterator<WatchedEvent> {
  /** Resolves once the watch is set on the server (rejects if it could not be set). */
  readonly ready: Promise<void>;
}

export class PersistentWatch implements PersistentWatchIterator, PersistentListener {
  private readonly buffered: WatchedEvent[] = [];
  private waiter: {
    resolve(r: IteratorResult<WatchedEvent>): void;
    reject(e: unknown): void;
  } | null = null;
  private finished = false;
  private failure: unknown = null;
  private registered = false;
  private readonly added: Promise<unknown>;

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
    this.added = deps
      .add((err) => {
        // The server sets a persistent watch whether or not the node exists.
        if ((err === 0 || err === NONODE) && !this.finished) {
          deps.registry.addPersistent(path, recursive, this);
          this.registered = true;
        }
      })
      .catch((error: unknown) => this.finish(error));
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  get ready(): Promise<void> {
    return this.added.then(() => {
      if (!this.registered && this.failure !== null) throw this.failure;
    });
  }

  private readonly onAbort = () => {
    void this.stop(this.signal?.reason ?? new ZooKeeperError('OPERATIONTIMEOUT', 'watch aborted'));
  };

  event(event: WatchedEvent): void {
    if (this.finished) return;
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = null;
      waiter.resolve({ value: event, done: false });
    } else {
      this.buffered.push(event);
    }
  }

  end(error: Error | null): void {
    this.registered = false;
    this.finish(error);
  }

  async next(): Promise<IteratorResult<WatchedEvent>> {
    await this.added;
    const event = this.buffered.shift();
    if (event) return { value: event, done: false };
    if (this.finished) {
      if (this.failure !== null) throw this.failure;
      return { value: undefined, done: true };
    }
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
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
  }

  private finish(failure: unknown): void {
    if (this.finished) return;
    this.finished = true;
    this.failure = failure;
    this.signal?.removeEventListener('abort', this.onAbort);
    const waiter = this.waiter;
    this.waiter = null;
    if (!waiter) return;
    if (failure !== null) waiter.reject(failure);
    else waiter.resolve({ value: undefined, done: true });
  }
}
