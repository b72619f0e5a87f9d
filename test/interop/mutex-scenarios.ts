// The mutual-exclusion scenarios every peer lock (Curator's, kazoo's) must pass beside our Mutex,
// written once: the peer holds first, we hold first, and a mixed queue served in arrival order.
// Each test file supplies its peer, its Mutex options and its own checks of the nodes' names.
import { expect } from 'vitest';
import type { Client } from '../../src/index.js';
import { type Lease, LockTimeoutError, type Mutex } from '../../src/locks/index.js';
import { childrenOf, inBackground, nameOf, newClient, untilChildren } from './helpers.js';
import { type LockPeer, stillPendingAfter, within } from './peer.js';

/** How long a blocked acquire is watched to show it stays blocked. */
export const BLOCKED_MS = 500;

/** A peer on `path` and the Mutex on the same path that it must exclude. */
export interface MutexPair {
  readonly peer: LockPeer;
  readonly path: string;
  /** Our Mutex on `path` for `client`; `data` labels its node where the naming keeps data. */
  mutex(client: Client, data: string): Mutex;
}

/**
 * The peer holds: our tryAcquire and a timed acquire fail and leave no node, a waiting acquire
 * gets the lock when the peer releases. `peerNode` checks the peer's node name; `ourNode` ours.
 */
export async function peerHoldsFirst(
  { peer, path, mutex }: MutexPair,
  checks: { peerNode?(name: string): void; ourNode?(name: string): void } = {},
): Promise<void> {
  const zk = await newClient();
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
  { peer, path, mutex }: MutexPair,
  checks: { ourNode?(name: string): void; queued?(): Promise<void> } = {},
): Promise<void> {
  const zk = await newClient();
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
  { peer, path, mutex }: MutexPair,
  seen: (queue: string[]) => Promise<void>,
): Promise<void> {
  const [a, b, c] = await Promise.all([newClient(), newClient(), newClient()]);
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
