// inspectLock / findLocks against the real server: our locks, a Curator process and a kazoo
// process holding and queueing on the same paths; the view must agree with who really holds.
import { afterEach, describe, expect, it } from 'vitest';
import type { Client } from '../../../src/index.js';
import {
  ExclusiveLock,
  findLocks,
  inspectLock,
  type Lease,
  Mutex,
  ReadWriteLock,
  Semaphore,
} from '../../../src/locks/index.js';
import { sharedServer, uniquePath } from '../../harness/index.js';
import { startCuratorPeer } from '../../interop/curator.js';
import { startKazooPeer } from '../../interop/kazoo.js';
import { closeAllPeers } from '../../interop/peer.js';
import { newClient } from '../../support/clients.js';

// The clients close after this (test/support/clients.ts): its hook was registered first.
afterEach(async () => {
  await closeAllPeers();
});

/** A wait the test settles later; a failing test must not leave it as an unhandled rejection. */
function pending<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

const POLL = { timeout: 15_000, interval: 25 };
const text = (data: Uint8Array) => new TextDecoder().decode(data);
const summary = async (client: Client, path: string, maxLeases?: number) =>
  (await inspectLock(client, path, { maxLeases })).contenders.map(
    (c) => `${c.state} ${c.kind} ${c.naming ?? '-'} ${c.owner.toString(16)}`,
  );

