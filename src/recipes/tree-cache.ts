/// <reference path="../disposable.ts" preserve="true" />
// A local mirror of a node and its subtree (Curator's CuratorCache, kazoo's TreeCache): an initial
// load, then kept current by one persistent recursive watch; every event is answered by reading
// the node again, so the mirror holds what the server said, never what an event implied.
import { Listenable } from '../client/listenable.js';
import type { RecipeClient } from '../client/recipe-client.js';
import type { Stat, WatchedEvent } from '../client/types.js';
import { stopping } from '../coordination/bound-signal.js';
import { type BoundOptions, waitBounded } from '../coordination/bounded.js';
import { hasCode } from '../coordination/codes.js';
import { childPath } from '../coordination/naming.js';
import { abortable } from '../coordination/wait.js';
import { ClosedError, makeError } from '../protocol/errors.js';
import { backoffDelay, pause } from './retry.js';
import { CacheScope, childNames } from './tree-cache-scope.js';
import { PendingReads, syncCache, untilDone } from './tree-cache-sync.js';
import {
  type CachedNode,
  TREE_CACHE_EVENTS,
  type TreeCacheEvent,
  type TreeCacheEvents,
  type TreeCacheOptions,
} from './tree-cache-types.js';
import { checkWaitOptions, startWait, type WaitOptions } from './wait.js';

/**
 * A mirror of `root` and its subtree in memory. `start()` sets one persistent recursive watch
 * (server 3.6+) and then reads the tree; each event the watch reports makes the cache read that
 * node again. Reads ({@link get}, {@link childrenOf}) answer from memory.
 *
 * Consistency: the mirror follows the server's order of changes as this session sees them (one
 * session's replies come in order, and every reply is applied as it comes), so it never goes back
 * in time, but it lags behind the server by at least a round trip, and changes in quick
 * succession may be seen as one. It is the server's tree at every quiescent point. For a read
 * that must include every change committed before it (by any client, on any server of the
 * ensemble), `await cache.sync()` first (see {@link sync}).
 *
 * At a reconnect, changes made while the link was down produce no events: the cache re-reads
 * the whole tree, reports the differences, then a `resync` event with cause `'reconnect'`. At a
 * session renewal it does the same with cause `'renewal'`; with renewal off, the expiry ends the
 * watch and the cache stops (its contents stay, no longer updated). No nodes are created.
 */
export class TreeCache extends Listenable<TreeCacheEvents> {
  private readonly nodes = new Map<string, CachedNode>();
  private readonly maxDepth: number;
  private readonly scope: CacheScope;
  private readonly stop = new AbortController();
  private watching: ReturnType<RecipeClient['watch']> | undefined;
  /** The background work of the first `start()`: the watch set and the initial load done. */
  private first: Promise<void> | undefined;
  private closed: Promise<void> | undefined;
  /** The error that ended the cache before it was ever loaded (a refused ACL, an old server). */
  private failure: unknown;
  private initialized = false;
  /** A reconnect or renewal came during the initial load: resync once it is done. */
  private missedDuringLoad: 'reconnect' | 'renewal' | undefined;
  /** Paths read since the current resync began (undefined outside a resync). */
  private touched: Set<string> | undefined;
  private resyncing: Promise<void> | undefined;
  /** The initial load while it runs. */
  private loading: Promise<unknown> | undefined;
  /** The refresh reads in flight (see {@link sync}). */
  private readonly reads = new PendingReads();
  /** Nodes whose last refresh read failed for a reason other than NONODE. */
  private readonly failed = new Set<string>();
  /** Why the cache no longer follows the server, once its watch ended without close(). */
  private ended: Error | undefined;

  /**
   * @param client The client to use.
   * @param root The root of the mirrored subtree.
   * @param options Depth limit and filter.
   */
  constructor(
    private readonly client: RecipeClient,
    readonly root: string,
    options: TreeCacheOptions = {},
  ) {
    super(TREE_CACHE_EVENTS);
    this.scope = CacheScope.of(root, options);
    this.maxDepth = this.scope.maxDepth;
  }

  /**
   * Sets the watch, loads the tree, and resolves once the `initialized` event is out. A lost
   * connection or a renewal on the way is waited out (the cache keeps trying); an error it
   * cannot get past (an old server without persistent watches, a refused ACL, the session over)
   * ends the cache and rejects. Rejects with a `TimeoutError` after `timeout` ms and with the
   * signal's reason on abort (the cache keeps trying: `close()` it), and with a `ClosedError`
   * after `close()`. A second call waits for the same outcome.
   */
  start(options: BoundOptions = {}): Promise<void> {
    try {
      checkWaitOptions(options, this.root);
    } catch (error) {
      return Promise.reject(error);
    }
    if (this.stop.signal.aborted) return Promise.reject(this.failure ?? this.stop.signal.reason);
    if (!this.first) {
      this.first = this.begin();
      this.first.catch(() => {});
    }
    return waitBounded(this.first, options, `the initial load of ${this.root}`, this.client);
  }

