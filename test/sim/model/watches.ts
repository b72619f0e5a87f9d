// One member's watch tables, with ZooKeeper 3.8's firing rules: data and exist watches share the
// data table, child watches have their own; a persistent watch sits in both, a recursive one only
// in the data table (so it never sees NodeChildrenChanged) and also matches every descendant.
// A connection gets one event per trigger however many of its watches match.
import type { Trigger } from './tree.js';

export type Mode = 'std' | 'persistent' | 'recursive';

type Table<W> = Map<string, Map<W, Set<Mode>>>;

export class WatchTables<W> {
  readonly data: Table<W> = new Map();
  readonly child: Table<W> = new Map();
  private recursive = 0;

  add(table: 'data' | 'child', path: string, watcher: W, mode: Mode): void {
    const t = this[table];
    const entries = t.get(path) ?? new Map<W, Set<Mode>>();
    t.set(path, entries);
    const modes = entries.get(watcher) ?? new Set<Mode>();
    entries.set(watcher, modes);
    if (mode === 'recursive' && !modes.has('recursive')) this.recursive++;
    modes.add(mode);
  }

  has(table: 'data' | 'child', path: string, watcher: W, mode?: Mode): boolean {
    const modes = this[table].get(path)?.get(watcher);
    return !!modes && (mode ? modes.has(mode) : modes.size > 0);
  }

  /** Removes the watcher's watches of the given modes at path; true if any was there. */
  remove(table: 'data' | 'child', path: string, watcher: W, modes: readonly Mode[]): boolean {
    const entries = this[table].get(path);
    const current = entries?.get(watcher);
    if (!entries || !current) return false;
    let removed = false;
    for (const mode of modes) {
      if (current.delete(mode)) {
        removed = true;
        if (mode === 'recursive') this.recursive--;
      }
    }
    if (current.size === 0) entries.delete(watcher);
    if (entries.size === 0) this[table].delete(path);
    return removed;
  }

  /** Forgets everything of one watcher (its connection closed). */
  drop(watcher: W): void {
    for (const table of ['data', 'child'] as const) {
      for (const [path, entries] of this[table]) {
        const modes = entries.get(watcher);
        if (modes?.has('recursive')) this.recursive--;
        entries.delete(watcher);
        if (entries.size === 0) this[table].delete(path);
      }
    }
  }

  /** The watchers one change notifies, each once, in registration order. */
  fire(trigger: Trigger): W[] {
    switch (trigger.type) {
      case 'NodeCreated':
      case 'NodeDataChanged':
        return [...this.trigger('data', trigger.path, new Set())];
      case 'NodeChildrenChanged':
        return [...this.trigger('child', trigger.path, new Set())];
      case 'NodeDeleted': {
        const fired = this.trigger('data', trigger.path, new Set());
        const more = this.trigger('child', trigger.path, fired);
        return [...fired, ...more];
      }
    }
  }

  private trigger(table: 'data' | 'child', path: string, suppress: Set<W>): Set<W> {
    const fired = new Set<W>();
    const t = this[table];
    let p = path;
    for (;;) {
      const entries = t.get(p);
      if (entries) {
        for (const [watcher, modes] of [...entries]) {
          if (p !== path) {
            if (!modes.has('recursive')) continue;
          } else if (modes.has('std')) {
            modes.delete('std');
            if (modes.size === 0) entries.delete(watcher);
          }
          if (!suppress.has(watcher)) fired.add(watcher);
        }
        if (entries.size === 0) t.delete(p);
      }
      if (p === '/' || this.recursive === 0) break;
      const slash = p.lastIndexOf('/');
      p = slash <= 0 ? '/' : p.slice(0, slash);
    }
    return fired;
  }
}
