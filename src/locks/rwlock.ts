// Readers share, writers exclude (Curator's InterProcessReadWriteLock layout).
import type { Data } from '../client/types.js';
import { predecessorDecision, readerDecision } from './contenders.js';
import { lossPolicyOf } from './errors.js';
import { reenter } from './lease.js';
import { LockName } from './naming.js';
import { ContenderQueue } from './sequential.js';
import type { Lease, Lock, LockClient, LockOptions, ReentrantAcquireOptions } from './types.js';

export interface ReadWriteLockOptions extends LockOptions {
  /** Data stored in each lock node (default empty). */
  data?: Data;
}

const KINDS = [LockName.read, LockName.write] as const;

/** One side of a {@link ReadWriteLock}. */
export class ReadWriteSide implements Lock {
  constructor(
    private readonly queue: ContenderQueue,
    /** Kinds of lease accepted as `reentrantFrom`. */
    private readonly reentrantKinds: readonly string[],
  ) {}

  get client(): LockClient {
    return this.queue.spec.client;
  }
  get path(): string {
    return this.queue.spec.path;
  }

  /** Waits for this side of the lock; see {@link Lock.acquire} and {@link ReentrantAcquireOptions}. */
  async acquire(options: ReentrantAcquireOptions = {}): Promise<Lease> {
    if (options.reentrantFrom !== undefined) {
      return reenter(options.reentrantFrom, this.client, this.path, this.reentrantKinds);
    }
    return this.queue.acquire(options);
  }

  /** Takes this side if it can be had at once; never waits. */
  async tryAcquire(
    options: Pick<ReentrantAcquireOptions, 'reentrantFrom'> = {},
  ): Promise<Lease | null> {
    if (options.reentrantFrom !== undefined) {
      return reenter(options.reentrantFrom, this.client, this.path, this.reentrantKinds);
    }
    return this.queue.tryAcquire();
  }
}

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
    readonly client: LockClient,
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
    };
    this.read = new ReadWriteSide(
      new ContenderQueue({
        ...common,
        lockName: LockName.read,
        decide: (sorted, own) => readerDecision(sorted, own, LockName.write),
      }),
      [LockName.read, LockName.write],
    );
    this.write = new ReadWriteSide(
      new ContenderQueue({
        ...common,
        lockName: LockName.write,
        decide: (sorted, own) => predecessorDecision(sorted, own),
      }),
      [LockName.write],
    );
  }
}
