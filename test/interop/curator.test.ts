// Our locks and Apache Curator's (5.x, in a JVM) on the same lock paths of a real server: they must
// exclude each other, queue fairly together and recognise each other's nodes.
// Every test starts its Curator peer first, which fails (never skips) with a message naming the
// missing package when libcurator-recipes-java or a JDK is not installed: CI installs it.
import { describe, expect, it } from 'vitest';
import { parseContender } from '../../src/coordination/naming.js';
import { sortContenders } from '../../src/coordination/order.js';
import type { Client } from '../../src/index.js';
import {
  type Lease,
  LockName,
  LockTimeoutError,
  Mutex,
  ReadWriteLock,
  Semaphore,
} from '../../src/locks/index.js';
import { startCuratorPeer } from './curator.js';
import {
  childrenOf,
  connectString,
  curatorOnLock,
  inBackground,
  lockPath,
  nameOf,
  newClient,
  protectedName,
  untilChildren,
} from './helpers.js';
import {
  BLOCKED_MS,
  peerHoldsFirst,
  queueInArrivalOrder,
  sameOrderAfterWrap,
  weHoldFirst,
} from './mutex-scenarios.js';
import { sleep, stillPendingAfter, within } from './peer.js';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/** A Curator InterProcessMutex and our Mutex on one fresh lock path. */
async function mutexPair() {
  const pair = await curatorOnLock('mutex');
  return { ...pair, mutex: (zk: Client) => new Mutex(zk, pair.path) };
}

describe('Mutex and Curator InterProcessMutex', () => {
  it('exclude each other while Curator holds, and we get the lock when it releases', async () => {
    await peerHoldsFirst(await mutexPair());
  });

  it('exclude each other while we hold, and Curator gets the lock when we release', async () => {
    await weHoldFirst(await mutexPair());
  });

  it('queue fairly together: whichever contender came first gets the lock first', async () => {
    const pair = await mutexPair();
    await queueInArrivalOrder(pair, async (queue) => {
      // Curator sees the same queue as we do.
      expect((await pair.peer.participants()).map(nameOf)).toEqual(queue);
      expect(sortContenders(queue, [LockName.mutex]).map((x) => x.name)).toEqual(queue);
    });
  });

  it("use Curator's node names, and parse Curator's", async () => {
    const { path, peer: curator, zk } = await curatorOnLock('mutex');
    const lease = await new Mutex(zk, path).acquire({ timeout: 5_000 });
    const waiting = curator.acquire();
    await untilChildren(zk, path, 2);
    const [ours, theirs] = await childrenOf(zk, path);
    if (ours === undefined || theirs === undefined) throw new Error('contenders missing');
    expect(ours).toBe(nameOf(lease.path));

    // Ours: `_c_<uuid>-lock-<seq10>`, a protected name by Curator's own test...
    expect(ours).toMatch(protectedName('lock-'));
    expect(await curator.ask(`protected ${ours}`)).toBe(true);
    // ... and Curator's: the same shape, and a contender to our parser, with its sequence number.
    expect(theirs).toMatch(protectedName('lock-'));
    expect(parseContender(theirs, [LockName.mutex])).toEqual({
      name: theirs,
      lockName: LockName.mutex,
      sequence: Number(theirs.slice(-10)),
      sequenceText: theirs.slice(-10),
    });
    expect((await curator.participants()).map(nameOf)).toEqual([ours, theirs]);

    await lease.release();
    expect(nameOf(await within(waiting, 10_000, 'curator acquire'))).toBe(theirs);
    await curator.release();
  });

  it("sequenceOrder 'interop' agrees with Curator on the queue order once the sequence counter has wrapped", async () => {
    await sameOrderAfterWrap(await curatorOnLock('mutex'), LockName.mutex, {
      older: `_c_${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}-lock--2147483648`,
      newer: `_c_${'1'.repeat(8)}-1111-4111-8111-${'1'.repeat(12)}-lock--2147483647`,
    });
  });
});

