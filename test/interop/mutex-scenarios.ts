// The mutual-exclusion scenarios every peer lock (Curator's, kazoo's) must pass beside our Mutex,
// written once: the peer holds first, we hold first, a mixed queue served in arrival order, and
// one queue order once the sequence counter has wrapped. Each test file supplies its peer, its
// Mutex options and its own checks of the nodes' names.
import { expect } from 'vitest';
import { sortContenders } from '../../src/coordination/order.js';
import type { Client } from '../../src/index.js';
import { type Lease, type LockName, LockTimeoutError, type Mutex } from '../../src/locks/index.js';
import {
  childrenOf,
  createPath,
  inBackground,
  nameOf,
  newClients,
  type PeerOnLock,
  untilChildren,
} from './helpers.js';
import { stillPendingAfter, within } from './peer.js';

/** How long a blocked acquire is watched to show it stays blocked. */
export const BLOCKED_MS = 500;

/** A peer on `path`, our client `zk`, and the Mutex on the same path that the peer must exclude. */
export interface MutexPair extends PeerOnLock {
  /** Our Mutex on `path` for `client`; `data` labels its node where the naming keeps data. */
  mutex(client: Client, data: string): Mutex;
}

/**
 * The peer holds: our tryAcquire and a timed acquire fail and leave no node, a waiting acquire
 * gets the lock when the peer releases. `peerNode` checks the peer's node name; `ourNode` ours.
 */
export async function peerHoldsFirst(
  { peer, path, zk, mutex }: MutexPair,
  checks: { peerNode?(name: string): void; ourNode?(name: string): void } = {},
): Promise<void> {
  const ours = mutex(zk, 'ts');
  const held = nameOf(await within(peer.acquire(), 10_000, `${peer.spec.name} acquire`));
  checks.peerNode?.(held);

  expect(await ours.tryAcquire()).toBeNull();
  await expect(ours.acquire({ timeout: 300 })).rejects.toBeInstanceOf(LockTimeoutError);
  // Neither attempt left a node behind (the timed-out one's cleanup runs in the background).
  await untilChildren(zk, path, 1);
  expect(await childrenOf(zk, path)).toEqual([held]);

  const waiting = inBackground(ours.acquire({ timeout: 10_000 }));
  expect(await stillPendingAfter(waiting, BLOCKED_MS)).toBe(true);
  await peer.release();
  const lease = await waiting;
  expect(await childrenOf(zk, path)).toEqual([nameOf(lease.path)]);
  checks.ourNode?.(nameOf(lease.path));
  await lease.release();
}

/**
 * We hold: the peer's timed acquire fails, a waiting one queues behind our node and gets the
 * lock when we release. `queued` sees the peer's view of the two contenders.
 */
export async function weHoldFirst(
  { peer, path, zk, mutex }: MutexPair,
  checks: { ourNode?(name: string): void; queued?(): Promise<void> } = {},
): Promise<void> {
  const lease = await mutex(zk, 'ts').acquire({ timeout: 5_000 });
  checks.ourNode?.(nameOf(lease.path));

  expect(await peer.acquireWithin(300)).toBeNull();
  expect(await childrenOf(zk, path)).toEqual([nameOf(lease.path)]);

  const waiting = peer.acquire();
  await untilChildren(zk, path, 2);
  await checks.queued?.();
  expect(await stillPendingAfter(waiting, BLOCKED_MS)).toBe(true);
  await lease.release();
  const held = nameOf(await within(waiting, 10_000, `${peer.spec.name} acquire after our release`));
  expect(await childrenOf(zk, path)).toEqual([held]);
  await peer.release();
}

/**
 * a (holds), b, the peer, c queue in that order, each only after the previous one's node exists,
 * and get the lock in that order. `seen` checks the queue of four once it stands.
 */
export async function queueInArrivalOrder(
  { peer, path, zk: a, mutex }: MutexPair,
  seen: (queue: string[]) => Promise<void>,
): Promise<void> {
  const [b, c] = (await newClients(2)) as [Client, Client];
  const leaseA: Lease = await mutex(a, 'a').acquire({ timeout: 5_000 });
  const waitB = inBackground(mutex(b, 'b').acquire({ timeout: 20_000 }));
  await untilChildren(a, path, 2);
  const waitPeer = peer.acquire();
  await untilChildren(a, path, 3);
  const waitC = inBackground(mutex(c, 'c').acquire({ timeout: 20_000 }));
  await untilChildren(a, path, 4);
  await seen(await childrenOf(a, path));

  // TypeScript before the peer...
  await leaseA.release();
  const leaseB = await waitB;
  expect(await stillPendingAfter(waitPeer, BLOCKED_MS)).toBe(true);
  // ... the peer before TypeScript ...
  await leaseB.release();
  await within(waitPeer, 10_000, `${peer.spec.name} acquire in its turn`);
  expect(await stillPendingAfter(waitC, BLOCKED_MS)).toBe(true);
  // ... and the last one last.
  await peer.release();
  await (await waitC).release();
}

/**
 * ZooKeeper's sequence is the parent's signed 32-bit cversion: after 2^31 child changes it goes on
 * at -2147483648, -2147483647, ... Nobody can create 2^31 nodes in a test, so the two contender
 * nodes `older` and `newer` (named with those sequences) are created directly, oldest first,
 * holding the data `older` and `newer`. All clients on one path must agree on who is first, or two
 * of them hold the lock at once: the peer's participants (node names, or with `byData` the nodes'
 * data) must be in the order of sequenceOrder 'interop'.
 */
export async function sameOrderAfterWrap(
  { peer, path, zk }: PeerOnLock,
  lockName: LockName,
  { older, newer, byData = false }: { older: string; newer: string; byData?: boolean },
): Promise<void> {
  await createPath(zk, path);
  try {
    await zk.create2(`${path}/${older}`, 'older');
    await zk.create2(`${path}/${newer}`, 'newer');
    const ours = sortContenders([newer, older], [lockName], 'interop').map((x) => x.name);
    const participants = await peer.participants();
    if (byData) expect(participants).toEqual(ours.map((n) => (n === older ? 'older' : 'newer')));
    else expect(participants.map(nameOf)).toEqual(ours);
  } finally {
    await zk.delete(`${path}/${newer}`).catch(() => {});
    await zk.delete(`${path}/${older}`).catch(() => {});
  }
}
