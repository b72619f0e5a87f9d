// One watcher closure per watched node and client, shared by every wait on that node, so an
// aborted wait leaves nothing behind in the client.
import type { WatchedEvent } from '../client/types.js';
import type { LockClient } from './types.js';

interface Shared {
  /** The closure registered with the client: it wakes every current waiter. */
  readonly watcher: (event: WatchedEvent) => void;
  readonly waiters: Set<(event: WatchedEvent) => void>;
  /** Calls that may still register `watcher` (their reply has not come). */
  pending: number;
  /** True once a call registered `watcher` with the client (until it fires). */
  registered: boolean;
}

/** Per client: what is watched (`<kind>:<path>`) and its shared watcher. */
const byClient = new WeakMap<LockClient, Map<string, Shared>>();

/** One wait's membership of a shared watcher (see {@link joinWatcher}). */
export interface WatcherMembership {
  /** The closure to hand to the client's call. */
  readonly watcher: (event: WatchedEvent) => void;
  /** Ends this wait's membership; the entry goes too when no watch is or may be registered. */
  leave(): void;
  /**
   * Wraps the client call that registers `watcher`: while it is in flight the entry stays (its
   * reply may register the closure), and once it settles the entry knows whether a watch is set
   * (the client registers a watch only on a successful reply it still waits for).
   */
  track<T>(call: Promise<T>): Promise<T>;
}

/**
 * The watcher to register for `key` (the kind of watch and the path, see {@link dataWatchKey}),
 * with `wake` among the waiters it wakes (each is handed the event); call `leave()` when the wait
 * ends for any reason, and pass the registering call through `track`. The client keeps a one-shot
 * watcher until its node changes, and a watcher cannot be taken back without removing every other
 * watcher on the node; so each wait does not register a closure of its own (an aborted wait would
 * leave it behind, and repeated timeouts against a long-held lock would pile them up) but joins
 * the one shared closure, and leaving drops its `wake` at once. The client holds at most that one
 * closure per watched node, whatever the number of waits; the map holds an entry only while that
 * closure is registered, may be registered by a call in flight, or has waiters.
 */
export function joinWatcher(
  client: LockClient,
  key: string,
  wake: (event: WatchedEvent) => void,
): WatcherMembership {
  let watched = byClient.get(client);
  if (!watched) {
    watched = new Map();
    byClient.set(client, watched);
  }
  const map = watched;
  let shared = map.get(key);
  if (!shared) {
    const waiters = new Set<(event: WatchedEvent) => void>();
    const entry: Shared = {
      waiters,
      pending: 0,
      registered: false,
      watcher: (event) => {
        // The client has dropped this one-shot watcher: a later wait registers afresh.
        if (map.get(key) === entry) map.delete(key);
        entry.registered = false;
        const woken = [...waiters];
        waiters.clear();
        for (const waiter of woken) waiter(event);
      },
    };
    shared = entry;
    map.set(key, shared);
  }
  const entry = shared;
  // Nothing registered, nothing that may register, nobody waiting: the entry has no use.
  const dropIfUnused = () => {
    if (entry.waiters.size > 0 || entry.pending > 0 || entry.registered) return;
    if (map.get(key) === entry) map.delete(key);
  };
  entry.waiters.add(wake);
  return {
    watcher: entry.watcher,
    leave: () => {
      entry.waiters.delete(wake);
      dropIfUnused();
    },
    track: <T>(call: Promise<T>): Promise<T> => {
      entry.pending++;
      return call.then(
        (value) => {
          entry.pending--;
          // Registered unless it already fired (then the entry has left the map).
          if (map.get(key) === entry) entry.registered = true;
          return value;
        },
        (error: unknown) => {
          entry.pending--;
          dropIfUnused();
          throw error;
        },
      );
    },
  };
}

/** How many watched keys `client` has entries for (what a leak test counts). */
export function watchedKeyCount(client: LockClient): number {
  return byClient.get(client)?.size ?? 0;
}

/**
 * The key of a getData watch on `path`: every getData watch the recipes set on one node (a
 * waiter's on its predecessor, a holder's on its own node) shares one closure.
 */
export function dataWatchKey(path: string): string {
  return `getData:${path}`;
}
