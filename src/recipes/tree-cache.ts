// A local mirror of a node and its subtree (Curator's CuratorCache, kazoo's TreeCache): an initial
// load, then kept current by one persistent recursive watch; every event is answered by reading
// the node again, so the mirror holds what the server said, never what an event implied.
import type { Client } from '../client/client.js';
import type { Stat, WatchedEvent } from '../client/types.js';
import { hasCode } from '../coordination/codes.js';
import { childPath } from '../coordination/naming.js';
import { makeError } from '../protocol/errors.js';
import { EventQueue } from './event-queue.js';
import { backoffDelay, pause } from './retry.js';
import { CacheScope } from './tree-cache-scope.js';
import { cacheClosed, PendingReads, syncCache } from './tree-cache-sync.js';
import { startWait, type WaitOptions } from './wait.js';

/** The part of the client {@link TreeCache} uses (a `Client` is one); `sync` only for {@link TreeCache.sync}. */
export type TreeCacheClient = Pick<
  Client,
  'getData' | 'getChildren' | 'watch' | 'on' | 'sessionId'
> &
  Partial<Pick<Client, 'sync'>>;

/** One cached node. */
export interface CachedNode {
  /** The node's path. */
  readonly path: string;
  /** The node's data as last read. */
  readonly data: Uint8Array;
  /** The node's metadata as last read. */
  readonly stat: Stat;
}

/** What the cache reports. */
export type TreeCacheEvent =
  | {
      /** A node entered the mirror. */
      type: 'created';
      /** The node. */
      node: CachedNode;
    }
  | {
      /** A node's data or metadata changed. */
      type: 'changed';
      /** The node now. */
      node: CachedNode;
      /** The node before. */
      previous: CachedNode;
    }
  | {
      /** A node left the mirror. */
      type: 'deleted';
      /** The node as last cached. */
      previous: CachedNode;
    }
  | {
      /** The initial load is complete: the mirror is the server's tree as of then. */
      type: 'initialized';
    }
  | {
      /**
       * The cache re-read the whole tree after a reconnect or a session renewal, when changes may
       * have been missed; the differences it found were reported before this event.
       */
      type: 'resync';
      /** Why. */
      cause: 'reconnect' | 'renewal';
    };

