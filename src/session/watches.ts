// Client-side watch registry: who is told about which server notification. The server sends one
// notification per (connection, event); fanning it out to watchers is ours to do, following the
// Java client's rules.
import { rethrowLater } from './subscribers.js';
import type { EventType, ResyncCause, SessionState, WatchedEvent, Watcher } from './types.js';

export type OneShotKind = 'data' | 'exist' | 'child';

const ONE_SHOT_KINDS: readonly OneShotKind[] = ['data', 'exist', 'child'];

/** The ensemble's configuration node: never under the chroot. */
export const CONFIG_NODE = '/zookeeper/config';

/**
 * Where getConfig's watchers are kept: not a path, so it cannot be mistaken for the client path
 * `/zookeeper/config`, which under a chroot is another node (restoring a watch there after a
 * reconnect would make the server answer NodeDeleted for a node that never existed).
 */
export const CONFIG_WATCH_KEY = 'zookeeper:config';

/** A persistent watch's consumer (an async iterator behind `client.watch`). */
export interface PersistentListener {
  event(event: WatchedEvent): void;
  /** The watch ended: with an error (session expired...), or null for a normal end. */
  end(error: Error | null): void;
}

export interface WatchPaths {
  data: string[];
  exist: string[];
  child: string[];
  persistent: string[];
  persistentRecursive: string[];
}

function addTo<T>(map: Map<string, Set<T>>, path: string, item: T): void {
  const set = map.get(path);
  if (set) set.add(item);
  else map.set(path, new Set([item]));
}

/**
 * The one-shot watchers of a path: one watcher as it is, or a set of several. Nearly every path
 * has one (a lock's waiter, a cache's read), and a set per watch cost an allocation when it was
 * set and another when it fired.
 */
type OneShotWatchers = Watcher | Set<Watcher>;

/**
 * A path's one-shot watchers by path. Besides them it holds one entry of its own, {@link KEEPER}
 * with no watchers: V8 shrinks a Map's table, a new allocation, whenever a delete empties it, and a
 * session's one-shot maps hold one watch at a time (a lock's waiter), each deleted when it fires.
 */
type OneShotMap = Map<string, OneShotWatchers | undefined>;

/** The key of a one-shot map's own entry: no path (every path starts with '/') and no other key. */
const KEEPER = '';

function oneShotMap(): OneShotMap {
  return new Map([[KEEPER, undefined]]);
}

/** The watched paths of a one-shot map (its own entry left out). */
function watchedPaths(map: OneShotMap): string[] {
  const paths: string[] = [];
  for (const [path, entry] of map) if (entry !== undefined) paths.push(path);
  return paths;
}

function addOneShot(map: OneShotMap, path: string, watcher: Watcher): void {
  const entry = map.get(path);
  if (entry === undefined) {
    map.set(path, watcher);
    return;
  }
  if (typeof entry !== 'function') {
    entry.add(watcher);
    return;
  }
  // A watcher set twice on one path is told once (as the Java client's sets do).
  // Stryker disable next-line ConditionalExpression: a set made of one watcher twice holds it once
  if (entry !== watcher) map.set(path, new Set([entry, watcher]));
}

/**
 * Removes `path`'s watchers from `map` and merges them with `into`. What the map held is handed
 * back as it is when `into` is empty, so a notification with one kind of watcher, nearly every
 * one, costs no new set.
 */
function takeFrom(
  map: OneShotMap,
  path: string,
  into: OneShotWatchers | undefined,
): OneShotWatchers | undefined {
  const entry = map.get(path);
  if (entry === undefined) return into;
  map.delete(path);
  if (into === undefined) return entry;
  const merged = typeof into === 'function' ? new Set([into]) : into;
  if (typeof entry === 'function') merged.add(entry);
  else for (const watcher of entry) merged.add(watcher);
  return merged;
}

/** Each of `watchers`, once. */
function eachWatcher(watchers: OneShotWatchers, visit: (watcher: Watcher) => void): void {
  if (typeof watchers === 'function') visit(watchers);
  else for (const watcher of watchers) visit(watcher);
}

function ancestorsAndSelf(path: string): string[] {
  const out = [path];
  let current = path;
  while (current !== '/') {
    const cut = current.lastIndexOf('/');
    // Stryker disable next-line EqualityOperator: '<' only adds '' before the root, which no watch can be set on
    current = cut <= 0 ? '/' : current.slice(0, cut);
    out.push(current);
  }
  return out;
}

/**
 * The one empty map every registry starts with in place of each of its six maps: most sessions
 * never watch some kinds (and an idle one none), and an empty Map costs about 180 bytes of heap.
 * Reading, deleting from and clearing it are harmless; writing goes through `own()`, which swaps
 * in a map of the registry's own first, and would throw here, so a missed swap cannot leak a
 * watch into every session.
 */
