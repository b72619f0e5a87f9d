// Who holds a lock and who waits: a read-only view of a lock path, ordered and decided by the
// same functions the recipes use, so it agrees with what our locks, Curator and kazoo do.

import type { RecipeClient } from '../client/recipe-client.js';
import {
  baseName,
  childPath,
  LockName,
  type NamingStyle,
  parentOf,
  parseContender,
} from '../coordination/naming.js';
import { predecessorDecision, type SequenceOrder } from '../coordination/order.js';
import { LATCH_NAME } from './election-types.js';
import { badArguments } from './errors.js';
import {
  CURATOR_NAMES,
  childrenOf,
  KAZOO_NAMES,
  LOCK_NAMES,
  type Planned,
  planQueue,
  queueOf,
  readContenders,
  readNode,
} from './inspect-plan.js';
import type { LockClient } from './types.js';

export { KAZOO_READ_NAME } from './inspect-plan.js';

/**
 * What a contender node is: a mutex node, one side of a read/write lock, a semaphore lease, an
 * {@link ExclusiveLock} node, or a {@link LeaderLatch} candidate (`'candidate'`: its holder is the
 * election's leader). A {@link LeaderSelector}'s nodes are mutex nodes: its holder is the leader.
 */
export type ContenderKind = 'mutex' | 'read' | 'write' | 'lease' | 'exclusive' | 'candidate';

/** One node of a lock, holding or waiting. */
export interface LockContender {
  /** The node name (last path segment). */
  readonly name: string;
  /** The node's full path (relative to the client's chroot). */
  readonly path: string;
  /** Whether the node holds the lock now, or waits for it. */
  readonly state: 'holder' | 'waiting';
  /** Which recipe's node it is (see {@link ContenderKind}). */
  readonly kind: ContenderKind;
  /** Whose naming the node follows; undefined for an {@link ExclusiveLock} node. */
  readonly naming: NamingStyle | undefined;
  /** The server-assigned sequence number (undefined for an exclusive lock node). */
  readonly sequence: number | undefined;
  /** For a waiter: the name of the node it waits on (the one whose deletion wakes it). */
  readonly waitsFor: string | undefined;
  /** The session that owns the (ephemeral) node: `ephemeralOwner`. */
  readonly owner: bigint;
  /** When the node was created (ms since the epoch, the server's clock). */
  readonly created: number;
  /** How long ago the node was created, by this machine's clock (so only as good as the clocks). */
  readonly age: number;
  /** The node's czxid: the fencing token a holder gets, strictly increasing across holders. */
  readonly fencingToken: bigint;
  /** The node's data: Curator stores the owner's IP address, kazoo its identifier. */
  readonly data: Uint8Array;
}

/** A lock path as seen now: its contenders in grant order. */
export interface LockInspection {
  /** The lock path inspected. */
  readonly path: string;
  /**
   * Holders first in the order they were granted, then waiters in the order they will be.
   * Curator-style and kazoo-style lock nodes on one path form one queue, as the recipes see them
   * (see {@link InspectOptions.namingQueues}); LeaderLatch candidates form their own line.
   */
  readonly contenders: readonly LockContender[];
  /** The contenders that hold (several for read locks and semaphores). */
  readonly holders: number;
  /** The contenders that wait. */
  readonly waiting: number;
}

/** Options of {@link inspectLock}. */
export interface InspectOptions {
  /**
   * The order the lock's users use (default `'numeric'`, the recipes' default: creation order,
   * by czxid once a contender is at the sequence counter's limit). Pass `'interop'` for a lock
   * whose users sort as Curator and kazoo do.
   */
  sequenceOrder?: SequenceOrder;
  /**
   * For a semaphore: its number of leases. Without it every lease node counts as held (a process
   * that has just created its lease and waits for the count to drop shows up as a holder).
   */
  maxLeases?: number;
  /**
   * How Curator-style (`-lock-`, `__READ__`, `__WRIT__`) and kazoo-style (`__lock__`, `__rlock__`)
   * nodes on one path are queued. `'shared'` (default): one queue, as this library's `Mutex` (in
   * either naming) and kazoo with `extra_lock_patterns=['-lock-']` see them. `'separate'`: two
   * independent queues, each with its own holder, as Curator's own InterProcessMutex and kazoo's
   * default Lock see them (each honours only its own names): use it for a path where such Java
   * and Python processes contend together.
   */
  namingQueues?: 'shared' | 'separate';
  /** Abandons the reads (the promise rejects with the signal's reason). */
  signal?: AbortSignal;
}

