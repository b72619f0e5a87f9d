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

/** Per client: what is watched (see {@link dataWatchKey}) and its shared watcher. */
const byClient = new WeakMap<object, Map<string, SharedWatcher>>();

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
  let watched = byClient.get(client);
  if (!watched) {
    watched = new Map();
    byClient.set(client, watched);
  }
  let shared = watched.get(key);
  if (!shared) {
    shared = new SharedWatcher(watched, key);
    watched.set(key, shared);
  }
  shared.join(wake);
  return new Membership(shared, wake);
}

type Wake = (event: WatchedEvent) => void;

// Classes rather than closures: a wait joins and leaves once per acquisition of a contended lock,
// and an object with methods costs less than an object holding two closures and their context.

/** The one closure registered with the client for a watched node, and the waits it wakes. */
class SharedWatcher {
  // The waiters: the first as it is, any more in a set. Nearly every watched node has one waiter
  // (a lock's next contender), and a set per wait was made, copied when it fired, and dropped.
  private first: Wake | undefined = undefined;
  private more: Set<Wake> | undefined = undefined;
  /** A read with this watcher succeeded: the client holds the closure until the node changes. */
  armed = false;
  /** The closure registered with the client: it wakes every current waiter. */
  readonly watcher = (event: WatchedEvent): void => this.fire(event);

  constructor(
    readonly watched: Map<string, SharedWatcher>,
    readonly key: string,
  ) {}

  get waiting(): boolean {
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

  leave(wake: Wake): void {
    if (wake === this.first) this.first = undefined;
    else this.more?.delete(wake);
  }

  private fire(event: WatchedEvent): void {
    // The client has dropped this one-shot watcher: a later wait registers afresh.
    if (this.watched.get(this.key) === this) this.watched.delete(this.key);
    // Those waiting now are woken; a wait that joins meanwhile waits for the next event.
    const { first, more } = this;
    this.first = undefined;
    this.more = undefined;
    if (first !== undefined) first(event);
    if (more !== undefined) for (const waiter of more) waiter(event);
  }
}

class Membership implements WatcherMembership {
  constructor(
    private readonly shared: SharedWatcher,
    private readonly wake: Wake,
  ) {}

  get watcher(): Wake {
    return this.shared.watcher;
  }

  armed(): void {
    const { shared } = this;
    shared.armed = true;
    // A read that was given up on came back and set the watch: share the closure again.
    if (!shared.watched.has(shared.key)) shared.watched.set(shared.key, shared);
  }

  leave(): void {
    const { shared } = this;
    shared.leave(this.wake);
    // No read set the watch (the node was gone, the link broke, the wait was given up): the
    // client holds no closure, so neither must the map, or every such wait would leave one.
    if (!shared.waiting && !shared.armed && shared.watched.get(shared.key) === shared)
      shared.watched.delete(shared.key);
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
