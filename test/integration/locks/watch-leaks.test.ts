// Waits and revocable leases leave nothing behind: no shared-watcher entry outlives a wait that
// registered no watch, and reentrant revocable leases share the node's one closure.
import { describe, expect, it } from 'vitest';
import { waitForChange } from '../../../src/coordination/wait.js';
import { watchedKeyCount } from '../../../src/coordination/watchers.js';
import { Mutex, revoke } from '../../../src/locks/index.js';
import { sharedServer, TcpProxy, uniquePath } from '../../harness/index.js';
import { lockPath, newClient, registeredWatchers, sleep, until } from './helpers.js';

describe('shared watcher entries', () => {
  it('waits on nodes that are already gone leave no entry', async () => {
    const zk = await newClient();
    const base = lockPath('gone');
    for (let i = 0; i < 500; i++) await waitForChange(zk, `${base}-${i}`, undefined);
    expect(watchedKeyCount(zk)).toBe(0);
  });

  it('waits abandoned before the reply leave no entry', async () => {
    const zk = await newClient();
    const path = uniquePath('watch-leaks');
    await zk.create(path, new Uint8Array(0));
    const base = lockPath('abandoned');
    const waits = Array.from({ length: 200 }, (_, i) => {
      const controller = new AbortController();
      const wait = waitForChange(zk, `${base}-${i}`, controller.signal);
      controller.abort(new Error('gave up'));
      return wait.catch(() => undefined);
    });
    await Promise.all(waits);
    // Drain: the abandoned requests' replies have come once a later call answers.
    await zk.exists(path);
    expect(watchedKeyCount(zk)).toBe(0);
  });

  it('waits whose getData lost its connection leave no entry', async () => {
    const [host, port] = sharedServer().connectString.split(':') as [string, string];
    const proxy = await TcpProxy.start(host, Number(port));
    try {
      const zk = await newClient({}, proxy.connectString);
      const path = uniquePath('watch-leaks');
      await zk.create(path, new Uint8Array(0));
      proxy.freeze('drop'); // the getData never reaches the server
      const wait = waitForChange(zk, path, undefined);
      await sleep(50);
      proxy.thaw(); // the connection that lost bytes is reset: CONNECTIONLOSS, no watch set
      await wait; // a lost link wakes the waiter, which re-checks
      expect(registeredWatchers(zk, path)).toBe(0);
      expect(watchedKeyCount(zk)).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  it('a wait that set its watch keeps the entry until the node changes', async () => {
    const zk = await newClient();
    const path = uniquePath('watch-leaks');
    await zk.create(path, new Uint8Array(0));
    const controller = new AbortController();
    const wait = waitForChange(zk, path, controller.signal).catch(() => 'aborted');
    await until(() => registeredWatchers(zk, path) === 1, 'the watch is set');
    controller.abort(new Error('gave up'));
    expect(await wait).toBe('aborted');
    expect(watchedKeyCount(zk)).toBe(1); // the closure is still registered with the client
    await zk.delete(path);
    await until(() => watchedKeyCount(zk) === 0, 'the entry goes when the watch fires');
  });
});

describe('reentrant revocable leases', () => {
  it('share the held node watcher and leave none behind', async () => {
    const zk = await newClient();
    const path = lockPath();
    const mutex = new Mutex(zk, path);
    const outer = await mutex.acquire({ revocable: true });
    await until(() => registeredWatchers(zk, outer.path) > 0, 'the revocation watch is set');
    const before = registeredWatchers(zk, outer.path);
    for (let i = 0; i < 300; i++) {
      const inner = await mutex.acquire({ revocable: true, reentrantFrom: outer });
      // Replies come in order: once this one is in, the inner lease's watch is set.
      await zk.exists(outer.path);
      await inner.release();
    }
    expect(registeredWatchers(zk, outer.path)).toBe(before);
    // Revocation still reaches the outer lease through the shared closure.
    expect(await revoke(zk, path)).toBe(outer.path);
    await until(() => outer.revocation.aborted, 'the outer lease is asked');
    await outer.release();
    expect(watchedKeyCount(zk)).toBe(0);
  });
});