  /**
   * Resolves once the cache holds every change committed before the call, by any client on any
   * server of the ensemble: read from the cache right after it for an answer that is current
   * (as `client.sync(path)` before a read). It syncs the server with the leader, whose reply
   * comes after the watch events of those changes, lets the cache take those events and waits
   * for the reads they started (and a resync under way). After a lost link it waits for the
   * resync of the reconnect. Called while `start()` still loads, it waits for that load first.
   *
   * Rejects with a `TimeoutError` after `timeout` ms, with the signal's reason when it aborts,
   * with BADARGUMENTS before {@link start}, with a `ClosedError` when the cache is closed (before
   * or meanwhile), and with SESSIONEXPIRED when its watch ended (the session expired with
   * renewal off): such a cache is no longer kept current.
   */
  async sync(options: WaitOptions = {}): Promise<void> {
    if (this.stop.signal.aborted) throw this.failure ?? this.stop.signal.reason;
    if (!this.first) {
      throw makeError('BADARGUMENTS', 'start() the cache before sync()', { path: this.root });
    }
    const first = this.first;
    const bound = startWait(options, this.root, { client: this.client, stop: this.stop.signal });
    try {
      const signal = bound.signal;
      await abortable(first, signal);
      await syncCache(
        {
          root: this.root,
          reads: this.reads,
          sync: (signal) => this.client.sync(this.root, stopping({}, signal)),
          loads: () => [this.loading, this.resyncing].filter((p) => p !== undefined),
          stopped: () =>
            this.stop.signal.aborted ? (this.stop.signal.reason as Error) : this.ended,
          rereadFailed: () => {
            const paths = [...this.failed];
            this.failed.clear();
            for (const path of paths) this.refresh(path);
          },
        },
        signal,
      );
    } catch (error) {
      throw bound.timedOut() ? bound.signal.reason : error;
    } finally {
      bound.dispose();
    }
  }

  /**
   * The cached node at `path`, or undefined when it does not exist (as last read). Throws
   * BADARGUMENTS for a path the cache does not mirror: outside its root, deeper than `maxDepth`,
   * or rejected by the filter (the cache cannot tell whether such a node exists).
   */
  get(path: string): CachedNode | undefined {
    this.scope.check(path, false);
    return this.nodes.get(path);
  }

  /**
   * The names of the cached children of `path`, sorted: `[]` when the node has none, undefined
   * when the node itself does not exist (as last read). Children the filter rejects are not
   * listed. Throws BADARGUMENTS for a path whose children the cache does not mirror: outside its
   * root, at `maxDepth` or deeper, or rejected by the filter.
   */
  childrenOf(path: string): string[] | undefined {
    this.scope.check(path, true);
    if (!this.nodes.has(path)) return undefined;
    return childNames(this.nodes.keys(), path);
  }

  /** Every cached node, in no particular order. */
  entries(): IterableIterator<CachedNode> {
    return this.nodes.values();
  }

  /** How many nodes are cached. */
  get size(): number {
    return this.nodes.size;
  }

  /**
   * Every event from now on as an async iterator; it ends when the cache is closed. Events wait
   * in memory until they are read: iterate, or end the iteration (`break`, `return()`).
   */
  events(): AsyncIterableIterator<TreeCacheEvent> {
    return this.listeners.stream('event');
  }

  /**
   * Removes the watch and ends the event iterators and listeners; a `start()` or `sync()` still
   * waiting rejects with a `ClosedError`, and so do later calls. The cached contents stay
   * readable. Idempotent: every call returns the same promise.
   */
  close(): Promise<void> {
    this.closed ??= (async () => {
      this.stop.abort(new ClosedError(`the cache ${this.root}`, { path: this.root }));
      this.listeners.end();
      await this.watching?.return?.().catch(() => undefined);
      await this.first?.catch(() => undefined);
    })();
    return this.closed;
  }

  /** The work of `start()`: the watch, then the initial load, each tried until it succeeds. */
  private async begin(): Promise<void> {
    const signal = this.stop.signal;
    try {
      const watching = await untilDone(this.client, signal, async () => {
        const watch = this.client.watch(this.root, { recursive: true, signal });
        // `ready` waits for the server's reply even once aborted: a close() does not.
        await abortable(watch.ready, signal);
        return watch;
      });
      this.watching = watching;
      void this.follow(watching);
      const loading = untilDone(this.client, signal, () => this.load(this.root, 0));
      this.loading = loading.catch(() => undefined);
      await loading;
    } catch (error) {
      // Closed meanwhile, or an error no retry gets past: the cache ends.
      if (!signal.aborted) {
        this.failure = error;
        void this.close();
      }
      throw this.failure ?? signal.reason;
    } finally {
      this.loading = undefined;
    }
    this.initialized = true;
    this.emit({ type: 'initialized' });
    if (this.missedDuringLoad) this.resync(this.missedDuringLoad);
  }

