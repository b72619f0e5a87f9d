// One watcher closure per watched node and client, shared by every wait on that node, so an
// aborted wait leaves nothing behind in the client.
import type { WatchedEvent } from '../client/types.js';

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

/**
 * A waiter woken through a method: an object that waits again and again (a lock's acquisition,
 * once per contender ahead of it) joins as itself, with no closure made for it.
 */
export interface WatchWaiter {
  /** The watched node changed (or the session's watches were dropped). */
  watchFired(event: WatchedEvent): void;
}

/** A node's shared watcher as a {@link WatchWaiter} holds it (see {@link joinWatch}). */
export interface SharedWatch {
  /** The closure to pass as the read's `watch`. */
  readonly watcher: (event: WatchedEvent) => void;
  /** As {@link WatcherMembership.armed}. */
  armed(): void;
  /** `waiter`'s wait is over (for any reason), as {@link WatcherMembership.leave}. */
  leave(waiter: WatchWaiter): void;
}

/**
 * The shared watchers of one client, by key. Nearly always there is one at a time (a lock's
 * contender waits on the one node ahead of it, a new node each time): that one is kept in a field,
 * and a map is made only for a second key. A map whose one entry came and went on every wait cost
 * a hash of the key to set, look up and delete it, and V8 shrinks a map's table as its last entry
 * goes, allocating a new one on every wait.
 */
export class WatchedNodes {
  /** One shared watcher, when there is any; never a key of `more` too. */
  private one: SharedWatcher | undefined = undefined;
  /** The others, by key (made for a second key at once). */
  private more: Map<string, SharedWatcher> | undefined = undefined;

  /** How many keys have a shared watcher. */
  get size(): number {
    return (this.one === undefined ? 0 : 1) + (this.more?.size ?? 0);
  }

  /** The shared watcher of `key`, if there is one. */
  get(key: string): SharedWatcher | undefined {
    const one = this.one;
    if (one !== undefined && one.key === key) return one;
    return this.more?.get(key);
  }

  /** Makes `shared` the entry of its key, in place of any other. */
  put(shared: SharedWatcher): void {
    const one = this.one;
    if (one === undefined ? this.more?.has(shared.key) !== true : one.key === shared.key) {
      this.one = shared;
      return;
    }
    this.more ??= new Map();
    this.more.set(shared.key, shared);
  }

  /** Removes `shared` if it is the entry of its key (a newer one stays). */
  drop(shared: SharedWatcher): void {
    if (this.one === shared) this.one = undefined;
    else if (this.more?.get(shared.key) === shared) this.more.delete(shared.key);
  }
}

/** Per client: what is watched (see {@link dataWatchKey}) and its shared watcher. */
const byClient = new WeakMap<object, WatchedNodes>();

/**
 * The shared watchers of `client`: a recipe that waits again and again on one client (a lock)
 * looks them up once and passes them to {@link joinWatch}, instead of once per wait.
 */
export function watchedNodesOf(client: object): WatchedNodes {
  let watched = byClient.get(client);
  if (!watched) {
    watched = new WatchedNodes();
    byClient.set(client, watched);
  }
  return watched;
}

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
  client: object,
  key: string,
  wake: (event: WatchedEvent) => void,
): WatcherMembership {
  return new Membership(sharedFor(watchedNodesOf(client), key, wake), wake);
}

/**
 * {@link joinWatcher} for a waiter that is an object, on the shared watchers of its client (see
 * {@link watchedNodesOf}): the shared watcher itself is the membership (no object per wait), and
 * the waiter names itself when it leaves.
 */
export function joinWatch(watched: WatchedNodes, key: string, waiter: WatchWaiter): SharedWatch {
  return sharedFor(watched, key, waiter);
}

/** The shared watcher of `key` in `watched`, made when there is none, with `wake` among its waiters. */
function sharedFor(watched: WatchedNodes, key: string, wake: Wake): SharedWatcher {
  let shared = watched.get(key);
  if (!shared) {
    shared = new SharedWatcher(watched, key);
    watched.put(shared);
  }
  shared.join(wake);
  return shared;
}

type Wake = ((event: WatchedEvent) => void) | WatchWaiter;

function wakeWith(wake: Wake, event: WatchedEvent): void {
  if (typeof wake === 'function') wake(event);
  else wake.watchFired(event);
}

// Classes rather than closures: a wait joins and leaves once per acquisition of a contended lock,
// and an object with methods costs less than an object holding two closures and their context.

/** The one closure registered with the client for a watched node, and the waits it wakes. */
class SharedWatcher implements SharedWatch {
  // The waiters: the first as it is, any more in a set. Nearly every watched node has one waiter
  // (a lock's next contender), and a set per wait was made, copied when it fired, and dropped.
  private first: Wake | undefined = undefined;
  private more: Set<Wake> | undefined = undefined;
  /** A read with this watcher succeeded: the client holds the closure until the node changes. */
  private set = false;
  /** The closure registered with the client: it wakes every current waiter. */
  readonly watcher = (event: WatchedEvent): void => this.fire(event);

  constructor(
    readonly watched: WatchedNodes,
    readonly key: string,
  ) {}

  private get waiting(): boolean {
    return this.first !== undefined || (this.more !== undefined && this.more.size > 0);
  }

  join(wake: Wake): void {
    if (wake === this.first || this.more?.has(wake)) return;
    // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement: a first waiter kept in the set instead is woken alike (the split only spares the set)
    if (this.first === undefined) {
      this.first = wake;
      return;
    }
    this.more ??= new Set();
    this.more.add(wake);
  }

  armed(): void {
    this.set = true;
    // A read that was given up on came back and set the watch: share the closure again.
    if (this.watched.get(this.key) === undefined) this.watched.put(this);
  }

  leave(wake: Wake): void {
    if (wake === this.first) this.first = undefined;
    else this.more?.delete(wake);
    // No read set the watch (the node was gone, the link broke, the wait was given up): the
    // client holds no closure, so neither must the map, or every such wait would leave one.
    if (!this.waiting && !this.set) this.watched.drop(this);
  }

  private fire(event: WatchedEvent): void {
    // The client has dropped this one-shot watcher: a later wait registers afresh.
    this.watched.drop(this);
    // Those waiting now are woken; a wait that joins meanwhile waits for the next event.
    const { first, more } = this;
    this.first = undefined;
    this.more = undefined;
    if (first !== undefined) wakeWith(first, event);
    if (more !== undefined) for (const waiter of more) wakeWith(waiter, event);
  }
}

class Membership implements WatcherMembership {
  constructor(
    private readonly shared: SharedWatcher,
    private readonly wake: Wake,
  ) {}

  get watcher(): (event: WatchedEvent) => void {
    return this.shared.watcher;
  }

  armed(): void {
    this.shared.armed();
  }

  leave(): void {
    this.shared.leave(this.wake);
  }
}

/**
 * The key of a getData watch on `path`: every getData watch the recipes set on one node (a
 * waiter's on its predecessor, a holder's on its own node) shares one closure. The path itself:
 * a path starts with `/`, the key of any other kind of watch with its kind's name
 * (`getChildren:<path>`), so none can be taken for another; and a lock's wait hashes no string
 * made for the key alone (the path's hash, once computed, stays with it for the watch's other
 * lookups by path).
 */
export function dataWatchKey(path: string): string {
  return path;
}

/**
 * How many watched keys `client` has entries for: the size of what this module keeps per client
 * (internal, not exported by the package; diagnostics read it, and the leak tests count it).
 */
export function watchedKeyCount(client: object): number {
  return byClient.get(client)?.size ?? 0;
}
