// One member's watch tables, with ZooKeeper 3.8's firing rules. The data table holds data and
// exist watches, the child table child watches; addWatch (persistent or recursive) and the
// persistent lists of SetWatches register in both tables. A connection has one mode per path in
// each table, and the last registration sets it (3.8 keeps a single mode per watcher and path:
// a one-shot watch set on a persistent path turns it one-shot; a recursive watch set where a
// one-shot child watch was makes that path recursive in the child table too, and a recursive
// entry never reports NodeChildrenChanged). A connection gets one event per trigger however many
// of its watches match.
import type { Trigger } from './tree.js';

export type Mode = 'std' | 'persistent' | 'recursive';

type Table<W> = Map<string, Map<W, Mode>>;

export class WatchTables<W> {
  readonly data: Table<W> = new Map();
  readonly child: Table<W> = new Map();
  /** Recursive entries per table: while none, a trigger looks at its own path only. */
  private readonly recursive = { data: 0, child: 0 };

  /** Registers (or re-registers) the watcher at path: its mode there becomes `mode`. */
  add(table: 'data' | 'child', path: string, watcher: W, mode: Mode): void {
    const t = this[table];
    const entries = t.get(path) ?? new Map<W, Mode>();
    t.set(path, entries);
    this.count(table, entries.get(watcher), -1);
    entries.set(watcher, mode);
    this.count(table, mode, 1);
  }

  has(table: 'data' | 'child', path: string, watcher: W): boolean {
    return this[table].get(path)?.has(watcher) ?? false;
  }

  /** Removes the watcher's watch at path, whatever its mode; true if one was there. */
  remove(table: 'data' | 'child', path: string, watcher: W): boolean {
    const entries = this[table].get(path);
    const mode = entries?.get(watcher);
    if (!entries || !mode) return false;
    this.count(table, mode, -1);
    entries.delete(watcher);
    if (entries.size === 0) this[table].delete(path);
    return true;
  }

  /** Forgets everything of one watcher (its connection closed). */
  drop(watcher: W): void {
    for (const table of ['data', 'child'] as const) {
      for (const path of [...this[table].keys()]) this.remove(table, path, watcher);
    }
  }

  /** The watchers one change notifies, each once. */
  fire(trigger: Trigger): W[] {
    switch (trigger.type) {
      case 'NodeCreated':
      case 'NodeDataChanged':
        return [...this.trigger('data', trigger)];
      case 'NodeChildrenChanged':
        return [...this.trigger('child', trigger)];
      case 'NodeDeleted': {
        // The child table's watchers are triggered (one-shot ones consumed) but notified only
        // if the data table did not already notify them.
        const fired = this.trigger('data', trigger);
        const more = this.trigger('child', trigger);
        return [...fired, ...[...more].filter((w) => !fired.has(w))];
      }
    }
  }

  private trigger(table: 'data' | 'child', trigger: Trigger): Set<W> {
    const fired = new Set<W>();
    const t = this[table];
    const path = trigger.path;
    let p = path;
    for (;;) {
      const entries = t.get(p);
      if (entries) {
        for (const [watcher, mode] of [...entries]) {
          if (mode === 'recursive') {
            if (trigger.type !== 'NodeChildrenChanged') fired.add(watcher);
          } else if (p === path) {
            fired.add(watcher);
            if (mode === 'std') entries.delete(watcher);
          }
        }
        if (entries.size === 0) t.delete(p);
      }
      if (p === '/' || this.recursive[table] === 0) break;
      const slash = p.lastIndexOf('/');
      p = slash <= 0 ? '/' : p.slice(0, slash);
    }
    return fired;
  }

  private count(table: 'data' | 'child', mode: Mode | undefined, by: number): void {
    if (mode === 'recursive') this.recursive[table] += by;
  }
}
