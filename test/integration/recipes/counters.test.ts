// SharedCount and DistributedAtomicLong against the real server: byte layout, compare-and-set,
// change events, concurrent increments from several clients.
import { describe, expect, it } from 'vitest';
import { type Client, Op, type RecipeClient } from '../../../src/index.js';
import { makeError } from '../../../src/protocol/errors.js';
import { DistributedAtomicLong, encodeLong, SharedCount } from '../../../src/recipes/index.js';
import { cutAndPeer, newClient, recipePath, until } from './helpers.js';

/** A counter node at 1 named for `name`, and a client whose every compare-and-set on it loses. */
async function losingCounterNode(name: string) {
  const zk = await newClient();
  const path = recipePath(name);
  await new DistributedAtomicLong(zk, path).forceSet(1);
  return { ...losingClient(zk), path };
}

/** A started SharedCount seeded with `seed`, and a second client that changes its node behind it. */
async function startedCountAndRival(name: string, seed: number) {
  const [zk, other] = [await newClient(), await newClient()];
  const path = recipePath(name);
  const count = new SharedCount(zk, path, { seed });
  await count.start();
  return { count, other, path };
}

type AtomicClient = ConstructorParameters<typeof DistributedAtomicLong>[0];

/**
 * `zk` with a setData whose every compare-and-set loses: another write changes the node just
 * before it. `writes()` tells how many compare-and-sets were tried.
 */
function losingClient(zk: Client): { racing: AtomicClient; writes: () => number } {
  let writes = 0;
  const racing = {
    getData: zk.getData.bind(zk),
    create2: zk.create2.bind(zk),
    delete: zk.delete.bind(zk),
    getChildren: zk.getChildren.bind(zk),
    setData: async (p: string, data: Uint8Array, version: number) => {
      writes++;
      await zk.setData(p, encodeLong(BigInt(writes * 100)), -1);
      return zk.setData(p, data, version);
    },
  } as unknown as AtomicClient;
  return { racing, writes: () => writes };
}

describe('SharedCount', () => {
  it('creates the node with the seed as 4 big-endian bytes and reads it back', async () => {
    const zk = await newClient();
    const path = recipePath('count');
    const count = new SharedCount(zk, path, { seed: 258 });
    await count.start();
    expect(count.count).toBe(258);
    expect([...(await zk.getData(path)).data]).toEqual([0, 0, 1, 2]);
    await count.set(-1);
    expect([...(await zk.getData(path)).data]).toEqual([255, 255, 255, 255]);
    await count.close();
  });

  it('trySet succeeds at the version read and fails after another change', async () => {
    const [a, b] = [await newClient(), await newClient()];
    const path = recipePath('cas');
    const mine = new SharedCount(a, path, { seed: 0 });
    const theirs = new SharedCount(b, path, { seed: 0 });
    await mine.start();
    await theirs.start();
    const seen = mine.versioned;
    expect(await theirs.trySet(5, theirs.versioned.version)).toBe(true);
    expect(await mine.trySet(7, seen.version)).toBe(false);
    await until(() => mine.count === 5, 'the other change to arrive');
    expect(await mine.trySet(7, mine.versioned.version)).toBe(true);
    await mine.close();
    await theirs.close();
  });

  it('tells listeners of changes made by another client, also across a cut link', async () => {
    const { client, proxy, peer: writer, path } = await cutAndPeer('events');
    const count = new SharedCount(client, path, { seed: 0 });
    await count.start();
    const heard: number[] = [];
    count.on('change', ({ count: value }) => heard.push(value));
    await writer.setData(path, new Uint8Array([0, 0, 0, 1]));
    await until(() => heard.includes(1), 'the first change');
    proxy.cut();
    await writer.setData(path, new Uint8Array([0, 0, 0, 2]));
    await until(() => heard.includes(2), 'the change made while the link was cut');
    expect(count.count).toBe(2);
    await count.close();
  });

  it('follows the node through a delete and re-create', async () => {
    const { count, other, path } = await startedCountAndRival('recreate', 3);
    await other.delete(path);
    await other.create(path, new Uint8Array([0, 0, 0, 9]));
    await until(() => count.count === 9, 'the re-created value');
    await count.close();
  });

  it('follows a node replaced in one multi whose version starts over below the known one', async () => {
    const { count, other, path } = await startedCountAndRival('replaced', 0);
    for (let value = 1; value <= 5; value++) await count.set(value);
    expect(count.versioned).toEqual({ count: 5, version: 5 });
    await other.multi([Op.delete(path), Op.create(path, new Uint8Array([0, 0, 0, 42]))]);
    await until(() => count.count === 42, 'the value of the node that replaced the old one');
    expect(count.versioned).toEqual({ count: 42, version: 0 });
    expect(await count.trySet(43, count.versioned.version)).toBe(true);
    await count.close();
  });

  it('follows a deleted node back even when watching for its return first fails (lost link)', async () => {
    const [zk, other] = [await newClient(), await newClient()];
    const path = recipePath('recreate-lost');
    // The real client, except that the first exists (the watch for the node's return) fails as
    // a lost connection would.
    let failed = false;
    const flaky = {
      create2: zk.create2.bind(zk),
      delete: zk.delete.bind(zk),
      getChildren: zk.getChildren.bind(zk),
      getData: zk.getData.bind(zk),
      setData: zk.setData.bind(zk),
      get state() {
        return zk.state;
      },
      get closing() {
        return zk.closing;
      },
      exists: ((...args: Parameters<typeof zk.exists>) => {
        if (failed) return zk.exists(...args);
        failed = true;
        return Promise.reject(makeError('CONNECTIONLOSS', 'the link dropped (injected)'));
      }) as typeof zk.exists,
    };
    // The members a SharedCount uses; the rest of a RecipeClient it never calls.
    const count = new SharedCount(flaky as unknown as RecipeClient, path, { seed: 3 });
    await count.start();
    await other.delete(path);
    await until(() => failed, 'the watch for the return to be tried');
    await other.create(path, new Uint8Array([0, 0, 0, 9]));
    await until(() => count.count === 9, 'the re-created value');
    await count.close();
  });

  it('rejects a count that is not a 32-bit integer', async () => {
    const zk = await newClient();
    const count = new SharedCount(zk, recipePath('bad'), { seed: 0 });
    await count.start();
    await expect(count.set(2 ** 31)).rejects.toMatchObject({ code: 'BADARGUMENTS' });
    expect(() => new SharedCount(zk, recipePath('bad2'), { seed: 1.5 })).toThrow();
    await count.close();
  });
});

