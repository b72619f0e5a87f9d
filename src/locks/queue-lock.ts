// The one reentrant queue lock behind Mutex and both sides of ReadWriteLock: a ContenderQueue
// (who waits for whom is the recipe's `decide`) plus reentry through a lease of an accepted kind.
import { reenter } from './lease.js';
import { ContenderQueue, type QueueSpec } from './sequential.js';
import type { Lease, Lock, LockClient, ReentrantAcquireOptions } from './types.js';

/**
 * A lock whose contenders queue as sequential children of `path`. Recipes differ only in their
 * {@link QueueSpec} (node name, which names count as contenders, the decision) and in which kinds
 * of lease may reenter; acquire and tryAcquire are the same for all of them.
 */
export class QueueLock implements Lock {
  /** @internal */
  protected readonly queue: ContenderQueue;

  /**
   * @internal Made by the recipes, not by users.
   * @param spec How this recipe queues (see `QueueSpec`).
   * @param reentrantKinds Kinds of lease accepted as `reentrantFrom` (node names such as `lock-`).
   */
  constructor(
    spec: QueueSpec,
    private readonly reentrantKinds: readonly string[],
  ) {
    this.queue = new ContenderQueue(spec);
  }

  /** The client whose session holds the lock nodes. */
  get client(): LockClient {
    return this.queue.spec.client;
  }
  /** The lock's node; contenders are its children. */
  get path(): string {
    return this.queue.spec.path;
  }

  /** Waits for the lock; see {@link Lock.acquire} and {@link ReentrantAcquireOptions}. */
  acquire(options: ReentrantAcquireOptions = {}): Promise<Lease> {
    if (options.reentrantFrom !== undefined) return this.reenter(options.reentrantFrom);
    return this.queue.acquire(options);
  }

  /** Takes the lock if it can be had at once (or reenters it through `reentrantFrom`); never waits. */
  tryAcquire(options: Pick<ReentrantAcquireOptions, 'reentrantFrom'> = {}): Promise<Lease | null> {
    if (options.reentrantFrom !== undefined) return this.reenter(options.reentrantFrom);
    return this.queue.tryAcquire();
  }

  private async reenter(from: Lease): Promise<Lease> {
    return reenter(from, this.client, this.path, this.reentrantKinds);
  }
}
