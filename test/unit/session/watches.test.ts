import { describe, expect, it } from 'vitest';
import type { WatchedEvent } from '../../../src/session/types.js';
import { type PersistentListener, WatchRegistry } from '../../../src/session/watches.js';
import { listener, recorder } from './watch-recorders.js';

describe('WatchRegistry', () => {
  it('fires a watcher once per trigger, even when registered as data and exist watcher', () => {
    const reg = new WatchRegistry();
    const r = recorder();
    reg.add('data', '/a', r.watcher);
    reg.add('exist', '/a', r.watcher);
    reg.add('data', '/a', r.watcher);
    reg.dispatch('NodeDataChanged', '/a');
    reg.dispatch('NodeDataChanged', '/a');
    expect(r.events).toEqual([{ type: 'NodeDataChanged', path: '/a' }]);
  });

  it('a watcher or listener added while an event is delivered hears only later events', () => {
    const reg = new WatchRegistry();
    const late = recorder();
    const lateListener = listener();
    const seen: string[] = [];
    // Each re-registers on the same path, as a watch loop does, and adds a newcomer.
    const again = (e: WatchedEvent) => {
      seen.push(`watcher ${e.type}`);
      reg.add('data', '/a', late.watcher);
    };
    const first: PersistentListener = {
      event: (e) => {
        seen.push(`listener ${e.type}`);
        reg.addPersistent('/a', false, lateListener.l);
      },
      end: () => {},
    };
    reg.add('data', '/a', again);
    reg.add('exist', '/a', again);
    reg.addPersistent('/a', false, first);
    expect(reg.dispatch('NodeDataChanged', '/a')).toBe(2);
    expect(seen).toEqual(['watcher NodeDataChanged', 'listener NodeDataChanged']);
    expect(late.events).toEqual([]);
    expect(lateListener.events).toEqual([]);
    expect(reg.dispatch('NodeDeleted', '/a')).toBe(3);
    expect(late.events).toEqual([{ type: 'NodeDeleted', path: '/a' }]);
    expect(lateListener.events).toEqual([{ type: 'NodeDeleted', path: '/a' }]);
  });

  it('routes each event type to the right kinds (Java rules)', () => {
    const reg = new WatchRegistry();
    const data = recorder();
    const child = recorder();
    reg.add('data', '/a', data.watcher);
    reg.add('child', '/a', child.watcher);
    reg.dispatch('NodeChildrenChanged', '/a');
    expect(child.events).toEqual([{ type: 'NodeChildrenChanged', path: '/a' }]);
    expect(data.events).toEqual([]);
    reg.add('child', '/a', child.watcher);
    reg.dispatch('NodeDeleted', '/a');
    expect(data.events).toEqual([{ type: 'NodeDeleted', path: '/a' }]);
    expect(child.events).toHaveLength(2);
    expect(reg.paths()).toEqual({
      data: [],
      exist: [],
      child: [],
      persistent: [],
      persistentRecursive: [],
    });
  });

  it('delivers to persistent watchers without removing them, recursive ones for descendants', () => {
    const reg = new WatchRegistry();
    const p = listener();
    const rec = listener();
    reg.addPersistent('/a', false, p.l);
    reg.addPersistent('/', true, rec.l);
    reg.dispatch('NodeChildrenChanged', '/a');
    reg.dispatch('NodeCreated', '/a/b/c');
    reg.dispatch('NodeDataChanged', '/a');
    expect(p.events.map((e) => e.type)).toEqual(['NodeChildrenChanged', 'NodeDataChanged']);
    // Recursive watches never get NodeChildrenChanged.
    expect(rec.events).toEqual([
      { type: 'NodeCreated', path: '/a/b/c' },
      { type: 'NodeDataChanged', path: '/a' },
    ]);
    expect(reg.paths().persistent).toEqual(['/a']);
    expect(reg.paths().persistentRecursive).toEqual(['/']);
  });

  it('removes one-shot watchers locally with *WatchRemoved events', () => {
    const reg = new WatchRegistry();
    const a = recorder();
    const b = recorder();
    reg.add('data', '/x', a.watcher);
    reg.add('child', '/x', b.watcher);
    expect(reg.removeOneShot('/x', ['child'])).toBe(true);
    expect(b.events).toEqual([{ type: 'ChildWatchRemoved', path: '/x' }]);
    expect(reg.removeOneShot('/x', ['child'])).toBe(false);
    expect(reg.hasOneShot('data', '/x')).toBe(true);
  });

  it('keeps each registry its own although all start without maps: nothing added in one shows in another', () => {
    const first = new WatchRegistry();
    const second = new WatchRegistry();
    const r = recorder();
    const { l } = listener();
    first.add('data', '/a', r.watcher);
    first.add('exist', '/a', r.watcher);
    first.add('child', '/a', r.watcher);
    first.addPersistent('/p', false, l);
    first.addPersistent('/r', true, l);
    const done = first.beginAdd('/p');
    expect(second.paths()).toEqual({
      data: [],
      exist: [],
      child: [],
      persistent: [],
      persistentRecursive: [],
    });
    expect(second.isAdding('/p')).toBe(false);
    expect(first.isAdding('/p')).toBe(true);
    done();
    expect(first.isAdding('/p')).toBe(false);
    // A registry that never had a watch takes every removal and ending quietly.
    second.dispatch('NodeDeleted', '/a');
    expect(second.removeOneShot('/a', ['data', 'exist', 'child'])).toBe(false);
    expect(second.removePersistent('/p', false, l)).toBe(true);
    second.endAll('closed', new Error('closed'));
    expect(first.paths().data).toEqual(['/a']);
  });

  it('ends everything when the session ends: None events and listener ends', () => {
    const reg = new WatchRegistry();
    const w = recorder();
    const p = listener();
    const q = listener();
    reg.add('exist', '/x', w.watcher);
    reg.addPersistent('/x', false, p.l);
    const error = new Error('expired');
    reg.endAll('expired', error);
    expect(w.events).toEqual([{ type: 'None', path: '', state: 'expired' }]);
    expect(p.ends).toEqual([error]);
    reg.addPersistent('/x', true, q.l);
    reg.endAll('closed', error);
    expect(q.ends).toEqual([null]);
  });
});

describe('setWatchBatches', () => {
  it('splits at 128 K characters of paths, keeping kinds and chroot', async () => {
    const { setWatchBatches, SET_WATCHES_MAX_LENGTH } = await import(
      '../../../src/session/restore.js'
    );
    const path = (i: number) => `/${'p'.repeat(995)}${String(i).padStart(4, '0')}`; // 1000 chars
    const data = Array.from({ length: 200 }, (_, i) => path(i));
    const child = ['/c'];
    const batches = setWatchBatches(
      { data, exist: [], child, persistent: ['/p'], persistentRecursive: [] },
      '/root',
    );
    expect(batches.length).toBe(2);
    const sizes = batches.map((b) =>
      [...b.data, ...b.exist, ...b.child, ...b.persistent, ...b.persistentRecursive].reduce(
        (n, p) => n + p.length,
        0,
      ),
    );
    expect(sizes[0]).toBeGreaterThanOrEqual(SET_WATCHES_MAX_LENGTH);
    expect(sizes[0]).toBeLessThan(SET_WATCHES_MAX_LENGTH + 1_010);
    expect(batches.flatMap((b) => b.data)).toEqual(data.map((p) => `/root${p}`));
    expect(batches[1]!.child).toEqual(['/root/c']);
    expect(batches[1]!.persistent).toEqual(['/root/p']);
  });
});
