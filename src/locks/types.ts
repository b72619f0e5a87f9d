// Public types of the lock recipes: what a lock needs from a client, and what it hands back.
/// <reference path="../disposable.ts" preserve="true" />
/// <reference path="../web-globals.ts" preserve="true" />

import type { Op, OpResult } from '../client/multi.js';
import type { RecipeClient } from '../client/recipe-client.js';
import type { CallOptions } from '../client/types.js';
import type { SequenceOrder } from '../coordination/order.js';

/**
 * The members of a {@link RecipeClient} the lock engine's own helpers call; the
 * recipes' constructors take a whole RecipeClient. Not exported by an entry point; kept in the
 * declaration files because the helpers' declarations name it.
 */
export type LockClient = Pick<
  RecipeClient,
  | 'create2'
  | 'delete'
  | 'exists'
  | 'getData'
  | 'getChildren'
  | 'sync'
  | 'on'
  | 'state'
  | 'closing'
  | 'sessionId'
  | 'chroot'
>;

/**
 * When a held lease counts as lost (its `signal` aborts), besides its node being deleted by
 * someone else:
 * - `'suspended'` (default, as Curator's standard policy): as soon as the connection drops. The
 *   session may still be alive, but nothing proves it, so the holder must stop work that needs
 *   exclusivity. Safe; costs a lost lease on every short network blip.
 * - `'expired'` (Curator's session policy): only when the session is known to be over — the
 *   server said so, or nothing this client sent within a whole session timeout was answered.
 *   Survives short blips. The server times the session from the last request it received; this
 *   client from when it sent the newest request the server answered (never later than the
 *   server heard it, however long the reply took), so the signal aborts no later than the server
 *   expires the session, up to clock drift and the client's own timer delays (a blocked event
 *   loop). Use the lease's `fencingToken` or guarded writes (`lease.multi`) when you choose this.
 *
 * Neither policy can see a process that is paused (GC, VM freeze) for longer than the session
 * timeout; the fencing token is the only defence there.
 */
export type LossPolicy = 'suspended' | 'expired';

/** How long to wait for a lock, and how to give up early. */
export interface AcquireOptions {
  /** Give up after this many ms: the acquire rejects with a `LockTimeoutError`. Default: wait forever. */
  timeout?: number;
  /** Give up when aborted: the acquire rejects with the signal's `reason`. */
  signal?: AbortSignal;
}

/** Options of the reentrant locks (`Mutex`, `ReadWriteLock`'s read and write locks). */
export interface ReentrantAcquireOptions extends AcquireOptions {
  /**
   * Reentrancy, JavaScript style. JavaScript has no threads to own a lock, so a lease you hold is
   * the proof: `acquire({ reentrantFrom: lease })` succeeds at once (no server round trip) when
   * `lease` is a live lease of the same lock (same client, same path, same kind of node), and
   * returns a second lease on the same node. The node is deleted when every lease on it has been
   * released. A lease that was released, was lost, or belongs to another lock is refused
   * (`BADARGUMENTS`, or the lost lease's signal reason): code that does not hold the lock never
   * gets in this way.
   */
  reentrantFrom?: Lease;
}

/** Options shared by every lock recipe. */
export interface LockOptions {
  /** When a held lease counts as lost; see {@link LossPolicy}. Default `'suspended'`. */
  lossPolicy?: LossPolicy;
  /**
   * How contenders are ordered; see {@link SequenceOrder}. Default `'numeric'`: creation order,
   * also once the server's sequence counter has reached its limit. Every process on a lock path
   * must use the same order.
   */
  sequenceOrder?: SequenceOrder;
}

/** A held lock. Release it with `release()` or `await using`. */
export interface Lease extends AsyncDisposable {
  /** The znode that represents this hold. */
  readonly path: string;
  /**
   * The lock node's czxid: strictly increasing across successive holders of one lock. Hand it to
   * the protected resource and have it refuse tokens lower than the highest it has seen.
   */
  readonly fencingToken: bigint;
  /**
   * Aborted as soon as this holder can no longer be sure it holds the lock: the connection was
   * suspended (or the session expired, see {@link LossPolicy}), the node was deleted by someone
   * else, or the lease was released. Its `reason` is a `LockLostError` or `LeaseReleasedError`.
   *
   * The watch on the lock node is set when this is first read (one request, and one watch event
   * when the node goes), so a lease whose signal is never read costs nothing for it; a deletion
   * that happened before the first read is found by that watch's own request and aborts at once.
   * The session state is followed from the acquire on either way.
   */
  readonly signal: AbortSignal;
  /** True once `release()` has been called. */
  readonly released: boolean;
  /**
   * A write guarded by this hold: runs `ops` in one `multi` that first checks that the lock node
   * still exists, so the server applies them only while this hold lasts, all or none. Resolves
   * with the results of `ops` (the check's own result left out). Rejects with the lease-lost
   * error (`LockLostError`, or `LeaseReleasedError` after `release()`) without sending anything
   * when the hold is known to be over, and when the server finds the node gone or the session
   * over; any other failure rejects as `client.multi` does (its `results` then start with the
   * check's). A CONNECTIONLOSS leaves the outcome unknown, as for any write, but if it was
   * applied, it was applied while the node existed. An `ExclusiveLock`'s lease refuses
   * (BADARGUMENTS): its node has the same path for every holder.
   */
  multi(ops: readonly Op[], options?: CallOptions): Promise<OpResult[]>;
  /**
   * Deletes the lock node. Idempotent (later calls return the same promise). A delete that fails
   * with a retriable error (CONNECTIONLOSS, REQUESTTIMEOUT...) is retried across reconnects until
   * the node is gone or the session is over (which takes the ephemeral node along). If it fails
   * otherwise, the promise rejects and a later call tries again.
   */
  release(): Promise<void>;
}

/** What every lock recipe offers. */
export interface Lock {
  /** The client the lock works through. */
  readonly client: RecipeClient;
  /** The lock's path (relative to the client's chroot). */
  readonly path: string;
  /**
   * Waits for the lock. Rejects with a `LockTimeoutError` on timeout and with the signal's reason
   * on abort; in both cases no node of this attempt is left behind.
   */
  acquire(options?: AcquireOptions): Promise<Lease>;
  /** Takes the lock if nobody else holds it, else resolves `null`; never waits for other holders. */
  tryAcquire(): Promise<Lease | null>;
}
