// Our LeaderLatch and revocation against Apache Curator's (5.x, in a JVM) on the same paths of a
// real server: one election with both, and revocation requests honoured in both directions.
// Like curator.test.ts, a missing Curator or JDK fails (never skips) with the package to install.
import { afterEach, describe, expect, it } from 'vitest';
import {
  LATCH_NAME,
  LeaderLatch,
  Mutex,
  RevocationRequestedError,
  revoke,
} from '../../src/locks/index.js';
import { aborted } from '../support/events.js';
import {
  childrenOf,
  curatorOnLock,
  nameOf,
  newClient,
  protectedName,
  untilChildren,
} from './helpers.js';
import { stillPendingAfter, within } from './peer.js';

const BLOCKED_MS = 500;

const latches: LeaderLatch[] = [];
afterEach(async () => {
  await Promise.all(latches.splice(0).map((latch) => latch.close()));
});

describe('LeaderLatch and Curator LeaderLatch in one election', () => {
  it('Curator leads first; both list the same participants; we lead once it closes', async () => {
    const { path, peer: curator, zk } = await curatorOnLock('latch:java');
    const held = await within(curator.acquire(), 10_000, 'curator leadership');
    const latch = new LeaderLatch(zk, path, { id: 'ts' });
    latches.push(latch);
    latch.start();
    await untilChildren(zk, path, 2);

    expect(await curator.ask('leading')).toBe(true);
    expect(latch.hasLeadership).toBe(false);
    // Both see one line, Curator's node first, with each side's id.
    expect(await curator.participants()).toEqual(['java', 'ts']);
    expect(await latch.participants()).toEqual([
      { id: 'java', path: held, isLeader: true },
      { id: 'ts', path: latch.ourPath, isLeader: false },
    ]);
    // Curator recognises our node as its own kind of protected node.
    expect(nameOf(latch.ourPath!)).toMatch(protectedName(LATCH_NAME));
    expect(await curator.ask(`protected ${nameOf(latch.ourPath!)}`)).toBe(true);

    const waiting = latch.leadership({ timeout: 10_000 });
    expect(await stillPendingAfter(waiting, BLOCKED_MS)).toBe(true);
    await curator.release();
    const leadership = await waiting;
    expect(leadership.fencingToken).toBeGreaterThan(0n);
    expect(await curator.participants()).toEqual(['ts']);
  });

  it('we lead first; Curator waits, and leads once we close', async () => {
    const { path, peer: curator, zk } = await curatorOnLock('latch:java');
    const latch = new LeaderLatch(zk, path, { id: 'ts' });
    latches.push(latch);
    latch.start();
    const leadership = await latch.leadership({ timeout: 10_000 });

    expect(await curator.acquireWithin(300)).toBeNull();
    expect(await curator.ask('leading')).toBe(false);
    expect(await curator.participants()).toEqual(['ts', 'java']);
    const waiting = curator.acquire();
    expect(await stillPendingAfter(waiting, BLOCKED_MS)).toBe(true);
    await latch.close();
    expect(leadership.signal.aborted).toBe(true);
    const held = await within(waiting, 10_000, 'curator leadership after our close');
    expect(await childrenOf(zk, path)).toEqual([nameOf(held)]);
    expect(await curator.ask('leading')).toBe(true);
    await curator.release();
  });
});

describe('LeaderLatch and Curator LeaderLatch in one line', () => {
  it('ours, Curator, ours: leadership passes down the line across both libraries', async () => {
    const [{ path, peer: curator, zk: a }, b] = await Promise.all([
      curatorOnLock('latch:java'),
      newClient(),
    ]);
    const latchA = new LeaderLatch(a, path, { id: 'a' });
    const latchB = new LeaderLatch(b, path, { id: 'b' });
    latches.push(latchA, latchB);
    latchA.start();
    const leaderA = await latchA.leadership({ timeout: 10_000 });
    const curatorLeads = curator.acquire();
    await untilChildren(a, path, 2);
    latchB.start();
    await untilChildren(a, path, 3);
    expect(await curator.participants()).toEqual(['a', 'java', 'b']);

    // Curator watches our node; our second candidate watches Curator's.
    await latchA.close();
    expect(leaderA.signal.aborted).toBe(true);
    await within(curatorLeads, 10_000, 'curator leadership after our leader closed');
    expect(await stillPendingAfter(latchB.leadership(), BLOCKED_MS)).toBe(true);
    await curator.release();
    const leaderB = await latchB.leadership({ timeout: 10_000 });
    expect(leaderB.fencingToken > leaderA.fencingToken).toBe(true);
    expect((await latchB.participants()).map((p) => p.id)).toEqual(['b']);
  });
});

describe('revocation with Curator', () => {
  it('Curator revokes our revocable lease (Revoker.attemptRevoke); we release, Curator gets it', async () => {
    const { path, peer: curator, zk } = await curatorOnLock('mutex');
    const lease = await new Mutex(zk, path).acquire({ revocable: true });
    lease.revocation.addEventListener('abort', () => void lease.release(), { once: true });
    const waiting = curator.acquire();
    await untilChildren(zk, path, 2);
    expect(await stillPendingAfter(waiting, BLOCKED_MS)).toBe(true);

    expect(await within(curator.request(`revoke ${lease.path}`), 10_000, 'revoke')).toBe(
      'revoke sent',
    );
    expect(await aborted(lease.revocation)).toBeInstanceOf(RevocationRequestedError);
    const held = await within(waiting, 10_000, 'curator acquire after revocation');
    expect(await childrenOf(zk, path)).toEqual([nameOf(held)]);
    await curator.release();
  });

  it('we revoke a revocable Curator holder (makeRevocable); it releases and we get the lock', async () => {
    const { path, peer: curator, zk } = await curatorOnLock('revocable');
    const held = await within(curator.acquire(), 10_000, 'curator acquire');
    const waiting = new Mutex(zk, path).acquire({ timeout: 15_000 });
    await untilChildren(zk, path, 2);
    expect(await stillPendingAfter(waiting, BLOCKED_MS)).toBe(true);
    expect(await curator.ask('revoked')).toBe(false);

    expect(await revoke(zk, path)).toBe(held);
    const lease = await waiting;
    expect(await curator.ask('revoked')).toBe(true);
    expect(await childrenOf(zk, path)).toEqual([nameOf(lease.path)]);
    await lease.release();
  });
});