  /** Tells the listeners of `event`'s kind and the `event` listeners, unless closed. */
  private emit(event: TreeCacheEvent): void {
    if (this.stop.signal.aborted) return;
    const { listeners } = this;
    if (event.type === 'created') listeners.emit('created', event);
    else if (event.type === 'changed') listeners.emit('changed', event);
    else if (event.type === 'deleted') listeners.emit('deleted', event);
    else if (event.type === 'initialized') listeners.emit('initialized', event);
    else listeners.emit('resync', event);
    this.listeners.emit('event', event);
  }

  private async follow(watching: AsyncIterableIterator<WatchedEvent>): Promise<void> {
    try {
      for await (const event of watching) {
        const type = event.type as string;
        if (type === 'Resync') {
          // The client's own word, after every reconnect and every renewal, that the watch is armed
          // again and changes may have been missed: the one trigger of a resync.
          const cause = event.cause === 'renewal' ? 'renewal' : 'reconnect';
          if (this.initialized) this.resync(cause);
          else this.missedDuringLoad = cause;
          continue;
        }
        if (type === 'None' || !event.path) continue;
        if (this.keeps(event.path)) this.refresh(event.path);
      }
    } catch {
      // The watch ended (close, or the session is over without renewal): the cache stops.
    }
    this.ended ??= makeError('SESSIONEXPIRED', 'the cache stopped: its watch ended', {
      path: this.root,
    });
  }

  /** Whether `path` belongs in the mirror (under the root, within depth, passing the filter). */
  private keeps(path: string): boolean {
    return this.scope.keeps(path);
  }

  /**
   * Reads one node again and applies the answer as it comes (in the session's reply order). The
   * event that asked for it is used up, so a read that fails must be made again by someone: after
   * a lost link or an expiry the resync of the reconnect or renewal does it; a request given up
   * (REQUESTTIMEOUT) or refused for load (THROTTLEDOP) brings no resync, so it is read again here
   * after a pause, until it succeeds or the cache stops (sync() also reads it again at once).
   */
  private refresh(path: string, attempt = 1): void {
    this.reads.track(
      this.client.getData(path).then(
        ({ data, stat }) => this.apply(path, data, stat),
        (error: unknown) => {
          if (hasCode(error, 'NONODE')) return this.remove(path);
          this.failed.add(path);
          this.reads.failures++;
          if (!hasCode(error, 'REQUESTTIMEOUT', 'THROTTLEDOP') || this.stop.signal.aborted) return;
          const delay = backoffDelay(attempt, { baseDelay: 20, maxDelay: 1_000 });
          pause(delay, this.stop.signal).then(
            () => {
              if (!this.ended) this.refresh(path, attempt + 1);
            },
            () => undefined,
          );
        },
      ),
    );
  }

  /** Reads `path` and, within depth, its subtree; resolves when every read is applied. */
  private async load(path: string, depth: number): Promise<void> {
    if (!this.keeps(path)) return;
    const reads: Promise<unknown>[] = [
      this.client.getData(path).then(
        ({ data, stat }) => this.apply(path, data, stat),
        (error: unknown) => {
          if (!hasCode(error, 'NONODE')) throw error;
          this.remove(path);
        },
      ),
    ];
    if (depth < this.maxDepth) {
      reads.push(
        this.client.getChildren(path).then(
          (names) => Promise.all(names.map((name) => this.load(childPath(path, name), depth + 1))),
          (error: unknown) => {
            if (!hasCode(error, 'NONODE')) throw error;
          },
        ),
      );
    }
    await Promise.all(reads);
  }

  private apply(path: string, data: Uint8Array, stat: Stat): void {
    this.touched?.add(path);
    const previous = this.nodes.get(path);
    if (previous && previous.stat.mzxid === stat.mzxid && previous.stat.czxid === stat.czxid) {
      if (previous.stat.pzxid === stat.pzxid) return;
    }
    const node: CachedNode = { path, data, stat };
    this.nodes.set(path, node);
    if (!previous) this.emit({ type: 'created', node });
    else if (previous.stat.mzxid !== stat.mzxid || previous.stat.czxid !== stat.czxid) {
      this.emit({ type: 'changed', node, previous });
    }
  }

  /** `path` is gone at the time of the answer, and so is everything under it. */
  private remove(path: string): void {
    this.touched?.add(path);
    const prefix = `${path}/`;
    for (const [key, previous] of [...this.nodes]) {
      if (key === path || key.startsWith(prefix)) {
        this.nodes.delete(key);
        this.emit({ type: 'deleted', previous });
      }
    }
  }

  /** Re-reads the whole tree; nodes neither read nor changed meanwhile are gone. */
  private resync(cause: 'reconnect' | 'renewal'): void {
    const previous = this.resyncing ?? Promise.resolve();
    this.resyncing = previous
      .then(async () => {
        const touched = new Set<string>();
        this.touched = touched;
        try {
          await this.load(this.root, 0);
        } finally {
          this.touched = undefined;
        }
        for (const path of [...this.nodes.keys()]) if (!touched.has(path)) this.remove(path);
        this.emit({ type: 'resync', cause });
      })
      .catch(() => {
        // The link dropped again: the next reconnect resyncs.
        this.reads.failures++;
      });
  }
}
