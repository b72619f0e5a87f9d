// What a TreeCache reports and how it is set up: its nodes, its events (one per kind, and all of
// them as one `event`), and its options.
import type { ErrorEvents } from '../client/listeners.js';
import type { Stat } from '../client/types.js';

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

/** The event of one kind: `TreeCacheEventOf<'changed'>` has `node` and `previous`. */
export type TreeCacheEventOf<K extends TreeCacheEvent['type']> = Extract<
  TreeCacheEvent,
  {
    /** The kind of event. */
    type: K;
  }
>;

/**
 * The events of a `TreeCache` (see its `on()`): one per kind, each told the event of its kind,
 * and `event`, told every event of every kind (as `events()` yields them).
 */
export interface TreeCacheEvents extends ErrorEvents {
  /** A node entered the mirror. */
  created: (event: TreeCacheEventOf<'created'>) => void;
  /** A node's data or metadata changed. */
  changed: (event: TreeCacheEventOf<'changed'>) => void;
  /** A node left the mirror. */
  deleted: (event: TreeCacheEventOf<'deleted'>) => void;
  /** The initial load is complete. */
  initialized: (event: TreeCacheEventOf<'initialized'>) => void;
  /** A re-read of the whole tree after a reconnect or a renewal is complete. */
  resync: (event: TreeCacheEventOf<'resync'>) => void;
  /** Every event above, in the order they happen. */
  event: (event: TreeCacheEvent) => void;
}

/** @internal The names of a TreeCache's events. */
export const TREE_CACHE_EVENTS = [
  'created',
  'changed',
  'deleted',
  'initialized',
  'resync',
  'event',
  'error',
] as const satisfies readonly (keyof TreeCacheEvents)[];

/** Options of a `TreeCache`. */
export interface TreeCacheOptions {
  /** Keep nodes at most this many levels below the root (0: the root alone). Default: no limit. */
  maxDepth?: number;
  /**
   * Keep a node only if this returns true for its path (and for every ancestor's below the
   * root): a rejected node's subtree is neither read nor kept. Default: every node.
   */
  filter?: (path: string) => boolean;
}