/** The members of a RecipeClient inspecting reads through: reads only (not exported by an entry point). */
export type InspectClient = Pick<LockClient, 'getChildren' | 'getData' | 'exists'>;

/** The semaphore layout (`leases/` and `locks/` under the path): lease holders, then the guard queue. */
async function planSemaphore(
  client: InspectClient,
  path: string,
  options: InspectOptions,
): Promise<Planned[]> {
  const order = options.sequenceOrder ?? 'numeric';
  const { signal } = options;
  const leasesDir = childPath(path, 'leases');
  const guardDir = childPath(path, 'locks');
  const [leaseNodes, guardNodes] = await Promise.all([
    childrenOf(client, leasesDir, signal).then((children) =>
      readContenders(client, leasesDir, children, [LockName.lease], signal),
    ),
    childrenOf(client, guardDir, signal).then((children) =>
      readContenders(client, guardDir, children, [LockName.mutex], signal),
    ),
  ]);
  const leases = queueOf(leaseNodes, [LockName.lease], order);
  const max = options.maxLeases ?? Number.POSITIVE_INFINITY;
  const planned: Planned[] = leases.map((lease, own) => ({
    name: lease.name,
    dir: leasesDir,
    kind: 'lease',
    naming: 'curator',
    sequence: lease.sequence,
    decision: own < max ? { acquired: true } : predecessorDecision(leases, own, max),
    node: leaseNodes.get(lease.name)!,
  }));
  // Contenders of the guard mutex are processes waiting for a lease (its head is taking one now).
  const guard = queueOf(guardNodes, [LockName.mutex], order);
  for (const [own, contender] of guard.entries()) {
    const ahead = guard[own - 1];
    planned.push({
      name: contender.name,
      dir: guardDir,
      kind: 'lease',
      naming: 'curator',
      sequence: contender.sequence,
      // The head waits for the lease count to drop: for a change of `leases`.
      decision: { acquired: false, watch: ahead?.name ?? 'leases' },
      node: guardNodes.get(contender.name)!,
    });
  }
  return planned;
}

/**
 * Lists the contenders of the lock at `path` in grant order, with their owner session, age,
 * fencing token and data. Understands every layout the recipes use: Curator's mutex and
 * read/write lock (and our {@link Mutex} and {@link ReadWriteLock}), kazoo's Lock, ReadLock and
 * WriteLock, the semaphore (`leases/` and `locks/` under `path`, or `leases/` alone once the
 * server has removed the empty `locks/` container), the {@link ExclusiveLock} (an ephemeral node
 * at `path`), and elections: Curator's LeaderLatch (ours too; candidates in
 * line, the leader as holder) and LeaderSelector (a mutex). A path that does not exist has no
 * contenders.
 *
 * A snapshot: nodes may come and go while it is taken (those that went are left out). Read-only.
 */
