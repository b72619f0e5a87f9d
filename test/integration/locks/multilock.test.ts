import { describe, expect, it } from 'vitest';
import {
  LockTimeoutError,
  MultiLock,
  Mutex,
  ReadWriteLock,
  Semaphore,
  withLock,
} from '../../../src/locks/index.js';
import { childrenOf, lockPath, newClient, newClients, sleep, until } from './helpers.js';

describe('MultiLock', () => {
  it('never deadlocks when callers list the same locks in opposite orders', async () => {
    const [a, b] = await newClients(2);
    const p1 = lockPath('one');
    const p2 = lockPath('two');
    const p3 = lockPath('three');
    let inside = 0;
    let maxInside = 0;
    const worker = async (zk: typeof a, paths: string[]) => {
      for (let i = 0; i < 5; i++) {
        const multi = new MultiLock(paths.map((p) => new Mutex(zk!, p)));
        await using _lease = await multi.acquire({ timeout: 15_000 });
        inside++;
        maxInside = Math.max(maxInside, inside);
        await sleep(3);
        inside--;
      }
    };
    await Promise.all([worker(a, [p1, p2, p3]), worker(b, [p3, p2, p1])]);
    expect(maxInside).toBe(1);
    for (const p of [p1, p2, p3]) expect(await childrenOf(a!, p)).toEqual([]);
  });

  it('all or none: one overall deadline, and what was taken is given back', async () => {
    const [a, b] = await newClients(2);
    const [p1, p2] = [lockPath('first'), lockPath('second')].sort();
    const blocker = await new Mutex(b!, p2!).acquire();
    const multi = new MultiLock([new Mutex(a!, p2!), new Mutex(a!, p1!)]);
    expect(multi.locks.map((l) => l.path)).toEqual([p1, p2]);
    expect(await multi.tryAcquire()).toBeNull();
    expect(await childrenOf(a!, p1!)).toEqual([]);
    const started = Date.now();
    await expect(multi.acquire({ timeout: 250 })).rejects.toBeInstanceOf(LockTimeoutError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
    // Rejected on time; giving back p1 and removing the p2 waiter follow in the background.
    await until(
      async () =>
        (await childrenOf(a!, p1!)).length === 0 && (await childrenOf(a!, p2!)).length === 1,
      'the attempt cleaned up',
    );
    await blocker.release();
    const lease = await multi.acquire({ timeout: 5_000 });
    expect(lease.leases.map((l) => l.path.slice(0, l.path.lastIndexOf('/')))).toEqual([p1, p2]);
    expect(lease.fencingToken).toBe(lease.leases[1]!.fencingToken);
    await lease.release();
    expect(lease.signal.aborted).toBe(true);
    for (const p of [p1!, p2!]) expect(await childrenOf(a!, p)).toEqual([]);
  });

  it('mixes kinds of locks and refuses a lock listed twice', async () => {
    const zk = await newClient();
    const path = lockPath();
    const multi = new MultiLock([
      new Semaphore(zk, `${path}/sem`, { maxLeases: 2 }),
      new ReadWriteLock(zk, `${path}/rw`).read,
      new MultiLock([new Mutex(zk, `${path}/m`)]),
    ]);
    expect(multi.locks).toHaveLength(3);
    const lease = await multi.acquire();
    expect(lease.leases).toHaveLength(3);
    await lease.release();
    expect(
      () => new MultiLock([new Mutex(zk, path), new Mutex(zk, path, { naming: 'kazoo' })]),
    ).toThrow(/twice/);
    expect(() => new MultiLock([])).toThrow();
  });
});

describe('withLock', () => {
  it('runs the function under the lock and releases afterwards, also on error', async () => {
    const [a, b] = await newClients(2);
    const path = lockPath();
    const mutex = new Mutex(a!, path);
    const result = await withLock(mutex, async (lease) => {
      expect(await new Mutex(b!, path).tryAcquire()).toBeNull();
      expect(lease.signal.aborted).toBe(false);
      return 42;
    });
    expect(result).toBe(42);
    expect(await childrenOf(a!, path)).toEqual([]);
    await expect(
      withLock(mutex, () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await childrenOf(a!, path)).toEqual([]);
    const held = await new Mutex(b!, path).acquire();
    await expect(withLock(mutex, () => 1, { timeout: 100 })).rejects.toBeInstanceOf(
      LockTimeoutError,
    );
    await held.release();
  });
});
