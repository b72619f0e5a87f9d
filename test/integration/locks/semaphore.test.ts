import { describe, expect, it } from 'vitest';
import { LockTimeoutError, Semaphore, SemaphoreMutex } from '../../../src/locks/index.js';
import {
  childrenOf,
  instrument,
  lockPath,
  newClient,
  newClients,
  sleep,
  takeTurns,
  until,
  untilChildren,
  watchesWhen,
} from './helpers.js';

describe('Semaphore', () => {
  it('admits maxLeases holders together, never more, and all get their turn', async () => {
    const clients = await newClients(6);
    const path = lockPath();
    // Three holders at once are admitted without waiting for each other; a fourth is not.
    const three = await Promise.all(
      clients
        .slice(0, 3)
        .map((zk) => new Semaphore(zk, path, { maxLeases: 3 }).acquire({ timeout: 10_000 })),
    );
    expect(await new Semaphore(clients[3]!, path, { maxLeases: 3 }).tryAcquire()).toBeNull();
    await Promise.all(three.map((lease) => lease.release()));

    const { maxInside, turns } = await takeTurns(
      clients,
      3,
      (zk) => new Semaphore(zk, path, { maxLeases: 3 }),
      () => sleep(15),
    );
    expect(maxInside).toBeLessThanOrEqual(3);
    expect(turns).toBe(18);
    expect(await childrenOf(clients[0]!, `${path}/leases`)).toEqual([]);
    expect(await childrenOf(clients[0]!, `${path}/locks`)).toEqual([]);
  });

  it("uses Curator's InterProcessSemaphoreV2 layout", async () => {
    const zk = await newClient();
    const path = lockPath();
    const lease = await new Semaphore(zk, path, { maxLeases: 2 }).acquire();
    expect(lease.path.slice(0, path.length + 8)).toBe(`${path}/leases/`);
    expect(lease.path.slice(path.length + 8)).toMatch(/^_c_[0-9a-f-]{36}-lease-\d{10}$/);
    expect(await childrenOf(zk, path)).toEqual(['leases', 'locks']);
    expect(await childrenOf(zk, `${path}/locks`)).toEqual([]); // the guard is only held while acquiring
    await lease.release();
  });

  it('waits when full: only the guard holder watches the leases; timeout and tryAcquire leave nothing', async () => {
    const [a, b, c, d] = await newClients(4);
    const path = lockPath();
    const one = await new Semaphore(a!, path, { maxLeases: 2 }).acquire();
    const two = await new Semaphore(b!, path, { maxLeases: 2 }).acquire();
    expect(await new Semaphore(c!, path, { maxLeases: 2 }).tryAcquire()).toBeNull();
    await expect(
      new Semaphore(c!, path, { maxLeases: 2 }).acquire({ timeout: 200 }),
    ).rejects.toBeInstanceOf(LockTimeoutError);
    // The timeout rejects on time; its cleanup follows in the background.
    await until(
      async () =>
        (await childrenOf(a!, `${path}/leases`)).length === 2 &&
        (await childrenOf(a!, `${path}/locks`)).length === 0,
      'the timed-out attempt cleaned up',
    );

    const cc = instrument(c!);
    const dd = instrument(d!);
    const third = new Semaphore(cc.client, path, { maxLeases: 2 }).acquire({ timeout: 10_000 });
    await untilChildren(a!, `${path}/leases`, 3, 'third lease node');
    const fourth = new Semaphore(dd.client, path, { maxLeases: 2 }).acquire({ timeout: 10_000 });
    await untilChildren(a!, `${path}/locks`, 2, 'fourth queued on the guard');
    // The fourth waits on the guard mutex (a data watch on the third's guard node), not on the leases.
    await watchesWhen(
      `${path}/locks/`,
      (found) => [...found.values()].flat().includes(d!.sessionId),
      'fourth watching the guard',
    );
    expect(cc.calls.childWatches).toBeGreaterThanOrEqual(1);
    expect(dd.calls.childWatches ?? 0).toBe(0);

    await one.release();
    const l3 = await third;
    await two.release();
    const l4 = await fourth;
    await l3.release();
    await l4.release();
    expect(await childrenOf(a!, `${path}/leases`)).toEqual([]);
  });

  it('SemaphoreMutex excludes and is not reentrant', async () => {
    const [a, b] = await newClients(2);
    const path = lockPath();
    const lease = await new SemaphoreMutex(a!, path).acquire();
    expect(await new SemaphoreMutex(a!, path).tryAcquire()).toBeNull();
    expect(await new SemaphoreMutex(b!, path).tryAcquire()).toBeNull();
    await lease.release();
    const next = await new SemaphoreMutex(b!, path).tryAcquire();
    expect(next).not.toBeNull();
    await next!.release();
  });

  it('refuses a bad maxLeases', async () => {
    const zk = await newClient();
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => new Semaphore(zk, lockPath(), { maxLeases: bad })).toThrow(/maxLeases/);
    }
  });
});
