// One watcher closure per watched node and client, shared by every wait on that node, so an
// aborted wait leaves nothing behind in the client.
import type { WatchedEvent } from '../client/types.js';
import type { LockClient } from './types.js';

interface Shared {
  /** The closure registered with the client: it wakes every current waiter. */
  readonly watcher: (event: WatchedEvent) => void;
  readonly waiters: Set<(event: WatchedEvent) => void>;
  /** A read with this watcher succeeded: the client holds the closure until the node changes. */
  armed: boolean;
}

/** One wait's place among the waiters of a shared watcher. */
export interface WatcherMembership {
  /** The closure to pass as the read's `watch`. */
  readonly watcher: (event: WatchedEvent) => void;
  /**
   * The read that passed `watcher` succeeded: the client now holds the closure (until the node
   * changes), so the entry must stay for later waits to share it.
   */
  armed(): void;
  /** This wait is over (for any reason). */
  leave(): void;
}

/** Per client: what is watched (`<kind>:<path>`) and its shared watcher. */
const byClient = new WeakMap<LockClient, Map<string, Shared>>();

/**
 * The watcher to register for `key` (the kind of watch and the path, see {@link dataWatchKey}),
 * with `wake` among the waiters it wakes (each is handed the event); call `leave()` when the wait
 * ends for any reason. The client keeps a one-shot watcher until its node changes, and a watcher
 * cannot be taken back without removing every other watcher on the node; so each wait does not
 * register a closure of its own (an aborted wait would leave it behind, and repeated timeouts
 * against a long-held lock would pile them up) but joins the one shared closure, and leaving
 * drops its `wake` at once. The client holds at most that one closure per watched node, whatever
 * the number of waits.
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
  let shared = watched.get(key);
  if (!shared) {
    const waiters = new Set<(event: WatchedEvent) => void>();
    const entry: Shared = {
      waiters,
      armed: false,
      watcher: (event) => {
        // The client has dropped this one-shot watcher: a later wait registers afresh.
        if (watched.get(key) === entry) watched.delete(key);
        const woken = [...waiters];
        waiters.clear();
        for (const waiter of woken) waiter(event);
      },
    };
    shared = entry;
    watched.set(key, shared);
  }
  const entry = shared;
  entry.waiters.add(wake);
  return {
    watcher: entry.watcher,
    armed: () => {
      entry.armed = true;
      // A read that was given up on came back and set the watch: share the closure again.
      if (!watched.has(key)) watched.set(key, entry);
    },
    leave: () => {
      entry.waiters.delete(wake);
      // No read set the watch (the node was gone, the link broke, the wait was given up): the
      // client holds no closure, so neither must the map, or every such wait would leave one.
      if (entry.waiters.size === 0 && !entry.armed && watched.get(key) === entry)
        watched.delete(key);
    },
  };
}

/**
 * The key of a getData watch on `path`: every getData watch the recipes set on one node (a
 * waiter's on its predecessor, a holder's on its own node) shares one closure.
 */
export function dataWatchKey(path: string): string {
  return `getData:${path}`;
}