class NoEntries extends Map<string, never> {
  override set(): this {
    throw new Error('WatchRegistry: write to the shared empty map');
  }
}
const NONE: Map<string, never> = new NoEntries();

export class WatchRegistry {
  // The one-shot maps by kind, as fields of the registry rather than of a record it holds: a
  // lock's every wait adds a data watch and its notification takes it, and with many sessions
  // each registry is a cold object to reach (one hop fewer per watch, one object less per session).
  private data: OneShotMap = NONE;
  private exist: OneShotMap = NONE;
  private child: OneShotMap = NONE;
  private persistent: Map<string, Set<PersistentListener>> = NONE;
  private recursive: Map<string, Set<PersistentListener>> = NONE;
  /** addWatch requests in flight per path: the server watch they set must not be removed. */
  private adding: Map<string, number> = NONE;

  add(kind: OneShotKind, path: string, watcher: Watcher): void {
    let map = this.oneShotOf(kind);
    if (map === NONE) {
      map = oneShotMap();
      this.setOneShot(kind, map);
    }
    addOneShot(map, path, watcher);
  }

  /** The one-shot map of `kind`. */
  private oneShotOf(kind: OneShotKind): OneShotMap {
    return kind === 'data' ? this.data : kind === 'exist' ? this.exist : this.child;
  }

  private setOneShot(kind: OneShotKind, map: OneShotMap): void {
    if (kind === 'data') this.data = map;
    else if (kind === 'exist') this.exist = map;
    else this.child = map;
  }

  addPersistent(path: string, recursive: boolean, listener: PersistentListener): void {
    if (recursive) {
      if (this.recursive === NONE) this.recursive = new Map();
      addTo(this.recursive, path, listener);
    } else {
      if (this.persistent === NONE) this.persistent = new Map();
      addTo(this.persistent, path, listener);
    }
  }

  /** Removes one persistent listener; returns true when no listener of that mode is left on the path. */
  removePersistent(path: string, recursive: boolean, listener: PersistentListener): boolean {
    const map = recursive ? this.recursive : this.persistent;
    const set = map.get(path);
    set?.delete(listener);
    if (set && set.size > 0) return false;
    map.delete(path);
    return true;
  }

  /** Removes every persistent listener of one mode on a path (removeWatches); each is told and ends. */
  removeAllPersistent(path: string, recursive: boolean): boolean {
    const map = recursive ? this.recursive : this.persistent;
    const set = map.get(path);
    if (!set) return false;
    map.delete(path);
    for (const listener of set) {
      safeCall(() => listener.event({ type: 'PersistentWatchRemoved', path }));
      safeCall(() => listener.end(null));
    }
    return true;
  }

