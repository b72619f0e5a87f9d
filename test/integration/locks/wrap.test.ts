// Lock order at the limit of ZooKeeper's sequence counter, on a real server whose lock parent was
// crafted with a child counter just below 2^31 (test/fixtures/java/WrapSnapshot.java), so that
// real contenders get sequences on both sides of the limit. ZooKeeper 3.8 stops the counter at
// 2147483647 (every later child gets that number); the order must stay the creation order.
import { describe, expect, it } from 'vitest';
import { type Client, CreateMode } from '../../../src/index.js';
import { inspectLock, type Lease, Mutex, ReadWriteLock } from '../../../src/locks/index.js';
import { afterRoundTrips } from '../../support/request-log.js';
import { serverAtTheLimit } from './at-the-limit.js';
import { sleep, until } from './helpers.js';

const PARENT = '/wrap';

const { client, reachLimit } = serverAtTheLimit(PARENT);

/** Whether `pending` is still unsettled (it had every chance to settle before). */
async function stillWaiting(pending: Promise<unknown>): Promise<boolean> {
  const settled = pending.then(
    () => false,
    () => false,
  );
  return Promise.race([settled, sleep(0).then(() => true)]);
}

/** Children of PARENT in creation order (by czxid), as the server recorded it. */
async function byCzxid(zk: Client): Promise<string[]> {
  const names = await zk.getChildren(PARENT);
  const stats = await Promise.all(names.map((name) => zk.exists(`${PARENT}/${name}`)));
  return names
    .map((name, i) => ({ name, czxid: stats[i]!.czxid }))
    .sort((x, y) => (x.czxid < y.czxid ? -1 : 1))
    .map(({ name }) => name);
}

const sequenceOf = (name: string) => name.slice(name.lastIndexOf('lock-') + 5);

describe('locks at the limit of the sequence counter (2^31 - 1)', () => {
  it('Mutex: contenders before and at the limit are granted one at a time, in creation order', async () => {
    const [a, b] = await Promise.all([client(), client()]);
    const contenders = Array.from({ length: 8 }, (_, i) => new Mutex(i % 2 ? b : a, PARENT));
    const leases: Promise<Lease>[] = [];
    // Queue them one after another: sequences 2147483645, 2147483646, then 6 x 2147483647.
    for (const [i, mutex] of contenders.entries()) {
      const lease = mutex.acquire({ timeout: 30_000 });
      lease.catch(() => {}); // checked below; a failed assertion must not leave it unhandled
      leases.push(lease);
      await until(async () => (await a.getChildren(PARENT)).length === i + 1, `contender ${i}`);
    }
    const created = await byCzxid(a);
    expect(created.map(sequenceOf)).toEqual([
      '2147483645',
      '2147483646',
      ...Array.from({ length: 6 }, () => '2147483647'),
    ]);
    const granted: string[] = [];
    for (const [i, pending] of leases.entries()) {
      const lease = await pending;
      granted.push(lease.path.slice(PARENT.length + 1));
      // Everyone queued behind must still be waiting: any wrong wake-up has shown by then.
      await afterRoundTrips([a, b], PARENT);
      for (const later of leases.slice(i + 1)) expect(await stillWaiting(later)).toBe(true);
      // Nor can a newcomer (also at the limit) jump the queue.
      expect(await new Mutex(b, PARENT).tryAcquire()).toBeNull();
      await lease.release();
    }
    expect(granted).toEqual(created);
  });

  it('ReadWriteLock at the limit: a newer writer waits for an older reader', async () => {
    const [a, b] = await Promise.all([client(), client()]);
    // Both nodes get the same sequence (the limit): only the creation order can tell them apart.
    for (let round = 0; round < 6; round++) {
      const reader = await new ReadWriteLock(a, PARENT).read.acquire({ timeout: 5_000 });
      const waiting = new ReadWriteLock(b, PARENT).write.acquire({ timeout: 10_000 });
      waiting.catch(() => {});
      await until(async () => (await a.getChildren(PARENT)).length === 2, 'the writer queued');
      expect((await a.getChildren(PARENT)).map((name) => name.slice(-10))).toEqual([
        '2147483647',
        '2147483647',
      ]);
      await afterRoundTrips([a, b], PARENT);
      expect(await stillWaiting(waiting)).toBe(true);
      await reader.release();
      await (await waiting).release();
    }
  });

  it("inspectLock at the limit: its holder is the Mutex's actual holder, its order the grant order", async () => {
    const [a, b] = await Promise.all([client(), client()]);
    await reachLimit(a);
    // Every contender gets the limit as its sequence: only the creation order tells them apart.
    try {
      const holder = await new Mutex(a, PARENT).acquire({ timeout: 5_000 });
      const waiters: Promise<Lease>[] = [];
      for (let i = 0; i < 5; i++) {
        const waiting = new Mutex(i % 2 ? a : b, PARENT).acquire({ timeout: 20_000 });
        waiting.catch(() => {});
        waiters.push(waiting);
        await until(async () => (await a.getChildren(PARENT)).length === i + 2, `waiter ${i}`);
      }
      const created = await byCzxid(a);
      expect(created[0]).toBe(holder.path.slice(PARENT.length + 1));
      for (const pending of [Promise.resolve(holder), ...waiters]) {
        const lease = await pending;
        // The default order and the recipes' ('numeric') agree with who actually holds.
        for (const options of [{}, { sequenceOrder: 'numeric' as const }]) {
          const inspection = await inspectLock(b, PARENT, options);
          expect(inspection.holders).toBe(1);
          expect(inspection.contenders[0]!.path).toBe(lease.path);
          expect(inspection.contenders.map((c) => c.name)).toEqual(
            created.slice(created.indexOf(lease.path.slice(PARENT.length + 1))),
          );
        }
        await lease.release();
      }
    } finally {
      // A failure must not leave contenders queued for the next test: their sessions take them.
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('a wrapped counter (negative sequences, as servers before 3.5 give) keeps creation order too', async () => {
    const [a, b, c] = await Promise.all([client(), client(), client()]);
    // Servers before 3.5 go on at -2147483648 after the limit. This one stops at the limit, so
    // the wrapped contenders are written by hand (ephemeral, in creation order) between a real
    // holder at the limit and a real waiter that comes after them.
    await reachLimit(a);
    const holder = await new Mutex(a, PARENT).acquire({ timeout: 5_000 });
    expect(holder.path.slice(-10)).toBe('2147483647');
    const wrapped = [] as string[];
    for (const sequence of ['-2147483648', '-2147483647']) {
      const name = `_c_${crypto.randomUUID()}-lock-${sequence}`;
      await b.create2(`${PARENT}/${name}`, undefined, { mode: CreateMode.EPHEMERAL });
      wrapped.push(`${PARENT}/${name}`);
    }
    const waiting = new Mutex(c, PARENT).acquire({ timeout: 20_000 });
    waiting.catch(() => {});
    await until(async () => (await a.getChildren(PARENT)).length === 4, 'the waiter queued');
    // Text order would put both negatives first; numeric order would put them before the holder.
    for (const next of [holder.path, ...wrapped]) {
      await afterRoundTrips([a, b, c], PARENT);
      expect(await stillWaiting(waiting)).toBe(true);
      expect(await new Mutex(b, PARENT).tryAcquire()).toBeNull();
      if (next === holder.path) await holder.release();
      else await b.delete(next);
    }
    const lease = await waiting;
    expect(lease.path.slice(-10)).toBe('2147483647');
    await lease.release();
  });
});