describe('DistributedAtomicLong', () => {
  it('reads a missing node as 0, creates it on the first change, as 8 big-endian bytes', async () => {
    const zk = await newClient();
    const path = recipePath('long');
    const counter = new DistributedAtomicLong(zk, path);
    expect(await counter.get()).toBe(0n);
    expect(await counter.add(0x0102030405060708n)).toMatchObject({
      succeeded: true,
      preValue: 0n,
      postValue: 0x0102030405060708n,
    });
    expect([...(await zk.getData(path)).data]).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect((await counter.decrement()).postValue).toBe(0x0102030405060707n);
  });

  it('wraps around at 64 bits as a Java long', async () => {
    const zk = await newClient();
    const path = recipePath('wrap');
    const counter = new DistributedAtomicLong(zk, path);
    await counter.forceSet(2n ** 63n - 1n);
    expect((await counter.increment()).postValue).toBe(-(2n ** 63n));
    expect([...(await zk.getData(path)).data]).toEqual([128, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('compareAndSet changes the value only from the expected one', async () => {
    const zk = await newClient();
    const counter = new DistributedAtomicLong(zk, recipePath('cas'));
    await counter.forceSet(10);
    expect(await counter.compareAndSet(9, 1)).toMatchObject({ succeeded: false, preValue: 10n });
    expect(await counter.compareAndSet(10, 1)).toMatchObject({ succeeded: true, postValue: 1n });
  });

  it('counts every increment of four clients racing on one node', async () => {
    const clients = await Promise.all([1, 2, 3, 4].map(() => newClient()));
    const path = recipePath('race');
    let succeeded = 0;
    await Promise.all(
      clients.map(async (zk) => {
        const counter = new DistributedAtomicLong(zk, path, {
          retry: { maxAttempts: 1_000, baseDelay: 1, maxDelay: 20 },
        });
        for (let i = 0; i < 25; i++) if ((await counter.increment()).succeeded) succeeded++;
      }),
    );
    expect(succeeded).toBe(100);
    expect(await new DistributedAtomicLong(clients[0]!, path).get()).toBe(100n);
  });

  it('reports succeeded: false when every round loses', async () => {
    const { racing, writes, path } = await losingCounterNode('lose');
    const counter = new DistributedAtomicLong(racing, path, {
      retry: { maxAttempts: 3, baseDelay: 1 },
    });
    const result = await counter.increment();
    expect(result.succeeded).toBe(false);
    expect(writes()).toBe(3);
  });

  it("ends the rounds at the retry policy's maxElapsed too", async () => {
    const { racing, writes, path } = await losingCounterNode('elapsed');
    // Pauses of 50 ms, at most 120 ms in all: the third round would start too late.
    const counter = new DistributedAtomicLong(racing, path, {
      retry: { maxAttempts: 100, baseDelay: 50, maxDelay: 50, jitter: 'none', maxElapsed: 120 },
    });
    const result = await counter.increment();
    expect(result.succeeded).toBe(false);
    expect(result.stats.optimisticTries).toBe(writes());
    expect(writes()).toBeGreaterThanOrEqual(2);
    expect(writes()).toBeLessThanOrEqual(3);
  });
});
