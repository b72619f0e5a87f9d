// The watch registry's removals, restore list, resync, config watches and in-flight addWatch
// counting: what removeWatches, a reconnect, a renewal and getConfig rely on.
import { describe, expect, it } from 'vitest';
import {
  CONFIG_NODE,
  CONFIG_WATCH_KEY,
  type PersistentListener,
  WatchRegistry,
} from '../../../src/session/watches.js';
import { listener, recorder } from './watch-recorders.js';

describe('WatchRegistry edges', () => {
  it('removePersistent says whether the last listener of that mode left the path', () => {
    const registry = new WatchRegistry();
    const [a, b] = [listener(), listener()];
    registry.addPersistent('/p', false, a.l);
    registry.addPersistent('/p', false, b.l);
    registry.addPersistent('/p', true, a.l);
    expect(registry.removePersistent('/p', false, a.l)).toBe(false);
    expect(registry.hasPersistent('/p', false)).toBe(true);
    expect(registry.removePersistent('/p', false, b.l)).toBe(true);
    expect(registry.hasPersistent('/p', false)).toBe(false);
    expect(registry.hasPersistent('/p', true)).toBe(true);
    expect(registry.removePersistent('/none', true, a.l)).toBe(true);
    expect(registry.removePersistent('/p', true, a.l)).toBe(true);
    expect(registry.hasPersistent('/p', true)).toBe(false);
    expect(a.ends).toEqual([]);
  });

  it('removeAllPersistent tells each listener of that mode and ends it; the other mode stays', () => {
    const registry = new WatchRegistry();
    const [a, b, r] = [listener(), listener(), listener()];
    registry.addPersistent('/p', false, a.l);
    registry.addPersistent('/p', false, b.l);
    registry.addPersistent('/p', true, r.l);
    expect(registry.removeAllPersistent('/p', false)).toBe(true);
    for (const x of [a, b]) {
      expect(x.events).toEqual([{ type: 'PersistentWatchRemoved', path: '/p' }]);
      expect(x.ends).toEqual([null]);
    }
    expect(registry.hasPersistent('/p', false)).toBe(false);
    expect(registry.removeAllPersistent('/p', false)).toBe(false);
    registry.dispatch('NodeDataChanged', '/p');
    expect(a.events).toHaveLength(1);
    expect(r.events).toEqual([{ type: 'NodeDataChanged', path: '/p' }]);
    expect(registry.removeAllPersistent('/p', true)).toBe(true);
    expect(r.ends).toEqual([null]);
  });

  it('counts addWatch calls in flight per path; each end is counted once', () => {
    const registry = new WatchRegistry();
    expect(registry.isAdding('/a')).toBe(false);
    const first = registry.beginAdd('/a');
    const second = registry.beginAdd('/a');
    expect(registry.isAdding('/a')).toBe(true);
    first();
    first();
    expect(registry.isAdding('/a')).toBe(true);
    second();
    expect(registry.isAdding('/a')).toBe(false);
    expect(registry.isAdding('/b')).toBe(false);
  });

  it('removeOneShot removes one watcher or all of the kinds given, telling each', () => {
    const registry = new WatchRegistry();
    const [d1, d2, c1] = [recorder(), recorder(), recorder()];
    registry.add('data', '/n', d1.watcher);
    registry.add('data', '/n', d2.watcher);
    registry.add('child', '/n', c1.watcher);
    expect(registry.hasOneShot('data', '/n')).toBe(true);
    // A watcher that is not registered: nothing removed.
    expect(registry.removeOneShot('/n', ['data'], recorder().watcher)).toBe(false);
    expect(registry.removeOneShot('/n', ['data'], d1.watcher)).toBe(true);
    expect(d1.events).toEqual([{ type: 'DataWatchRemoved', path: '/n' }]);
    expect(d2.events).toEqual([]);
    expect(registry.hasOneShot('data', '/n')).toBe(true);
    expect(registry.removeOneShot('/n', ['data', 'child'])).toBe(true);
    expect(d2.events).toEqual([{ type: 'DataWatchRemoved', path: '/n' }]);
    expect(c1.events).toEqual([{ type: 'ChildWatchRemoved', path: '/n' }]);
    expect(registry.hasOneShot('data', '/n')).toBe(false);
    expect(registry.hasOneShot('child', '/n')).toBe(false);
    expect(registry.removeOneShot('/n', ['data', 'exist', 'child'])).toBe(false);
    // Removed watchers no longer fire.
    registry.dispatch('NodeDeleted', '/n');
    expect(d2.events).toHaveLength(1);
  });

  it('one watcher on a path or several: each is told once, and dispatch counts them', () => {
    const registry = new WatchRegistry();
    const [w1, w2, w3] = [recorder(), recorder(), recorder()];
    const deleted = (path: string) => ({ type: 'NodeDeleted', path });
    // One.
    registry.add('data', '/a', w1.watcher);
    expect(registry.dispatch('NodeDeleted', '/a')).toBe(1);
    expect(w1.events).toEqual([deleted('/a')]);
    // Two, one of them set twice.
    registry.add('data', '/b', w1.watcher);
    registry.add('data', '/b', w2.watcher);
    registry.add('data', '/b', w1.watcher);
    expect(registry.dispatch('NodeDeleted', '/b')).toBe(2);
    expect(w1.events).toEqual([deleted('/a'), deleted('/b')]);
    expect(w2.events).toEqual([deleted('/b')]);
    // The same watcher in two kinds, another in a third: merged, each told once.
    registry.add('data', '/c', w1.watcher);
    registry.add('exist', '/c', w1.watcher);
    registry.add('child', '/c', w2.watcher);
    registry.add('exist', '/c', w3.watcher);
    expect(registry.dispatch('NodeDeleted', '/c')).toBe(3);
    expect(w1.events.filter((e) => e.path === '/c')).toHaveLength(1);
    expect(w2.events.filter((e) => e.path === '/c')).toHaveLength(1);
    expect(w3.events.filter((e) => e.path === '/c')).toHaveLength(1);
    // Down from two to one, and up again.
    registry.add('data', '/d', w1.watcher);
    registry.add('data', '/d', w2.watcher);
    expect(registry.removeOneShot('/d', ['data'], w2.watcher)).toBe(true);
    expect(registry.removeOneShot('/d', ['data'], w2.watcher)).toBe(false);
    registry.add('data', '/d', w3.watcher);
    registry.add('data', '/d', w1.watcher);
    expect(registry.dispatch('NodeDataChanged', '/d')).toBe(2);
    expect(w1.events.at(-1)).toEqual({ type: 'NodeDataChanged', path: '/d' });
    expect(w3.events.at(-1)).toEqual({ type: 'NodeDataChanged', path: '/d' });
    expect(w2.events.at(-1)).toEqual({ type: 'DataWatchRemoved', path: '/d' });
    // The last one removed: nothing left to tell.
    registry.add('data', '/e', w1.watcher);
    expect(registry.removeOneShot('/e', ['data'], w1.watcher)).toBe(true);
    expect(registry.hasOneShot('data', '/e')).toBe(false);
    expect(registry.dispatch('NodeDeleted', '/e')).toBe(0);
    // Ended with the session: one watcher and several alike.
    registry.add('data', '/f', w1.watcher);
    registry.add('child', '/g', w2.watcher);
    registry.add('child', '/g', w3.watcher);
    registry.endOneShot('expired');
    for (const w of [w1, w2, w3]) expect(w.events.at(-1)).toMatchObject({ type: 'None' });
  });

  it('keeps every recursive listener when more are added, on other paths', () => {
    const registry = new WatchRegistry();
    const heard: string[] = [];
    const on = (name: string): PersistentListener => ({
      event: (e) => heard.push(`${name}:${e.path}`),
      end: () => {},
    });
    registry.addPersistent('/a', true, on('a'));
    registry.addPersistent('/b', true, on('b'));
    registry.addPersistent('/a', false, on('p'));
    registry.addPersistent('/b', false, on('q'));
    registry.dispatch('NodeDataChanged', '/a/x');
    registry.dispatch('NodeCreated', '/b');
    registry.dispatch('NodeDataChanged', '/a');
    expect(heard.sort()).toEqual(['a:/a', 'a:/a/x', 'b:/b', 'p:/a', 'q:/b']);
  });

  it('lists the paths to restore by kind', () => {
    const registry = new WatchRegistry();
    registry.add('data', '/d', recorder().watcher);
    registry.add('exist', '/e', recorder().watcher);
    registry.add('child', '/c', recorder().watcher);
    registry.addPersistent('/p', false, listener().l);
    registry.addPersistent('/r', true, listener().l);
    expect(registry.paths()).toEqual({
      data: ['/d'],
      exist: ['/e'],
      child: ['/c'],
      persistent: ['/p'],
      persistentRecursive: ['/r'],
    });
  });

  it('lists only what is watched as watches fire, are removed, end with a session and come back', () => {
    const registry = new WatchRegistry();
    const none = { data: [], exist: [], child: [], persistent: [], persistentRecursive: [] };
    const heard = recorder();
    registry.add('data', '/a', heard.watcher);
    registry.add('data', '/b', heard.watcher);
    registry.add('exist', '/e', heard.watcher);
    expect(registry.dispatch('NodeDataChanged', '/a')).toBe(1);
    expect(registry.paths()).toMatchObject({ data: ['/b'], exist: ['/e'] });
    expect(registry.removeOneShot('/b', ['data'])).toBe(true);
    expect(registry.dispatch('NodeCreated', '/e')).toBe(1);
    expect(registry.paths()).toEqual(none);
    expect(registry.hasOneShot('data', '/a')).toBe(false);
    // Nothing is watched: nothing is told, not even of an empty path.
    expect(registry.dispatch('NodeDeleted', '')).toBe(0);
    expect(registry.removeOneShot('', ['data', 'exist', 'child'])).toBe(false);
    registry.add('child', '/c', heard.watcher);
    registry.endOneShot('expired');
    expect(registry.paths()).toEqual(none);
    registry.add('child', '/c2', heard.watcher);
    expect(registry.paths()).toMatchObject({ child: ['/c2'] });
    expect(registry.dispatch('NodeChildrenChanged', '/c2')).toBe(1);
    expect(heard.events.map((e) => `${e.type}:${e.path}`)).toEqual([
      'NodeDataChanged:/a',
      'DataWatchRemoved:/b',
      'NodeCreated:/e',
      'None:',
      'NodeChildrenChanged:/c2',
    ]);
  });

  it('resync tells every persistent listener, of both modes, with the cause', () => {
    const registry = new WatchRegistry();
    const [p, r] = [listener(), listener()];
    registry.addPersistent('/p', false, p.l);
    registry.addPersistent('/r', true, r.l);
    registry.resync('renewal');
    expect(p.events).toEqual([{ type: 'Resync', path: '/p', cause: 'renewal' }]);
    expect(r.events).toEqual([{ type: 'Resync', path: '/r', cause: 'renewal' }]);
  });

  it('endOneShot ends the one-shot watchers only; endAll ends the listeners too', () => {
    const registry = new WatchRegistry();
    const [w, p] = [recorder(), listener()];
    registry.add('exist', '/x', w.watcher);
    registry.addPersistent('/p', false, p.l);
    registry.endOneShot('expired');
    expect(w.events).toEqual([{ type: 'None', path: '', state: 'expired' }]);
    expect(registry.hasOneShot('exist', '/x')).toBe(false);
    expect(registry.hasPersistent('/p', false)).toBe(true);
    const error = new Error('expired');
    registry.endAll('expired', error);
    expect(p.ends).toEqual([error]);
    expect(registry.hasPersistent('/p', false)).toBe(false);

    const closed = new WatchRegistry();
    const q = listener();
    closed.addPersistent('/q', true, q.l);
    closed.endAll('closed', new Error('closed'));
    expect(q.ends).toEqual([null]);
  });

  it("getConfig's watchers hear of the config node's changes, as the config node", () => {
    const registry = new WatchRegistry();
    const config = recorder();
    registry.add('data', CONFIG_WATCH_KEY, config.watcher);
    registry.dispatchConfig('NodeChildrenChanged');
    expect(config.events).toEqual([]);
    registry.dispatchConfig('NodeDataChanged');
    expect(config.events).toEqual([{ type: 'NodeDataChanged', path: CONFIG_NODE }]);
    expect(CONFIG_NODE).toBe('/zookeeper/config');
    // One-shot: fired once.
    registry.dispatchConfig('NodeDataChanged');
    expect(config.events).toHaveLength(1);
    for (const type of ['NodeCreated', 'NodeDeleted'] as const) {
      const again = recorder();
      registry.add('data', CONFIG_WATCH_KEY, again.watcher);
      registry.dispatchConfig(type);
      expect(again.events).toEqual([{ type, path: CONFIG_NODE }]);
    }
  });

  it('a recursive watch hears of changes below it, not of child-list changes', () => {
    const registry = new WatchRegistry();
    const r = listener();
    registry.addPersistent('/a', true, r.l);
    registry.dispatch('NodeCreated', '/a/b/c');
    registry.dispatch('NodeChildrenChanged', '/a');
    registry.dispatch('NodeDeleted', '/a/b');
    registry.dispatch('NodeDataChanged', '/other');
    expect(r.events).toEqual([
      { type: 'NodeCreated', path: '/a/b/c' },
      { type: 'NodeDeleted', path: '/a/b' },
    ]);
  });
});
