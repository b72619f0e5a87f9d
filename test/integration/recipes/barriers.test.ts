// DistributedBarrier and DistributedDoubleBarrier against the real server.
import { describe, expect, it } from 'vitest';
import { ClosedError, InvalidArgumentError, Op, TimeoutError } from '../../../src/index.js';
import {
  DistributedBarrier,
  DistributedDoubleBarrier,
  READY_NODE,
} from '../../../src/recipes/index.js';
import { whenIdle } from '../../support/request-log.js';
import { cutAndPeer, newClient, recipePath, until } from './helpers.js';

describe('DistributedBarrier', () => {
  it('holds waiters while set and releases them all when removed', async () => {
    const [a, b, c] = [await newClient(), await newClient(), await newClient()];
    const path = recipePath('barrier');
    await new DistributedBarrier(a, path).raise();
    let released = 0;
    const waits: Promise<void>[] = [];
    for (const zk of [b, c]) {
      // Each waiter's look is answered: it sits on its watch (a wrong release would have come
      // with that answer).
      const { value } = await whenIdle(
        zk,
        () =>
          new DistributedBarrier(zk, path).wait({ timeout: 10_000 }).then(() => {
            released++;
          }),
        1,
      );
      waits.push(value);
    }
    expect(released).toBe(0);
    await new DistributedBarrier(a, path).lower();
    await Promise.all(waits);
    expect(released).toBe(2);
  });

  it('resolves at once when not set, rejects with TimeoutError on timeout and the reason on abort', async () => {
    const zk = await newClient();
    const path = recipePath('barrier-t');
    const barrier = new DistributedBarrier(zk, path);
    await barrier.wait({ timeout: 100 });
    await barrier.raise();
    await barrier.raise(); // twice is fine
    const started = Date.now();
    const error = await barrier.wait({ timeout: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ code: 'TIMEOUT', timeout: 200 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    const controller = new AbortController();
    const reason = new Error('stop');
    setTimeout(() => controller.abort(reason), 50);
    await expect(barrier.wait({ signal: controller.signal })).rejects.toBe(reason);
    await barrier.lower();
    await barrier.lower(); // twice is fine
  });

  it('releases a waiter whose link was cut while the barrier was removed', async () => {
    const { client, proxy, peer: other, path } = await cutAndPeer('barrier-cut');
    await new DistributedBarrier(other, path).raise();
    const { value: waiting } = await whenIdle(
      client,
      () => new DistributedBarrier(client, path).wait({ timeout: 15_000 }),
      1,
    );
    proxy.freeze('drop');
    await new DistributedBarrier(other, path).lower();
    proxy.thaw();
    proxy.cut();
    await waiting;
  });
});

describe('DistributedDoubleBarrier', () => {
  it('lets members in only when all have entered, and out only when all have left', async () => {
    const clients = [await newClient(), await newClient(), await newClient()];
    const path = recipePath('double');
    const barriers = clients.map((zk) => new DistributedDoubleBarrier(zk, path, { memberQty: 3 }));
    const entered: number[] = [];
    const { value: first } = await whenIdle(clients[0]!, () =>
      barriers[0]!.enter({ timeout: 10_000 }).then(() => entered.push(0)),
    );
    const { value: second } = await whenIdle(clients[1]!, () =>
      barriers[1]!.enter({ timeout: 10_000 }).then(() => entered.push(1)),
    );
    expect(entered).toEqual([]);
    await barriers[2]!.enter({ timeout: 10_000 });
    await Promise.all([first, second]);
    expect(entered.sort()).toEqual([0, 1]);
    const names = (await clients[0]!.getChildren(path)).sort();
    expect(names).toContain(READY_NODE);
    expect(names.filter((n) => n !== READY_NODE)).toHaveLength(3);
    for (const name of names.filter((n) => n !== READY_NODE)) {
      expect(name).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    }

    let left = 0;
    const leaving: Promise<void>[] = [];
    for (const [i, barrier] of barriers.slice(0, 2).entries()) {
      const { value } = await whenIdle(clients[i]!, () =>
        barrier.leave({ timeout: 10_000 }).then(() => {
          left++;
        }),
      );
      leaving.push(value);
    }
    expect(left).toBe(0);
    await barriers[2]!.leave({ timeout: 10_000 });
    await Promise.all(leaving);
    expect(left).toBe(2);
    expect(await clients[0]!.getChildren(path)).toEqual([]);
  });

  it('lets waiters in when ready was created, even if a member removed it again at once', async () => {
    // Curator's and kazoo's rule: the creation of `ready` is the signal. kazoo's leave deletes
    // `ready` first, so a fast kazoo member can create and delete it before a waiter looks.
    const [a, b, fast] = [await newClient(), await newClient(), await newClient()];
    const path = recipePath('double-fast');
    const ours = [a, b].map((zk) => new DistributedDoubleBarrier(zk, path, { memberQty: 3 }));
    const entering: Promise<void>[] = [];
    for (const [i, barrier] of ours.entries()) {
      const zk = [a, b][i]!;
      entering.push((await whenIdle(zk, () => barrier.enter({ timeout: 5_000 }))).value);
    }
    const ready = `${path}/${READY_NODE}`;
    await fast.multi([Op.create(ready), Op.delete(ready)]);
    await Promise.all(entering);
  });

  it('enter rejects with TimeoutError and takes its node away', async () => {
    const zk = await newClient();
    const path = recipePath('double-t');
    const barrier = new DistributedDoubleBarrier(zk, path, { memberQty: 2 });
    await expect(barrier.enter({ timeout: 200 })).rejects.toBeInstanceOf(TimeoutError);
    expect(await zk.getChildren(path)).toEqual([]);
  });

  it('close() ends a waiting enter with ClosedError, deletes the member node, and is idempotent', async () => {
    const zk = await newClient();
    const path = recipePath('double-close');
    const barrier = new DistributedDoubleBarrier(zk, path, { memberQty: 2 });
    const entering = barrier.enter({ timeout: 10_000 });
    await until(
      async () => (await zk.getChildren(path).catch(() => [])).length === 1,
      'the member node',
    );
    const first = barrier.close();
    expect(barrier.close()).toBe(first);
    await first;
    await expect(entering).rejects.toBeInstanceOf(ClosedError);
    expect(await zk.getChildren(path)).toEqual([]);
    await expect(barrier.enter({ timeout: 1_000 })).rejects.toBeInstanceOf(ClosedError);
  });

  it('leave without enter rejects with NONODE', async () => {
    const zk = await newClient();
    const path = recipePath('double-n');
    const barrier = new DistributedDoubleBarrier(zk, path, { memberQty: 1 });
    const other = new DistributedDoubleBarrier(zk, path, { memberQty: 1 });
    await other.enter({ timeout: 5_000 });
    await expect(barrier.leave({ timeout: 1_000 })).rejects.toMatchObject({ code: 'NONODE' });
  });

  it('rejects a memberQty that is not a positive integer', async () => {
    const zk = await newClient();
    expect(() => new DistributedDoubleBarrier(zk, recipePath('q'), { memberQty: 0 })).toThrow(
      InvalidArgumentError,
    );
  });
});
