// Our Mutex with kazoo naming and kazoo's Lock (Python) on the same lock paths of a real server:
// they must exclude each other, queue fairly together and recognise each other's nodes.
// Every test starts its kazoo peer first, which fails (never skips) with a message naming the
// missing package when python3-kazoo is not installed: CI installs it.
import { describe, expect, it } from 'vitest';
import { parseContender } from '../../src/coordination/naming.js';
import type { Client } from '../../src/index.js';
import { LockName, LockTimeoutError, Mutex } from '../../src/locks/index.js';
import { inBackground, kazooOnLock, nameOf, untilChildren } from './helpers.js';
import * as scenario from './mutex-scenarios.js';
import { stillPendingAfter, within } from './peer.js';

/** kazoo's node name: uuid4().hex + `__lock__` + the 10-digit sequence. */
const KAZOO_NAME = /^[0-9a-f]{32}__lock__\d{10}$/;
/** The data of the kazoo peer's nodes (its lock identifier). */
const PEER_DATA = 'kazoo-peer';

/** A kazoo Lock and our Mutex with kazoo naming (its data labelling each node) on one path. */
async function mutexPair() {
  const pair = await kazooOnLock('mutex');
  const mutex = (zk: Client, data: string) => new Mutex(zk, pair.path, { naming: 'kazoo', data });
  return { ...pair, mutex };
}

describe("Mutex (naming 'kazoo') and kazoo's Lock", () => {
  it('exclude each other while kazoo holds, and we get the lock when it releases', async () => {
    await scenario.peerHoldsFirst(await mutexPair(), {
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
    });
  });

  it('exclude each other while we hold, and kazoo gets the lock when we release', async () => {
    const pair = await mutexPair();
    const kazoo = pair.peer;
    await scenario.weHoldFirst(pair, {
      ourNode: (name) => expect(name).toMatch(KAZOO_NAME),
      // kazoo counts our node as a contender, ahead of its own.
      queued: async () => expect(await kazoo.participants()).toEqual(['ts', PEER_DATA]),
    });
  });

  it('queue fairly together: whichever contender came first gets the lock first', async () => {
    const pair = await mutexPair();
    const kazoo = pair.peer;
    await scenario.queueInArrivalOrder(pair, async () => {
      expect(await kazoo.participants()).toEqual(['a', 'b', PEER_DATA, 'c']);
    });
  });

  it("also exclude kazoo's WriteLock, both ways round", async () => {
    const { path, peer: kazoo, zk } = await kazooOnLock('write');
    const mutex = new Mutex(zk, path, { naming: 'kazoo' });
    await within(kazoo.acquire(), 10_000, 'kazoo write lock');
    expect(await mutex.tryAcquire()).toBeNull();
    const waiting = inBackground(mutex.acquire({ timeout: 10_000 }));
    expect(await stillPendingAfter(waiting, scenario.BLOCKED_MS)).toBe(true);
    await kazoo.release();
    const lease = await waiting;
    expect(await kazoo.acquireWithin(300)).toBeNull();
    await lease.release();
    expect(await kazoo.acquireWithin(5_000)).not.toBeNull();
    await kazoo.release();
  });

  it("sequenceOrder 'interop' agrees with kazoo on the queue order once the sequence counter has wrapped", async () => {
    await scenario.sameOrderAfterWrap(await kazooOnLock('mutex'), LockName.kazooMutex, {
      older: `${'a'.repeat(32)}${LockName.kazooMutex}-2147483648`,
      newer: `${'b'.repeat(32)}${LockName.kazooMutex}-2147483647`,
      byData: true,
    });
  });
});

describe("kazoo's Lock with extra_lock_patterns=['-lock-'] and our default Mutex", () => {
  it('exclude each other both ways round: a kazoo holder stops ours, and ours stops kazoo', async () => {
    const { path, peer: kazoo, zk } = await kazooOnLock('mutex-extra');
    const mutex = new Mutex(zk, path);
    // kazoo holds (a `__lock__` node): our Curator-style Mutex must not get in.
    const held = await within(kazoo.acquire(), 10_000, 'kazoo acquire');
    expect(nameOf(held)).toMatch(KAZOO_NAME);
    expect(await mutex.tryAcquire()).toBeNull();
    await expect(mutex.acquire({ timeout: 300 })).rejects.toBeInstanceOf(LockTimeoutError);
    const waiting = inBackground(mutex.acquire({ timeout: 10_000 }));
    expect(await stillPendingAfter(waiting, scenario.BLOCKED_MS)).toBe(true);
    await kazoo.release();
    const lease = await waiting;
    expect(nameOf(lease.path)).toMatch(/^_c_[0-9a-f-]{36}-lock-\d{10}$/);
    // Now ours holds: kazoo (counting `-lock-` nodes) must wait for it.
    expect(await kazoo.acquireWithin(300)).toBeNull();
    const theirs = kazoo.acquire();
    await untilChildren(zk, path, 2);
    expect(await stillPendingAfter(theirs, scenario.BLOCKED_MS)).toBe(true);
    await lease.release();
    await within(theirs, 10_000, 'kazoo acquire after our release');
    await kazoo.release();
  });
});
