// Our counters and barriers together with Curator's on the same nodes (a real Curator in a JVM).
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  DistributedAtomicLong,
  DistributedBarrier,
  DistributedDoubleBarrier,
  READY_NODE,
  SharedCount,
  SharedValue,
} from '../../src/recipes/index.js';
import { uniquePath } from '../harness/index.js';
import { newClient } from '../support/clients.js';
import {
  goAndRead,
  incrementBeside,
  killRecipePeers,
  startCuratorRecipe,
} from './curator-recipes.js';

afterEach(() => killRecipePeers());

describe('counters with Curator', () => {
  it('DistributedAtomicLong: Curator and we increment one node at once; the total is the sum', async () => {
    const path = `${uniquePath('interop')}/long`;
    const curator = await startCuratorRecipe('atomic-increment', path, '150');
    const zk = await newClient();
    const counter = new DistributedAtomicLong(zk, path, {
      retry: { maxAttempts: 10_000, baseDelay: 1, maxDelay: 10 },
    });
    curator.go();
    let ours = 0;
    for (let i = 0; i < 150; i++) if ((await counter.increment()).succeeded) ours++;
    expect(await curator.line('done')).toBe('done 150');
    expect(ours).toBe(150);
    expect(await counter.get()).toBe(300n);
    // Curator reads our bytes as we read its.
    expect(await goAndRead(startCuratorRecipe('atomic-get', path), 'value')).toBe('value 300');
  }, 120_000);

  it('DistributedAtomicLong promoted to one lock path: Curator and we both take the lock; the total is the sum', async () => {
    const base = uniquePath('interop');
    const [path, lock] = [`${base}/promoted`, `${base}/promoted-lock`];
    const curator = await startCuratorRecipe('atomic-increment-promoted', path, '100', lock);
    const zk = await newClient();
    const watcher = await newClient();
    // Whose nodes show up on the lock path: Curator's and ours share the one queue.
    const lockNodes = new Set<string>();
    const watching = watcher.watch(lock, { recursive: true });
    await watching.ready;
    void (async () => {
      for await (const event of watching) {
        if (event.type === 'NodeCreated' && event.path?.startsWith(`${lock}/`))
          lockNodes.add(event.path);
      }
    })();
    const counters = [zk, zk].map(
      () =>
        new DistributedAtomicLong(zk, path, {
          retry: { maxAttempts: 1 },
          promotedToLock: { path: lock, retry: { maxAttempts: 1_000, baseDelay: 1, maxDelay: 10 } },
        }),
    );
    curator.go();
    let ours = 0;
    let oursPromoted = 0;
    await Promise.all(
      counters.map(async (counter) => {
        for (let i = 0; i < 50; i++) {
          const result = await counter.increment();
          if (result.succeeded) ours++;
          if (result.stats.promotedLockTries > 0) oursPromoted++;
        }
      }),
    );
    const done = await curator.line('done');
    const [, curatorSucceeded, , curatorPromoted] = done.split(' ');
    expect(curatorSucceeded).toBe('100');
    expect(ours).toBe(100);
    expect(await counters[0]!.get()).toBe(200n);
    // Both sides were promoted, so both took the lock on the same path.
    expect(oursPromoted).toBeGreaterThan(0);
    expect(Number(curatorPromoted)).toBeGreaterThan(0);
    expect(await zk.getChildren(lock).catch(() => [])).toEqual([]);
    await watching.return?.();
    expect(lockNodes.size).toBeGreaterThan(0);
    expect([...lockNodes].every((p) => /\/_c_[0-9a-f-]{36}-lock-\d{10}$/.test(p))).toBe(true);
  }, 120_000);

  it('SharedCount: Curator and we increment by compare-and-set; the total is the sum', async () => {
    const path = `${uniquePath('interop')}/count`;
    const zk = await newClient();
    const count = new SharedCount(zk, path, { seed: 0 });
    await count.start();
    const curator = await startCuratorRecipe('count-increment', path, '100');
    await incrementBeside(curator, count, 100);
    expect(await curator.line('done')).toBe('done 100');
    expect(await goAndRead(startCuratorRecipe('count-get', path), 'value')).toBe('value 200');
    expect([...(await zk.getData(path)).data]).toEqual([0, 0, 0, 200]);
    await count.close();
  }, 120_000);
});

describe('SharedValue with Curator', () => {
  it('Curator and we append to one value by compare-and-set; each sees the other, nothing is lost', async () => {
    const path = `${uniquePath('interop')}/value`;
    const zk = await newClient();
    await using shared = new SharedValue(zk, path);
    await shared.start();
    let heardCurator = false;
    shared.on('change', ({ value }) => {
      if (value.includes(0x6a)) heardCurator = true;
    });
    const curator = await startCuratorRecipe('value-append', path, '100');
    curator.go();
    for (let done = 0; done < 100; ) {
      const { value, version } = shared.versioned;
      const next = new Uint8Array(value.length + 1);
      next.set(value);
      next[value.length] = 0x74; // 't'
      if (await shared.trySet(next, version)) done++;
      else await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(await curator.line('done')).toBe('done 100');
    const reader = await startCuratorRecipe('value-get', path);
    reader.go();
    const read = (await reader.line('value')).slice('value '.length);
    expect(read).toHaveLength(200);
    expect([...read].filter((c) => c === 't')).toHaveLength(100);
    expect([...read].filter((c) => c === 'j')).toHaveLength(100);
    expect(new TextDecoder().decode((await zk.getData(path)).data)).toBe(read);
    // Our copy follows Curator's writes: the last of them reaches it through the watch.
    await vi.waitFor(() => expect(shared.value.length).toBe(200), { timeout: 10_000 });
    expect(heardCurator).toBe(true);
  }, 120_000);
});

describe('barriers with Curator', () => {
  it('DistributedDoubleBarrier: a Curator member and two of ours enter and leave together', async () => {
    const path = `${uniquePath('interop')}/double`;
    const curator = await startCuratorRecipe('double-barrier', path, '3');
    const a = await newClient();
    const b = await newClient();
    const ours = [a, b].map((zk) => new DistributedDoubleBarrier(zk, path, { memberQty: 3 }));
    const entering = ours.map((barrier) => barrier.enter({ timeout: 30_000 }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const names = await a.getChildren(path);
    expect(names.filter((n) => n !== READY_NODE)).toHaveLength(2); // not in yet: two of three
    curator.go();
    expect(await curator.line('entered')).toBe('entered true');
    await Promise.all(entering);
    const leaving = ours.map((barrier) => barrier.leave({ timeout: 30_000 }));
    await Promise.all(leaving);
    expect(await curator.line('left')).toBe('left true');
  }, 120_000);

  it('DistributedBarrier: a Curator waiter is released when we remove our barrier', async () => {
    const path = `${uniquePath('interop')}/barrier`;
    const zk = await newClient();
    const barrier = new DistributedBarrier(zk, path);
    await barrier.raise();
    const curator = await startCuratorRecipe('barrier-wait', path);
    curator.go();
    // Still held while the node exists.
    await expect(curator.line('released', 700)).rejects.toThrow(/no "released" line/);
    await barrier.lower();
    expect(await curator.line('released')).toBe('released true');
  }, 120_000);
});