describe('ReadWriteLock and Curator InterProcessReadWriteLock', () => {
  it("a Curator writer blocks our readers and writers; our reader blocks Curator's writer", async () => {
    const [{ path, peer: curator, zk }, zk2] = await Promise.all([
      curatorOnLock('write'),
      newClient(),
    ]);
    const lock = new ReadWriteLock(zk, path);
    const held = await within(curator.acquire(), 10_000, 'curator write lock');
    expect(nameOf(held)).toMatch(protectedName('__WRIT__'));

    expect(await lock.read.tryAcquire()).toBeNull();
    expect(await lock.write.tryAcquire()).toBeNull();
    await expect(lock.write.acquire({ timeout: 300 })).rejects.toBeInstanceOf(LockTimeoutError);
    const reading = inBackground(lock.read.acquire({ timeout: 10_000 }));
    expect(await stillPendingAfter(reading, BLOCKED_MS)).toBe(true);
    await curator.release();
    const readLease = await reading;
    expect(nameOf(readLease.path)).toMatch(protectedName('__READ__'));

    // Now our reader holds: Curator's writer must wait for it (and for our writer queued first).
    const writing = inBackground(new ReadWriteLock(zk2, path).write.acquire({ timeout: 10_000 }));
    await untilChildren(zk, path, 2);
    expect(await curator.acquireWithin(300)).toBeNull();
    await readLease.release();
    await (await writing).release();
    expect(await within(curator.acquireWithin(5_000), 6_000, 'curator write lock')).not.toBeNull();
    await curator.release();
  });

  it('Curator readers and ours share the lock; our writer waits for all of them', async () => {
    const [{ path, peer: curator, zk }, zk2] = await Promise.all([
      curatorOnLock('read'),
      newClient(),
    ]);
    const first = await new ReadWriteLock(zk, path).read.acquire({ timeout: 5_000 });
    // A Curator reader joins our reader...
    const theirs = await within(curator.acquireWithin(5_000), 6_000, 'curator read lock');
    expect(theirs).not.toBeNull();
    expect(nameOf(theirs ?? '')).toMatch(protectedName('__READ__'));
    // ... and another of ours joins both.
    const second = await new ReadWriteLock(zk2, path).read.acquire({ timeout: 5_000 });

    const writer = new ReadWriteLock(zk2, path).write;
    expect(await writer.tryAcquire()).toBeNull();
    const writing = inBackground(writer.acquire({ timeout: 10_000 }));
    await first.release();
    await second.release();
    expect(await stillPendingAfter(writing, BLOCKED_MS)).toBe(true); // Curator still reads
    await curator.release();
    await (await writing).release();
  });

  it('our writer blocks Curator readers until it releases', async () => {
    const { path, peer: curator, zk } = await curatorOnLock('read');
    const lease = await new ReadWriteLock(zk, path).write.acquire({ timeout: 5_000 });
    expect(await curator.acquireWithin(300)).toBeNull();
    const waiting = curator.acquire();
    expect(await stillPendingAfter(waiting, BLOCKED_MS)).toBe(true);
    await lease.release();
    expect(nameOf(await within(waiting, 10_000, 'curator read lock'))).toMatch(
      protectedName('__READ__'),
    );
    await curator.release();
  });
});

describe('Semaphore and Curator InterProcessSemaphoreV2', () => {
  it('share the leases: mixed holders never exceed maxLeases', async () => {
    const path = lockPath();
    const [javaA, javaB, tsA, tsB] = await Promise.all([
      startCuratorPeer(connectString(), path, 'semaphore:2'),
      startCuratorPeer(connectString(), path, 'semaphore:2'),
      newClient(),
      newClient(),
    ]);
    if (!tsA || !tsB) throw new Error('clients missing');
    const semA = new Semaphore(tsA, path, { maxLeases: 2 });
    const semB = new Semaphore(tsB, path, { maxLeases: 2 });

    // One of ours and one of Curator's fill the semaphore; nobody else gets in.
    const leaseA = await semA.acquire({ timeout: 5_000 });
    const javaLease = await within(javaA.acquireWithin(5_000), 6_000, 'curator lease');
    expect(javaLease).toMatch(new RegExp(`^${path}/leases/_c_${UUID}-lease-\\d{10}$`));
    expect(await semB.tryAcquire()).toBeNull();
    expect(await javaB.acquireWithin(300)).toBeNull();
    await expect(semB.acquire({ timeout: 300 })).rejects.toBeInstanceOf(LockTimeoutError);
    // The timeout rejects on time and removes its lease node in the background: wait for that.
    await untilChildren(tsA, `${path}/leases`, 2);
    // Curator counts our lease, we count Curator's.
    expect((await javaB.participants()).map(nameOf).sort()).toEqual(
      [nameOf(leaseA.path), nameOf(javaLease ?? '')].sort(),
    );

    // A release on either side lets a waiter of the other side in.
    const javaWaiting = javaB.acquire();
    expect(await stillPendingAfter(javaWaiting, BLOCKED_MS)).toBe(true);
    await leaseA.release();
    await within(javaWaiting, 10_000, 'curator lease after our release');
    const ourWaiting = inBackground(semB.acquire({ timeout: 10_000 }));
    expect(await stillPendingAfter(ourWaiting, BLOCKED_MS)).toBe(true);
    await javaA.release();
    const leaseB = await ourWaiting;
    await leaseB.release();
    await javaB.release();

    // Four contenders, two leases, a few rounds each. A holder counts as inside from when its
    // acquire is known to have succeeded until just before it is told to release: a window inside
    // its real hold, so an overlap seen here is a real one.
    let inside = 0;
    let maxInside = 0;
    const enter = () => {
      inside++;
      maxInside = Math.max(maxInside, inside);
    };
    const rounds = 3;
    const ours = [semA, semB].map(async (semaphore) => {
      for (let i = 0; i < rounds; i++) {
        const lease: Lease = await semaphore.acquire({ timeout: 20_000 });
        enter();
        await sleep(60);
        inside--;
        await lease.release();
      }
    });
    const theirs = [javaA, javaB].map(async (peer) => {
      for (let i = 0; i < rounds; i++) {
        await within(peer.acquire(), 20_000, `${peer.spec.name} lease`);
        enter();
        await sleep(60);
        inside--;
        await peer.release();
      }
    });
    await Promise.all([...ours, ...theirs]);
    expect(maxInside).toBeLessThanOrEqual(2);
    expect(await childrenOf(tsA, `${path}/leases`)).toEqual([]);
    expect(await childrenOf(tsA, `${path}/locks`)).toEqual([]);
  });
});