  /** Counts an addWatch for `path` as in flight; returns the function that ends it (idempotent). */
  beginAdd(path: string): () => void {
    if (this.adding === NONE) this.adding = new Map();
    this.adding.set(path, (this.adding.get(path) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const left = (this.adding.get(path) ?? 1) - 1;
      if (left > 0) this.adding.set(path, left);
      else this.adding.delete(path);
    };
  }

  /** Whether an addWatch for `path` is in flight. */
  isAdding(path: string): boolean {
    return this.adding.has(path);
  }

  hasPersistent(path: string, recursive: boolean): boolean {
    return (recursive ? this.recursive : this.persistent).has(path);
  }

  hasOneShot(kind: OneShotKind, path: string): boolean {
    return this.oneShotOf(kind).get(path) !== undefined;
  }

  /**
   * Delivers a server notification (path already relative to the chroot). Returns how many
   * watchers and listeners it reached.
   */
  dispatch(type: EventType, path: string): number {
    const { data, exist, child } = this;
    let watchers: OneShotWatchers | undefined;
    let recursiveToo = false;
    switch (type) {
      case 'NodeCreated':
      case 'NodeDataChanged':
        watchers = takeFrom(exist, path, takeFrom(data, path, watchers));
        recursiveToo = true;
        break;
      case 'NodeChildrenChanged':
        watchers = takeFrom(child, path, watchers);
        break;
      case 'NodeDeleted':
        watchers = takeFrom(child, path, takeFrom(exist, path, takeFrom(data, path, watchers)));
        recursiveToo = true;
        break;
      default:
        return 0;
    }
    const listeners = this.listenersOf(path, recursiveToo);
    // Stryker disable next-line ConditionalExpression: going on would tell nobody and count 0 alike
    if (!watchers && !listeners) return 0;
    const event: WatchedEvent = { type, path };
    let told = 0;
    if (typeof watchers === 'function') {
      deliver(watchers, event);
      told = 1;
    } else if (watchers) {
      for (const watcher of watchers) deliver(watcher, event);
      told = watchers.size;
    }
    if (listeners) for (const listener of listeners) tell(listener, event);
    return told + (listeners?.size ?? 0);
  }

  /** The persistent listeners on `path`, and with `recursiveToo` the recursive ones above it. */
  private listenersOf(path: string, recursiveToo: boolean): Set<PersistentListener> | undefined {
    const here = this.persistent.get(path);
    // Most clients have no recursive watch: then there are no ancestors to look up.
    // A copy: a listener added while this event is delivered must not receive it.
    // Stryker disable next-line ConditionalExpression: the walk over the ancestors finds the same listeners, only slower
    if (!recursiveToo || this.recursive.size === 0) return here && new Set(here);
    const listeners = new Set<PersistentListener>();
    for (const ancestor of ancestorsAndSelf(path)) {
      const set = this.recursive.get(ancestor);
      if (set) for (const l of set) listeners.add(l);
    }
    if (here) for (const l of here) listeners.add(l);
    return listeners;
  }

  /** Delivers a notification for the configuration node to getConfig's watchers. */
  dispatchConfig(type: EventType): void {
    if (type !== 'NodeDataChanged' && type !== 'NodeCreated' && type !== 'NodeDeleted') return;
    const watchers = takeFrom(this.data, CONFIG_WATCH_KEY, undefined);
    if (watchers === undefined) return;
    const event: WatchedEvent = { type, path: CONFIG_NODE };
    eachWatcher(watchers, (watcher) => deliver(watcher, event));
  }

  /**
   * Removes one-shot watchers locally (removeWatches) and tells them. `watcher` undefined removes
   * all of the kinds given. Returns whether anything was removed.
   */
  removeOneShot(path: string, kinds: readonly OneShotKind[], watcher?: Watcher): boolean {
    let removed = false;
    for (const kind of kinds) {
      const map = this.oneShotOf(kind);
      const entry = map.get(path);
      if (entry === undefined) continue;
      const all = typeof entry === 'function' ? [entry] : [...entry];
      const victims = watcher ? all.filter((w) => w === watcher) : all;
      const kept = all.filter((w) => !victims.includes(w));
      if (kept.length === 0) {
        map.delete(path);
      } else {
        // Stryker disable next-line ConditionalExpression: one watcher kept in a set is told alike
        map.set(path, kept.length === 1 ? kept[0]! : new Set(kept));
      }
      for (const victim of victims) {
        removed = true;
        const type: EventType = kind === 'child' ? 'ChildWatchRemoved' : 'DataWatchRemoved';
        safeCall(() => victim({ type, path }));
      }
    }
    return removed;
  }

  /** Paths to restore after a reconnect, in the Java client's order. */
  paths(): WatchPaths {
    return {
      data: watchedPaths(this.data),
      exist: watchedPaths(this.exist),
      child: watchedPaths(this.child),
      persistent: [...this.persistent.keys()],
      persistentRecursive: [...this.recursive.keys()],
    };
  }

  /**
   * The session expired and a new one follows: one-shot watches were the old session's and get a
   * `None` event; persistent ones stay, to be armed on the new session (see {@link resync}).
   */
  endOneShot(state: SessionState): void {
    const watchers = new Set<Watcher>();
    for (const kind of ONE_SHOT_KINDS) {
      const map = this.oneShotOf(kind);
      for (const entry of map.values()) {
        if (entry !== undefined) eachWatcher(entry, (w) => watchers.add(w));
      }
      if (map !== NONE) this.setOneShot(kind, oneShotMap());
    }
    for (const watcher of watchers) safeCall(() => watcher({ type: 'None', path: '', state }));
  }

  /**
   * Every persistent watch is armed again after a gap (a reconnect, or a new session): the server
   * sends no catch-up events for them, so each listener is told to re-read what it follows.
   */
  resync(cause: ResyncCause): void {
    for (const map of [this.persistent, this.recursive]) {
      for (const [path, set] of map) {
        const event: WatchedEvent = { type: 'Resync', path, cause };
        for (const listener of [...set]) safeCall(() => listener.event(event));
      }
    }
  }

  /** The session is over: one-shot watchers get a `None` event, persistent iterators end. */
  endAll(state: SessionState, error: Error): void {
    this.endOneShot(state);
    const listeners = new Set<PersistentListener>();
    for (const map of [this.persistent, this.recursive]) {
      for (const set of map.values()) for (const l of set) listeners.add(l);
      map.clear();
    }
    // A closed client ends its watches normally; expiry and auth failure are errors to see.
    for (const listener of listeners)
      safeCall(() => listener.end(state === 'closed' ? null : error));
  }
}

function safeCall(fn: () => void): void {
  try {
    fn();
  } catch (error) {
    rethrowLater(error);
  }
}

// The two deliveries of every notification, without a closure per watcher as safeCall needs.
function deliver(watcher: Watcher, event: WatchedEvent): void {
  try {
    watcher(event);
  } catch (error) {
    rethrowLater(error);
  }
}

function tell(listener: PersistentListener, event: WatchedEvent): void {
  try {
    listener.event(event);
  } catch (error) {
    rethrowLater(error);
  }
}
