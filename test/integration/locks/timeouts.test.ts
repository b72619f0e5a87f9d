// Timeouts are a promise to the caller: reject on time, clean up in the background.
import { describe, expect, it } from 'vitest';
import { ZooKeeperError } from '../../../src/index.js';
import {
  ExclusiveLock,
  LockTimeoutError,
  MultiLock,
  Mutex,
  Semaphore,
} from '../../../src/locks/index.js';
import {
  instrument,
  lockPath,
  newClient,
  proxiedClient,
  registeredWatchers,
  sleep,
  untilChildren,
} from './helpers.js';

/** Generous for a loaded 2-core machine, far below the ~6.7 s the link takes to be declared dead. */
const ON_TIME_MS = 1_500;

describe('acquire timeouts over a link that silently drops everything', () => {
  it('Mutex: rejects at the timeout, and the node goes once the link is back', async () => {
    const path = lockPath();
    const holderClient = await newClient();
    const holder = await new Mutex(holderClient, path).acquire({ timeout: 5_000 });
    const { proxy, client: zk } = await proxiedClient();
    const mutex = new Mutex(zk, path);
    // Queued first (its node exists), then the link goes silent.
    const waiting = mutex.acquire({ timeout: 1_500 });
    waiting.catch(() => {});
    await untilChildren(holderClient, path, 2, 'queued');
    proxy.freeze('drop');
    const started = Date.now();
    const silent = mutex.acquire({ timeout: 200 });
    await expect(silent).rejects.toBeInstanceOf(LockTimeoutError);
    expect(Date.now() - started).toBeLessThan(ON_TIME_MS);
    await expect(waiting).rejects.toBeInstanceOf(LockTimeoutError);
    proxy.thaw();
    // Cleanup carried on in the background: both attempts' nodes go.
    await untilChildren(holderClient, path, 1, 'the timed-out nodes removed', 20_000);
    await holder.release();
  }, 40_000);

  it('ExclusiveLock and Semaphore reject at the timeout too', async () => {
    const path = lockPath();
    const { proxy, client: zk } = await proxiedClient();
    try {
      proxy.freeze('drop');
      for (const lock of [
        new ExclusiveLock(zk, `${path}-x`),
        new Semaphore(zk, `${path}-s`, { maxLeases: 1 }),
      ]) {
        const started = Date.now();
        await expect(lock.acquire({ timeout: 200 })).rejects.toBeInstanceOf(LockTimeoutError);
        expect(Date.now() - started).toBeLessThan(ON_TIME_MS);
      }
    } finally {
      proxy.thaw();
      await zk.close(); // through the proxy, before it goes
      await proxy.close();
    }
  });

  it('MultiLock: rejects at the timeout without waiting for releases queued until reconnect', async () => {
    const [p1, p2] = [lockPath('first'), lockPath('second')].sort() as [string, string];
    const other = await newClient();
    const blocker = await new Mutex(other, p2).acquire({ timeout: 5_000 });
    const { proxy, client: zk } = await proxiedClient();
    const multi = new MultiLock([new Mutex(zk, p1), new Mutex(zk, p2)]);
    const pending = multi.acquire({ timeout: 1_000 });
    pending.catch(() => {});
    // It holds p1 and waits for p2; then the link goes silent, so releasing p1 cannot finish.
    await untilChildren(other, p2, 2, 'waiting for p2');
    proxy.freeze('drop');
    const started = Date.now();
    await expect(pending).rejects.toBeInstanceOf(LockTimeoutError);
    expect(Date.now() - started).toBeLessThan(ON_TIME_MS);
    proxy.thaw();
    await untilChildren(other, p1, 0, 'p1 released', 20_000);
    await blocker.release();
  }, 40_000);
});

describe('MultiLock failure reporting', () => {
  it('a release error never replaces the LockTimeoutError', async () => {
    const [p1, p2] = [lockPath('first'), lockPath('second')].sort() as [string, string];
    const zk = await newClient();
    const other = await newClient();
    const blocker = await new Mutex(other, p2).acquire({ timeout: 5_000 });
    const { client } = instrument(zk, {
      delete: async (p) => {
        throw new ZooKeeperError('NOAUTH', 'simulated: delete refused', { path: p });
      },
    });
    const multi = new MultiLock([new Mutex(client, p1), new Mutex(client, p2)]);
    await expect(multi.acquire({ timeout: 500 })).rejects.toBeInstanceOf(LockTimeoutError);
    await blocker.release();
    // The refused delete left p1's node; the session takes it along.
    await zk.close();
  });
});

describe('aborted waits leave no watcher behind', () => {
  it('repeated timeouts against a long-held lock accumulate no watcher closures', async () => {
    const path = lockPath();
    const holderClient = await newClient();
    const holder = await new Mutex(holderClient, path).acquire({ timeout: 5_000 });
    const zk = await newClient();
    for (let i = 0; i < 20; i++) {
      await expect(new Mutex(zk, path).acquire({ timeout: 30 })).rejects.toBeInstanceOf(
        LockTimeoutError,
      );
    }
    // Only the shared watcher on the holder's node may remain (one per watched node, not per wait).
    expect(registeredWatchers(zk, holder.path)).toBeLessThanOrEqual(1);
    const exclusive = `${path}-x`;
    const held = await new ExclusiveLock(holderClient, exclusive).acquire({ timeout: 5_000 });
    for (let i = 0; i < 20; i++) {
      await expect(
        new ExclusiveLock(zk, exclusive).acquire({ timeout: 30 }),
      ).rejects.toBeInstanceOf(LockTimeoutError);
    }
    expect(registeredWatchers(zk, exclusive)).toBeLessThanOrEqual(1);
    await held.release();
    await holder.release();
    await sleep(0);
  });
});
