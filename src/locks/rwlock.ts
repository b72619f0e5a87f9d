// Readers share, writers exclude (Curator's InterProcessReadWriteLock layout).
import type { RecipeClient } from '../client/recipe-client.js';
import type { Data } from '../client/types.js';
import { LockName } from '../coordination/naming.js';
import { lossPolicyOf } from './errors.js';
import { QueueLock } from './queue-lock.js';
import type { LockOptions } from './types.js';

export interface ReadWriteLockOptions extends LockOptions {
  /** Data stored in each lock node (default empty). */
  data?: Data;
}

const KINDS = [LockName.read, LockName.write] as const;

/** One side of a {@link ReadWriteLock}: the queue lock of that side, on the shared queue. */
export class ReadWriteSide extends QueueLock {}

/**
 * A read/write lock: any number of readers, or one writer. Nodes are Curator's
 * (`_c_<uuid>-__READ__<seq>` and `_c_<uuid>-__WRIT__<seq>` under `path`), in one queue ordered by
 * sequence number, so Java processes using Curator's `InterProcessReadWriteLock` share it.
 *
 * - A reader holds when no writer is queued ahead of it; otherwise it watches the last writer
 *   ahead of it. Readers arriving after a waiting writer wait behind it (no writer starvation).
 * - A writer holds at the head of the queue; otherwise it watches its immediate predecessor.
 * Nobody watches more than one node, and no node is watched by waiters that its deletion cannot
 * let in, so there is no herd on either side.
 *
 * Reentrancy: `write.acquire({ reentrantFrom: writeLease })`, `read.acquire({ reentrantFrom:
 * readLease })`, and `read.acquire({ reentrantFrom: writeLease })` — the last shares the write
 * node, so the lock stays exclusive until both leases are released (no downgrade).
 */
export class ReadWriteLock {
  /** The shared side: any number of readers hold it together while no writer does. */
  readonly read: ReadWriteSide;
  /** The exclusive side: one writer, and no readers. */
  readonly write: ReadWriteSide;

  constructor(
    /** The client whose session holds the lock nodes. */
    readonly client: RecipeClient,
    /** The lock's node; contenders are its children. */
    readonly path: string,
    options: ReadWriteLockOptions = {},
  ) {
    const common = {
      client,
      path,
      style: 'curator' as const,
      contenderNames: KINDS,
      data: options.data,
      lossPolicy: lossPolicyOf(options.lossPolicy, path),
      sequenceOrder: options.sequenceOrder ?? 'numeric',
      recipeName: 'ReadWriteLock',
    };
    // A reader waits only for writers ahead; a writer for everyone ahead.
    this.read = new ReadWriteSide({
      ...common,
      lockName: LockName.read,
      waitsFor: LockName.write,
      reentrantKinds: [LockName.read, LockName.write],
    });
    this.write = new ReadWriteSide({
      ...common,
      lockName: LockName.write,
      reentrantKinds: [LockName.write],
    });
  }
}