export async function inspectLock(
  client: RecipeClient,
  path: string,
  options: InspectOptions = {},
): Promise<LockInspection> {
  if (
    options.maxLeases !== undefined &&
    !(Number.isInteger(options.maxLeases) && options.maxLeases >= 1)
  ) {
    throw badArguments(
      `maxLeases must be a positive integer, got ${String(options.maxLeases)}`,
      path,
    );
  }
  if (
    options.namingQueues !== undefined &&
    options.namingQueues !== 'shared' &&
    options.namingQueues !== 'separate'
  ) {
    throw badArguments(
      `namingQueues must be 'shared' or 'separate', got ${String(options.namingQueues)}`,
      path,
    );
  }
  const order = options.sequenceOrder ?? 'numeric';
  const signal = options.signal;
  const children = await childrenOf(client, path, signal);
  let planned: Planned[];
  if (await isSemaphore(client, path, children, signal)) {
    planned = await planSemaphore(client, path, options);
  } else if (children.length > 0) {
    // Read first: the order at the sequence limit needs each node's czxid.
    const nodes = await readContenders(client, path, children, [...LOCK_NAMES, LATCH_NAME], signal);
    const locks =
      options.namingQueues === 'separate'
        ? [
            ...planQueue(path, nodes, CURATOR_NAMES, order),
            ...planQueue(path, nodes, KAZOO_NAMES, order),
          ]
        : planQueue(path, nodes, LOCK_NAMES, order);
    planned = [...locks, ...planQueue(path, nodes, [LATCH_NAME], order)];
  } else {
    planned = await planExclusive(client, path, signal);
  }
  const now = Date.now();
  const present = dropGuardOfOwnLease(planned.map((p) => toContender(p, now)));
  const contenders = [
    ...present.filter((c) => c.state === 'holder'),
    ...present.filter((c) => c.state === 'waiting'),
  ];
  const holders = contenders.filter((c) => c.state === 'holder').length;
  return { path, contenders, holders, waiting: contenders.length - holders };
}

/**
 * Whether the folder at `path` (with `children`) is a semaphore: `leases/` and `locks/` under it,
 * or `leases/` alone holding lease nodes. Both are containers, and the server removes an empty one:
 * a semaphore whose leases are held while nobody waits soon has no `locks/`.
 */
async function isSemaphore(
  client: InspectClient,
  path: string,
  children: readonly string[],
  signal: AbortSignal | undefined,
): Promise<boolean> {
  if (!children.includes('leases')) return false;
  if (children.includes('locks')) return true;
  const leases = await childrenOf(client, childPath(path, 'leases'), signal);
  return leases.some((name) => isLeaseNode(name));
}

/** Whether `name` is a semaphore lease node (`<prefix>lease-<sequence>`). */
export function isLeaseNode(name: string): boolean {
  return parseContender(name, [LockName.lease]) !== undefined;
}

/**
 * A semaphore's guard node whose session has since created a lease node is the same process seen
 * twice (it takes its lease while holding the guard): its lease node stands for it.
 */
function dropGuardOfOwnLease(contenders: LockContender[]): LockContender[] {
  const leases = contenders.filter(
    (c) => c.kind === 'lease' && baseName(parentOf(c.path)) === 'leases',
  );
  return contenders.filter(
    (c) =>
      !(
        c.kind === 'lease' &&
        baseName(parentOf(c.path)) === 'locks' &&
        leases.some((l) => l.owner === c.owner && l.fencingToken > c.fencingToken)
      ),
  );
}

/** An ExclusiveLock is the ephemeral node at `path` itself. */
async function planExclusive(
  client: InspectClient,
  path: string,
  signal: AbortSignal | undefined,
): Promise<Planned[]> {
  if (path === '/') return [];
  const node = await readNode(client, path, signal);
  if (node === undefined || node.stat.ephemeralOwner === 0n) return [];
  const cut = path.lastIndexOf('/');
  return [
    {
      name: path.slice(cut + 1),
      dir: cut === 0 ? '/' : path.slice(0, cut),
      kind: 'exclusive',
      naming: undefined,
      sequence: undefined,
      decision: { acquired: true },
      node,
    },
  ];
}

function toContender(p: Planned, now: number): LockContender {
  const { node } = p;
  return {
    name: p.name,
    path: childPath(p.dir, p.name),
    state: p.decision.acquired ? 'holder' : 'waiting',
    kind: p.kind,
    naming: p.naming,
    sequence: p.sequence,
    waitsFor: p.decision.acquired ? undefined : p.decision.watch,
    owner: node.stat.ephemeralOwner,
    created: node.stat.ctime,
    age: Math.max(0, now - node.stat.ctime),
    fencingToken: node.stat.czxid,
    data: node.data,
  };
}