describe('inspectLock', () => {
  it('lists our mutex, a Curator process and a kazoo process on one path in grant order, and follows handoffs', async () => {
    const root = uniquePath('inspect');
    // One lock path for all: Curator and kazoo each honour only their own names, so a path they
    // share has two independent queues.
    const curatorPath = `${root}/shared`;
    const kazooPath = curatorPath;
    const [a, b, observer] = await Promise.all([newClient(), newClient(), newClient()]);
    const [curator, kazoo] = await Promise.all([
      startCuratorPeer(sharedServer().connectString, curatorPath, 'mutex'),
      startKazooPeer(sharedServer().connectString, kazooPath, 'mutex'),
    ]);

    // Curator path: our holder, then the Java process, then another of ours.
    const held = await new Mutex(a, curatorPath, { data: 'ts-holder' }).acquire();
    const curatorHeld = pending(curator.acquire());
    await expect.poll(async () => (await observer.getChildren(curatorPath)).length, POLL).toBe(2);
    const bWaits = pending(new Mutex(b, curatorPath).acquire());
    await expect.poll(async () => (await observer.getChildren(curatorPath)).length, POLL).toBe(3);

    const view = await inspectLock(observer, curatorPath);
    expect(view.holders).toBe(1);
    expect(view.waiting).toBe(2);
    const [first, second, third] = view.contenders;
    expect(first).toMatchObject({
      state: 'holder',
      kind: 'mutex',
      naming: 'curator',
      owner: a.sessionId,
      path: held.path,
      fencingToken: held.fencingToken,
      waitsFor: undefined,
    });
    expect(text(first!.data)).toBe('ts-holder');
    expect(first!.age).toBeGreaterThanOrEqual(0);
    expect(first!.created).toBeLessThanOrEqual(Date.now() + 60_000);
    // The Java process queues second; Curator stores an IP address as its node data.
    expect(second).toMatchObject({ state: 'waiting', kind: 'mutex', naming: 'curator' });
    expect(second!.owner).not.toBe(a.sessionId);
    expect(second!.owner).not.toBe(b.sessionId);
    expect(text(second!.data)).toMatch(/^[0-9a-f.:]+$/i);
    expect(second!.waitsFor).toBe(first!.name);
    expect(third).toMatchObject({ state: 'waiting', owner: b.sessionId, waitsFor: second!.name });

    // Handoff: the view follows the real grant, to the Java process and then to us.
    await held.release();
    const curatorNode = await curatorHeld;
    const afterFirst = await inspectLock(observer, curatorPath);
    expect(afterFirst.contenders[0]).toMatchObject({ state: 'holder', path: curatorNode });
    expect(afterFirst.contenders.map((c) => c.state)).toEqual(['holder', 'waiting']);
    await curator.release();
    const bLease = await bWaits;
    expect(await summary(observer, curatorPath)).toEqual([
      `holder mutex curator ${b.sessionId.toString(16)}`,
    ]);
    await bLease.release();

    // kazoo path: the Python process holds, our kazoo-named mutex queues behind it.
    const kazooNode = await kazoo.acquire();
    const tsWaits = pending(new Mutex(a, kazooPath, { naming: 'kazoo', data: 'ts' }).acquire());
    await expect.poll(async () => (await observer.getChildren(kazooPath)).length, POLL).toBe(2);
    const kazooView = await inspectLock(observer, kazooPath);
    expect(kazooView.contenders[0]).toMatchObject({
      state: 'holder',
      kind: 'mutex',
      naming: 'kazoo',
      path: kazooNode,
    });
    expect(text(kazooView.contenders[0]!.data)).toBe('kazoo-peer');
    expect(kazooView.contenders[1]).toMatchObject({
      state: 'waiting',
      naming: 'kazoo',
      owner: a.sessionId,
    });
    // The Java process contends now too: it ignores kazoo's names, so it holds at once in the
    // Curator queue while the Python process holds the kazoo one (the view with separate queues;
    // the default, one queue, is what our recipes see: see inspect-mixed.test.ts).
    const curatorAgain = await curator.acquire();
    const mixed = await inspectLock(observer, curatorPath, { namingQueues: 'separate' });
    expect(mixed.contenders.map((c) => `${c.state} ${c.naming}`)).toEqual([
      'holder curator',
      'holder kazoo',
      'waiting kazoo',
    ]);
    expect(mixed.contenders.map((c) => c.path)).toEqual([
      curatorAgain,
      kazooNode,
      kazooView.contenders[1]!.path,
    ]);
    expect(mixed.contenders[2]!.waitsFor).toBe(mixed.contenders[1]!.name);
    // findLocks: one folder, both layouts, two holders and one waiter.
    const found = await findLocks(observer, root, { namingQueues: 'separate' });
    expect(
      found.map((f) => [f.path, f.layout, f.inspection.holders, f.inspection.waiting]),
    ).toEqual([[curatorPath, 'curator+kazoo', 2, 1]]);
    expect(found[0]!.holder?.path).toBe(curatorAgain);
    await curator.release();

    await kazoo.release();
    const tsLease = await tsWaits;
    expect((await inspectLock(observer, kazooPath)).contenders).toMatchObject([
      {
        state: 'holder',
        path: tsLease.path,
        fencingToken: tsLease.fencingToken,
        owner: a.sessionId,
      },
    ]);
    await tsLease.release();
    expect(await findLocks(observer, root)).toEqual([]);
  });

  it('read/write lock, semaphore and exclusive lock: holders and waiters as the recipes decide', async () => {
    const root = uniquePath('inspect');
    const [a, b, c, observer] = await Promise.all([
      newClient(),
      newClient(),
      newClient(),
      newClient(),
    ]);
    const leases: Lease[] = [];
    const rw = `${root}/rw`;
    leases.push(await new ReadWriteLock(a, rw).read.acquire());
    const writer = pending(new ReadWriteLock(b, rw).write.acquire());
    await expect.poll(async () => (await observer.getChildren(rw)).length, POLL).toBe(2);
    const lateReader = pending(new ReadWriteLock(c, rw).read.acquire());
    await expect.poll(async () => (await observer.getChildren(rw)).length, POLL).toBe(3);
    const rwView = await inspectLock(observer, rw);
    expect(rwView.contenders.map((x) => `${x.state} ${x.kind}`)).toEqual([
      'holder read',
      'waiting write',
      'waiting read', // behind the writer: no writer starvation
    ]);
    expect(rwView.contenders[2]!.waitsFor).toBe(rwView.contenders[1]!.name);

    const sem = `${root}/sem`;
    leases.push(await new Semaphore(a, sem, { maxLeases: 2 }).acquire());
    leases.push(await new Semaphore(b, sem, { maxLeases: 2 }).acquire());
    const third = pending(new Semaphore(c, sem, { maxLeases: 2 }).acquire());
    // The third takes the guard, creates its lease, then waits for the count to drop.
    await expect
      .poll(async () => (await observer.getChildren(`${sem}/leases`)).length, POLL)
      .toBe(3);
    const semView = await inspectLock(observer, sem, { maxLeases: 2 });
    expect(semView.contenders.map((x) => `${x.state} ${x.kind} ${x.owner.toString(16)}`)).toEqual(
      [a, b, c].map(
        (cl, i) => `${i < 2 ? 'holder' : 'waiting'} lease ${cl.sessionId.toString(16)}`,
      ),
    );

    const ex = `${root}/ex`;
    const exclusive = await new ExclusiveLock(b, ex).acquire();
    expect(await inspectLock(observer, ex)).toMatchObject({
      holders: 1,
      waiting: 0,
      contenders: [
        {
          state: 'holder',
          kind: 'exclusive',
          owner: b.sessionId,
          fencingToken: exclusive.fencingToken,
        },
      ],
    });
    expect((await inspectLock(observer, `${root}/nothing`)).contenders).toEqual([]);

    const found = await findLocks(observer, root);
    expect(
      found.map((f) => [f.path, f.layout, f.inspection.holders, f.inspection.waiting]),
    ).toEqual([
      [rw, 'curator', 1, 2],
      [sem, 'semaphore', 3, 0], // without maxLeases every lease node counts as held
    ]);

    await exclusive.release();
    for (const lease of leases) await lease.release();
    await (await writer).release();
    await (await lateReader).release();
    await (await third).release();
  });
});
