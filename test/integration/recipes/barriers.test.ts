// DistributedBarrier and DistributedDoubleBarrier against the real server.
import { describe, expect, it } from 'vitest';
import { Op } from '../../../src/index.js';
import {
  DistributedBarrier,
  DistributedDoubleBarrier,
  READY_NODE,
} from '../../../src/recipes/index.js';
import { newClient, proxiedClient, recipePath, sleep } from './helpers.js';

describe('DistributedBarrier', () => {
  it('holds waiters while set and releases them all when removed', async () => {
    const [a, b, c] = [await newClient(), await newClient(), await newClient()];
    const path = recipePath('barrier');
    await new DistributedBarrier(a, path).setBarrier();
    let released = 0;
    const waits = [b, c].map((zk) =>
      new DistributedBarrier(zk, path).waitOnBarrier({ timeout: 10_000 }).then((ok) => {
        released++;
        return ok;
      }),
    );
    await sleep(200);
    expect(released).toBe(0);
    await new DistributedBarrier(a, path).removeBarrier();
    expect(await Promise.all(waits)).toEqual([true, true]);
  });

  it('returns true at once when not set, false on timeout, and rejects on abort', async () => {
    const zk = await newClient();
    const path = recipePath('barrier-t');
    const barrier = new DistributedBarrier(zk, path);
    expect(await barrier.waitOnBarrier({ timeout: 100 })).toBe(true);
    await barrier.setBarrier();
    await barrier.setBarrier(); // twice is fine
    const started = Date.now();
    expect(await barrier.waitOnBarrier({ timeout: 200 })).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    const controller = new AbortController();
    const reason = new Error('stop');
    setTimeout(() => controller.abort(reason), 50);
    await expect(barrier.waitOnBarrier({ signal: controller.signal })).rejects.toBe(reason);
    await barrier.removeBarrier();
    await barrier.removeBarrier(); // twice is fine
  });

  it('releases a waiter whose link was cut while the barrier was removed', async () => {
    const { client, proxy } = await proxiedClient();
    const other = await newClient();
    const path = recipePath('barrier-cut');
    await new DistributedBarrier(other, path).setBarrier();
    const waiting = new DistributedBarrier(client, path).waitOnBarrier({ timeout: 15_000 });
    await sleep(100);
    proxy.freeze('drop');
    await new DistributedBarrier(other, path).removeBarrier();
    proxy.thaw();
    proxy.cut();
    expect(await waiting).toBe(true);
  });
});

describe('DistributedDoubleBarrier', () => {
  it('lets members in only when all have entered, and out only when all have left', async () => {
    const clients = [await newClient(), await newClient(), await newClient()];
    const path = recipePath('double');
    const barriers = clients.map((zk) => new DistributedDoubleBarrier(zk, path, 3));
    const entered: number[] = [];
    const first = barriers[0]!.enter({ timeout: 10_000 }).then((ok) => entered.push(0) && ok);
    const second = barriers[1]!.enter({ timeout: 10_000 }).then((ok) => entered.push(1) && ok);
    await sleep(300);
    expect(entered).toEqual([]);
    expect(await barriers[2]!.enter({ timeout: 10_000 })).toBe(true);
    expect(await first).toBe(true);
    expect(await second).toBe(true);
    const names = (await clients[0]!.getChildren(path)).sort();
    expect(names).toContain(READY_NODE);
    expect(names.filter((n) => n !== READY_NODE)).toHaveLength(3);
    for (const name of names.filter((n) => n !== READY_NODE)) {
      expect(name).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    }

    let left = 0;
    const leaving = barriers.slice(0, 2).map((b) =>
      b.leave({ timeout: 10_000 }).then((ok) => {
        left++;
        return ok;
      }),
    );
    await sleep(300);
    expect(left).toBe(0);
    expect(await barriers[2]!.leave({ timeout: 10_000 })).toBe(true);
    expect(await Promise.all(leaving)).toEqual([true, true]);
    expect(await clients[0]!.getChildren(path)).toEqual([]);
  });

  it('lets waiters in when ready was created, even if a member removed it again at once', async () => {
    // Curator's and kazoo's rule: the creation of `ready` is the signal. kazoo's leave deletes
    // `ready` first, so a fast kazoo member can create and delete it before a waiter looks.
    const [a, b, fast] = [await newClient(), await newClient(), await newClient()];
    const path = recipePath('double-fast');
    const ours = [a, b].map((zk) => new DistributedDoubleBarrier(zk, path, 3));
    const entering = ours.map((barrier) => barrier.enter({ timeout: 5_000 }));
    await sleep(300);
    const ready = `${path}/${READY_NODE}`;
    await fast.multi([Op.create(ready), Op.delete(ready)]);
    expect(await Promise.all(entering)).toEqual([true, true]);
  });

  it('enter times out with false and takes its node away', async () => {
    const zk = await newClient();
    const path = recipePath('double-t');
    const barrier = new DistributedDoubleBarrier(zk, path, 2);
    expect(await barrier.enter({ timeout: 200 })).toBe(false);
    expect(await zk.getChildren(path)).toEqual([]);
  });

  it('leave without enter rejects with NONODE', async () => {
    const zk = await newClient();
    const path = recipePath('double-n');
    const barrier = new DistributedDoubleBarrier(zk, path, 1);
    const other = new DistributedDoubleBarrier(zk, path, 1);
    expect(await other.enter({ timeout: 5_000 })).toBe(true);
    await expect(barrier.leave({ timeout: 1_000 })).rejects.toMatchObject({ code: 'NONODE' });
  });

  it('rejects a memberQty that is not a positive integer', async () => {
    const zk = await newClient();
    expect(() => new DistributedDoubleBarrier(zk, recipePath('q'), 0)).toThrow(/memberQty/);
  });
});
