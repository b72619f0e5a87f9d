// Our SharedCount and barriers together with kazoo's on the same nodes (a real kazoo in Python).
// kazoo's Counter shares a node with our SharedCount only with `support_curator=True` (4
// big-endian bytes); its default text layout, and our 8-byte DistributedAtomicLong, do not mix.
import { afterEach, describe, expect, it } from 'vitest';
import {
  DistributedBarrier,
  DistributedDoubleBarrier,
  READY_NODE,
  SharedCount,
  TimeLease,
} from '../../src/recipes/index.js';
import { uniquePath } from '../harness/index.js';
import { newClient } from '../support/clients.js';
import { goAndRead, incrementBeside, killRecipePeers } from './curator-recipes.js';
import { startKazooRecipe } from './kazoo-recipes.js';

afterEach(() => killRecipePeers());

const HOUR_MS = 3_600_000;

describe('SharedCount with kazoo', () => {
  it("kazoo's Counter(support_curator=True) and we increment one node; the total is the sum", async () => {
    const path = `${uniquePath('interop')}/kazoo-count`;
    const zk = await newClient();
    const count = new SharedCount(zk, path, { seed: 0 });
    await count.start();
    const kazoo = await startKazooRecipe('count-increment', path, '100');
    await incrementBeside(kazoo, count, 100);
    expect(await kazoo.line('done')).toBe('done 100');
    expect([...(await zk.getData(path)).data]).toEqual([0, 0, 0, 200]);
    expect(await goAndRead(startKazooRecipe('count-get', path), 'value')).toBe('value 200');
    await count.close();
  }, 60_000);
});

describe('barriers with kazoo', () => {
  it('DoubleBarrier: a kazoo member and two of ours enter and leave together', async () => {
    const path = `${uniquePath('interop')}/kazoo-double`;
    const kazoo = await startKazooRecipe('double-barrier', path, '3');
    const a = await newClient();
    const b = await newClient();
    const ours = [a, b].map((zk) => new DistributedDoubleBarrier(zk, path, { memberQty: 3 }));
    const entering = ours.map((barrier) => barrier.enter({ timeout: 30_000 }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await a.getChildren(path)).filter((n) => n !== READY_NODE)).toHaveLength(2);
    kazoo.go();
    expect(await kazoo.line('entered')).toBe('entered True');
    await Promise.all(entering);
    const leaving = ours.map((barrier) => barrier.leave({ timeout: 30_000 }));
    await Promise.all(leaving);
    expect(await kazoo.line('left')).toBe('left True');
    expect(await a.getChildren(path)).toEqual([]);
  }, 60_000);

  it('Barrier: a kazoo waiter is released when we remove ours, and ours when kazoo removes it', async () => {
    const path = `${uniquePath('interop')}/kazoo-barrier`;
    const zk = await newClient();
    const barrier = new DistributedBarrier(zk, path);
    await barrier.raise();
    const waiter = await startKazooRecipe('barrier-wait', path);
    waiter.go();
    await expect(waiter.line('released', 700)).rejects.toThrow(/no "released" line/);
    await barrier.lower();
    expect(await waiter.line('released')).toBe('released True');

    await barrier.raise();
    const waiting = barrier.wait({ timeout: 30_000 });
    expect(await goAndRead(startKazooRecipe('barrier-remove', path), 'removed')).toBe(
      'removed True',
    );
    await waiting;
  }, 60_000);
});

describe("TimeLease with kazoo's NonBlockingLease", () => {
  it('kazoo holds: we are refused; we hold: kazoo is refused; the same identity renews across both', async () => {
    const path = `${uniquePath('interop')}/kazoo-lease`;
    const zk = await newClient();
    const kazooObtains = async (command: 'lease' | 'multi-lease', arg: string, at = path) => {
      const kazoo = await startKazooRecipe(command, at, arg);
      kazoo.go();
      return (await kazoo.line('obtained')) === 'obtained True';
    };
    expect(await kazooObtains('lease', '3600:kazoo-host')).toBe(true);
    const ours = new TimeLease(zk, path, { duration: 3_600_000, id: 'ts-host' });
    expect(await ours.obtain({ timeout: 10_000 })).toBeNull();
    expect((await ours.holders())[0]?.holder).toBe('kazoo-host');
    // The same identity renews kazoo's lease from our side, and kazoo renews ours.
    const same = new TimeLease(zk, path, { duration: 7_200_000, id: 'kazoo-host' });
    expect((await same.obtain({ timeout: 10_000 }))?.holder).toBe('kazoo-host');
    expect(await kazooObtains('lease', '3600:kazoo-host')).toBe(true);
    expect(await kazooObtains('lease', '3600:another')).toBe(false);

    // An ended lease (its end is already past) is taken over by either side.
    const other = `${uniquePath('interop')}/kazoo-lease-2`;
    const past = new TimeLease(zk, other, {
      duration: 1_000,
      id: 'ts',
      now: () => Date.now() - HOUR_MS,
    });
    expect(await past.obtain()).not.toBeNull();
    expect(await kazooObtains('lease', '3600:kazoo-host', other)).toBe(true);
    const refused = new TimeLease(zk, other, { duration: 3_600_000, id: 'ts' });
    expect(await refused.obtain({ timeout: 10_000 })).toBeNull();
    expect((await refused.holders())[0]?.holder).toBe('kazoo-host');

    // Ours first, running: kazoo is refused.
    const third = `${uniquePath('interop')}/kazoo-lease-3`;
    expect(await new TimeLease(zk, third, { duration: HOUR_MS, id: 'ts' }).obtain()).not.toBeNull();
    expect(await kazooObtains('lease', '3600:kazoo-host', third)).toBe(false);
  });

  it('slots: kazoo MultiNonBlockingLease and ours fill the same <path>/<n> slots', async () => {
    const path = `${uniquePath('interop')}/kazoo-multi`;
    const zk = await newClient();
    const ours = (id: string) => new TimeLease(zk, path, { duration: 3_600_000, id, slots: 2 });
    expect((await ours('ts').obtain({ timeout: 10_000 }))?.path).toBe(`${path}/0/lease_holder`);
    const kazoo = await startKazooRecipe('multi-lease', path, '2:3600:kazoo');
    kazoo.go();
    expect(await kazoo.line('obtained')).toBe('obtained True');
    expect((await ours('ts').holders()).map((h) => h?.holder)).toEqual(['ts', 'kazoo']);
    expect(await ours('third').obtain({ timeout: 10_000 })).toBeNull();
  });
});