/** Options of {@link TreeCache}. */
export interface TreeCacheOptions {
  /** Keep nodes at most this many levels below the root (0: the root alone). Default: no limit. */
  maxDepth?: number;
  /**
   * Keep a node only if this returns true for its path (and for every ancestor's below the
   * root): a rejected node's subtree is neither read nor kept. Default: every node.
   */
  filter?: (path: string) => boolean;
}

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
export class TreeCache {
  private readonly nodes = new Map<string, CachedNode>();
  private readonly queue = new EventQueue<TreeCacheEvent>();
  private readonly maxDepth: number;
  private readonly scope: CacheScope;
  private readonly stop = new AbortController();
  private watching: ReturnType<TreeCacheClient['watch']> | undefined;
  private initialized = false;
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
    private readonly client: TreeCacheClient,
    readonly root: string,
    options: TreeCacheOptions = {},
  ) {
    const { maxDepth = Number.POSITIVE_INFINITY, filter = () => true } = options;
    if (!(typeof maxDepth === 'number' && maxDepth >= 0)) {
      throw makeError(
        'BADARGUMENTS',
        `maxDepth must be a non-negative number, got ${String(maxDepth)}`,
      );
    }
    if (typeof filter !== 'function') throw makeError('BADARGUMENTS', 'filter must be a function');
    this.maxDepth = maxDepth;
    this.scope = new CacheScope(root, maxDepth, filter);
  }

  /** Sets the watch, loads the tree, and resolves once the `initialized` event is out. */
  async start(): Promise<void> {
    if (this.watching)
      throw makeError('BADARGUMENTS', 'start() was called already', { path: this.root });
    const watching = this.client.watch(this.root, { recursive: true, signal: this.stop.signal });
    this.watching = watching;
    await watching.ready;
    void this.follow(watching);
    const loading = this.load(this.root, 0);
    this.loading = loading.catch(() => undefined);
    try {
      await loading;
    } catch (error) {
      // Half a load is no mirror: take the watch and the listener away again.
      await this.close();
      throw error;
    }
    this.loading = undefined;
    this.initialized = true;
    this.queue.push({ type: 'initialized' });
  }

  /**
   * Resolves once the cache holds every change committed before the call, by any client on any
   * server of the ensemble: read from the cache right after it for an answer that is current
   * (as `client.sync(path)` before a read). It syncs the server with the leader, whose reply
   * comes after the watch events of those changes, lets the cache take those events and waits
   * for the reads they started (and a resync under way). After a lost link it waits for the
   * resync of the reconnect. Call it after {@link start}.
   *
   * Rejects with a `TimeoutError` after `timeout` ms, with the signal's reason when it aborts,
   * and with BADARGUMENTS when the cache is closed (before or meanwhile) or not started, or
   * SESSIONEXPIRED when its watch ended (the session expired with renewal off): such a cache is
   * no longer kept current.
   */
  async sync(options: WaitOptions = {}): Promise<void> {
    if (!this.watching) {
      throw makeError('BADARGUMENTS', 'start() the cache before sync()', { path: this.root });
    }
    const client = this.client;
    if (typeof client.sync !== 'function') {
      throw makeError('BADARGUMENTS', 'sync() needs a client with sync', { path: this.root });
    }
    const bound = startWait(options, this.root);
    try {
      const signal = AbortSignal.any([bound.signal, this.stop.signal]);
      await syncCache(
        {
          root: this.root,
          reads: this.reads,
          sync: (signal) => client.sync!(this.root, { signal }),
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
    const prefix = path === '/' ? '/' : `${path}/`;
    const names: string[] = [];
    for (const key of this.nodes.keys()) {
      if (
        key.startsWith(prefix) &&
        key.length > prefix.length &&
        !key.includes('/', prefix.length)
      ) {
        names.push(key.slice(prefix.length));
      }
    }
    return names.sort();
  }

  /** Every cached node, in no particular order. */
  entries(): IterableIterator<CachedNode> {
    return this.nodes.values();
  }

  /** How many nodes are cached. */
  get size(): number {
    return this.nodes.size;
  }

  /** Calls `listener` with every event from now on; returns the unsubscribe function. */
  on(listener: (event: TreeCacheEvent) => void): () => void {
    return this.queue.listen(listener);
  }

  /**
   * The events from now on as an async iterator; it ends when the cache is closed. Events wait
   * in memory until they are read: iterate, or end the iteration (`break`, `return()`).
   */
  events(): AsyncIterableIterator<TreeCacheEvent> {
    return this.queue.iterate();
  }

  /** Removes the watch and ends the event iterators. The cached contents stay readable. */
  async close(): Promise<void> {
    this.stop.abort(cacheClosed(this.root));
    await this.watching?.return?.().catch(() => undefined);
    this.queue.end();
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
    if (!previous) this.queue.push({ type: 'created', node });
    else if (previous.stat.mzxid !== stat.mzxid || previous.stat.czxid !== stat.czxid) {
      this.queue.push({ type: 'changed', node, previous });
    }
  }

  /** `path` is gone at the time of the answer, and so is everything under it. */
  private remove(path: string): void {
    this.touched?.add(path);
    const prefix = `${path}/`;
    for (const [key, previous] of [...this.nodes]) {
      if (key === path || key.startsWith(prefix)) {
        this.nodes.delete(key);
        this.queue.push({ type: 'deleted', previous });
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
        this.queue.push({ type: 'resync', cause });
      })
      .catch(() => {
        // The link dropped again: the next reconnect resyncs.
        this.reads.failures++;
      });
  }
}
