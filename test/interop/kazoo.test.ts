// Our Mutex with kazoo naming and kazoo's Lock (Python) on the same lock paths of a real server:
// they must exclude each other, queue fairly together and recognise each other's nodes.
// Every test starts its kazoo peer first, which fails (never skips) with a message naming the
// missing package when python3-kazoo is not installed: CI installs it.
import { describe, expect, it } from 'vitest';
import { parseContender } from '../../src/coordination/naming.js';
import { sortContenders } from '../../src/coordination/order.js';
import type { Client } from '../../src/index.js';
import { LockName, LockTimeoutError, Mutex } from '../../src/locks/index.js';
import {
  connectString,
  createPath,
  inBackground,
  lockPath,
  nameOf,
  newClient,
  untilChildren,
} from './helpers.js';
import { startKazooPeer } from './kazoo.js';
import { BLOCKED_MS, peerHoldsFirst, queueInArrivalOrder, weHoldFirst } from './mutex-scenarios.js';
import { stillPendingAfter, within } from './peer.js';

/** kazoo's node name: uuid4().hex + `__lock__` + the 10-digit sequence. */
const KAZOO_NAME = /^[0-9a-f]{32}__lock__\d{10}$/;
/** The data of the kazoo peer's nodes (its lock identifier). */
const PEER_DATA = 'kazoo-peer';

describe("Mutex (naming 'kazoo') and kazoo's Lock", () => {
  it('exclude each other while kazoo holds, and we get the lock when it releases', async () => {
    const path = lockPath();
    const kazoo = await startKazooPeer(connectString(), path, 'mutex');
    await peerHoldsFirst(
      {
        peer: kazoo,
        path,
        mutex: (zk: Client, data: string) => new Mutex(zk, path, { naming: 'kazoo', data }),
      },
      {
        peerNode: (theirs) => {
          expect(theirs).toMatch(KAZOO_NAME);
          expect(parseContender(theirs, [LockName.kazooMutex])).toEqual({
            name: theirs,
            lockName: LockName.kazooMutex,
            sequence: Number(theirs.slice(-10)),
            sequenceText: theirs.slice(-10),
          });
        },
        ourNode: (name) => expect(name).toMatch(KAZOO_NAME),
      },
    );
  });

  it('exclude each other while we hold, and kazoo gets the lock when we release', async () => {
    const path = lockPath();
    const kazoo = await startKazooPeer(connectString(), path, 'mutex');
    await weHoldFirst(
      {
        peer: kazoo,
        path,
        mutex: (zk: Client, data: string) => new Mutex(zk, path, { naming: 'kazoo', data }),
      },
      {
        ourNode: (name) => expect(name).toMatch(KAZOO_NAME),
        // kazoo counts our node as a contender, ahead of its own.
        queued: async () => expect(await kazoo.participants()).toEqual(['ts', PEER_DATA]),
      },
    );
  });

  it('queue fairly together: whichever contender came first gets the lock first', async () => {
    const path = lockPath();
    const kazoo = await startKazooPeer(connectString(), path, 'mutex');
    await queueInArrivalOrder(
      {
        peer: kazoo,
        path,
        mutex: (zk: Client, data: string) => new Mutex(zk, path, { naming: 'kazoo', data }),
      },
      async () => {
        expect(await kazoo.participants()).toEqual(['a', 'b', PEER_DATA, 'c']);
      },
    );
  });

  it("also exclude kazoo's WriteLock, both ways round", async () => {
    const path = lockPath();
    const [kazoo, zk] = await Promise.all([
      startKazooPeer(connectString(), path, 'write'),
      newClient(),
    ]);
    const mutex = new Mutex(zk, path, { naming: 'kazoo' });
    await within(kazoo.acquire(), 10_000, 'kazoo write lock');
    expect(await mutex.tryAcquire()).toBeNull();
    const waiting = inBackground(mutex.acquire({ timeout: 10_000 }));
    expect(await stillPendingAfter(waiting, BLOCKED_MS)).toBe(true);
    await kazoo.release();
    const lease = await waiting;
    expect(await kazoo.acquireWithin(300)).toBeNull();
    await lease.release();
    expect(await kazoo.acquireWithin(5_000)).not.toBeNull();
    await kazoo.release();
  });

  it("sequenceOrder 'interop' agrees with kazoo on the queue order once the sequence counter has wrapped", async () => {
    // ZooKeeper's sequence is the parent's signed 32-bit cversion: after 2^31 child changes it
    // goes on at -2147483648, -2147483647, ... Nobody can create 2^31 nodes in a test, so two
    // contender nodes are created with those names directly, oldest first; their data says
    // which is which. All clients on one path must agree on who is first, or two of them hold.
    const path = lockPath();
    const [kazoo, zk] = await Promise.all([
      startKazooPeer(connectString(), path, 'mutex'),
      newClient(),
    ]);
    const older = `${'a'.repeat(32)}${LockName.kazooMutex}-2147483648`;
    const newer = `${'b'.repeat(32)}${LockName.kazooMutex}-2147483647`;
    await createPath(zk, path);
    try {
      await zk.create2(`${path}/${older}`, 'older');
      await zk.create2(`${path}/${newer}`, 'newer');
      const ours = sortContenders([newer, older], [LockName.kazooMutex], 'interop').map(
        (x) => x.name,
      );
      const oursAsData = ours.map((name) => (name === older ? 'older' : 'newer'));
      expect(await kazoo.participants()).toEqual(oursAsData);
    } finally {
      await zk.delete(`${path}/${newer}`).catch(() => {});
      await zk.delete(`${path}/${older}`).catch(() => {});
    }
  });
});

describe("kazoo's Lock with extra_lock_patterns=['-lock-'] and our default Mutex", () => {
  it('exclude each other both ways round: a kazoo holder stops ours, and ours stops kazoo', async () => {
    const path = lockPath();
    const [kazoo, zk] = await Promise.all([
      startKazooPeer(connectString(), path, 'mutex-extra'),
      newClient(),
    ]);
    const mutex = new Mutex(zk, path);
    // kazoo holds (a `__lock__` node): our Curator-style Mutex must not get in.
    const held = await within(kazoo.acquire(), 10_000, 'kazoo acquire');
    expect(nameOf(held)).toMatch(KAZOO_NAME);
    expect(await mutex.tryAcquire()).toBeNull();
    await expect(mutex.acquire({ timeout: 300 })).rejects.toBeInstanceOf(LockTimeoutError);
    const waiting = inBackground(mutex.acquire({ timeout: 10_000 }));
    expect(await stillPendingAfter(waiting, BLOCKED_MS)).toBe(true);
    await kazoo.release();
    const lease = await waiting;
    expect(nameOf(lease.path)).toMatch(/^_c_[0-9a-f-]{36}-lock-\d{10}$/);
    // Now ours holds: kazoo (counting `-lock-` nodes) must wait for it.
    expect(await kazoo.acquireWithin(300)).toBeNull();
    const theirs = kazoo.acquire();
    await untilChildren(zk, path, 2);
    expect(await stillPendingAfter(theirs, BLOCKED_MS)).toBe(true);
    await lease.release();
    await within(theirs, 10_000, 'kazoo acquire after our release');
    await kazoo.release();
  });
});
