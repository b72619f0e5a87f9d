// The fair, herd-free mutex (Curator's InterProcessMutex, kazoo's Lock).
import type { RecipeClient } from '../client/recipe-client.js';
import type { Data } from '../client/types.js';
import { LockName, type NamingStyle } from '../coordination/naming.js';
import { badArguments, lossPolicyOf } from './errors.js';
import { QueueLock } from './queue-lock.js';
import {
  type RevocableAcquireOptions,
  type RevocableLease,
  watchRevocation,
} from './revocation.js';
import type { Lease, Lock, LockOptions, ReentrantAcquireOptions } from './types.js';

export interface MutexOptions extends LockOptions {
  /**
   * Node names to use: `'curator'` (default) makes the nodes Curator `InterProcessMutex` nodes
   * (`_c_<uuid>-lock-<seq>`), so Java processes using Curator on the same path are excluded and
   * queue fairly with us; `'kazoo'` makes them kazoo `Lock` nodes (`<uuid hex>__lock__<seq>`).
   * Either style counts nodes of both forms as contenders, so both can share a path (with kazoo's
   * `extra_lock_patterns=['-lock-']` on the Python side).
   */
  naming?: NamingStyle;
  /**
   * Data stored in the lock node. Default: empty for `'curator'` (Curator itself stores the local
   * IP address); for `'kazoo'` this is kazoo's `identifier`.
   */
  data?: Data;
}

/**
 * The contender names of every mutex: one array for all, so that the listing's reader finds their
 * bytes encoded already (children.ts keeps them per array).
 */
const CONTENDER_NAMES: readonly string[] = Object.freeze([LockName.mutex, LockName.kazooMutex]);

/**
 * A distributed mutex: one EPHEMERAL_SEQUENTIAL node per contender under `path` (created, with
 * its parents, as container nodes). The lowest sequence number holds; every other contender
 * watches only its immediate predecessor, so locks are granted in arrival order (fair) and a
 * release wakes exactly one waiter (no herd). A waiter that wakes lists the children again
 * instead of assuming it is next.
 *
 * Reentrant through the lease: `acquire({ reentrantFrom: lease })` (see
 * {@link ReentrantAcquireOptions.reentrantFrom}).
 */
export class Mutex extends QueueLock {
  constructor(client: RecipeClient, path: string, options: MutexOptions = {}) {
    const naming = options.naming ?? 'curator';
    if (naming !== 'curator' && naming !== 'kazoo') {
      throw badArguments(`naming must be 'curator' or 'kazoo', got ${String(naming)}`, path);
    }
    const lockName = naming === 'curator' ? LockName.mutex : LockName.kazooMutex;
    super({
      client,
      path,
      style: naming,
      lockName,
      // Both name forms are contenders whichever style we write: a Curator-style and a
      // kazoo-style process on one path (kazoo with extra_lock_patterns=['-lock-']) then queue
      // together instead of each ignoring the other's nodes. Every contender ahead blocks.
      contenderNames: CONTENDER_NAMES,
      reentrantKinds: [lockName],
      data: options.data,
      lossPolicy: lossPolicyOf(options.lossPolicy, path),
      sequenceOrder: options.sequenceOrder ?? 'numeric',
      recipeName: 'Mutex',
    });
  }

  /**
   * Waits for the mutex; see {@link Lock.acquire} and {@link ReentrantAcquireOptions}. With
   * `revocable: true` the lease also tells when another process asks for the lock (see
   * {@link RevocableLease}).
   */
  override acquire(options: RevocableAcquireOptions): Promise<RevocableLease>;
  override acquire(options?: ReentrantAcquireOptions): Promise<Lease>;
  override acquire(options?: ReentrantAcquireOptions & { revocable?: boolean }): Promise<Lease> {
    const acquiring = super.acquire(options);
    // Opt-in revocation (Curator's makeRevocable): one more watch on the held node.
    if (options?.revocable !== true) return acquiring;
    return acquiring.then((lease) => watchRevocation(this.client, lease));
  }
}
