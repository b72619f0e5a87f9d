// A held lock node and the leases (handles) on it: loss detection, fencing token, release.
import type { Op, OpResult } from '../client/multi.js';
import type { CallOptions, SessionState, WatchedEvent } from '../client/types.js';
import { retry } from '../coordination/retry.js';
import { dataWatchKey, joinWatcher, type WatcherMembership } from '../coordination/watchers.js';
import { holdEnded, holdStarted } from '../telemetry/lock.js';
import {
  badArguments,
  hasCode,
  LeaseReleasedError,
  type LockLossReason,
  LockLostError,
} from './errors.js';
import { type Guard, type GuardClient, guardedMulti } from './guarded.js';
import { holdingsOf, type LiveHoldings } from './live-holdings.js';
import type { Lease, LockClient, LossPolicy } from './types.js';

export interface HoldingSpec {
  client: LockClient;
  /** The lock node. */
  path: string;
  /** The lock path it lives under (or is, for the exclusive lock): identifies the lock for reentrancy. */
  lockPath: string;
  /** Kind of node (its lock name): only leases of an accepted kind may reenter. */
  kind: string;
  czxid: bigint;
  lossPolicy: LossPolicy;
  /**
   * Deletes the node when the last lease on it is released. With {@link tellsRemovalFailure} it
   * tells `watcher` of a failure itself, before the promise rejects, and keeps the promise from
   * counting as unhandled; otherwise the holding puts a handler on the promise to learn of it.
   */
  removeNode(watcher: RemovalWatcher): Promise<void>;
  /** `removeNode` tells its watcher of a failure (see above): the holding adds no handler. */
  readonly tellsRemovalFailure?: boolean;
  /**
   * The node's path is the same for every holder (the exclusive lock): its existence does not
   * prove this hold, so the lease refuses guarded writes (see guarded.ts).
   */
  sharedPath?: boolean;
  /**
   * The client's live holdings (`holdingsOf(client)`), when the caller keeps them at hand: a lock
   * that grants again and again looks them up once instead of once per grant.
   */
  readonly live?: LiveHoldings;
}

/** Told by a {@link HoldingSpec.removeNode} that the removal it handed out failed. */
export interface RemovalWatcher {
  removalFailed(removal: Promise<void>): void;
}

/**
 * One lock node held by this process. It follows the session state from the start, and once a
 * lease's signal is first asked for it also watches its own node (a getData watch, re-armed after
 * data changes); `lost` aborts when either says the lock may be gone. Several leases share it when
 * the lock is reentered; the node goes with the last of them.
 *
 * The node watch is set lazily because it costs a request when set and a watch event when the
 * release deletes the node: a third of a contended handoff's server work for a signal most
 * critical sections never read. Set on first use, it still learns of a deletion that happened
 * before: the getData that sets it finds the node gone (or replaced) and aborts `lost` at once.
 *
 * The watch joins the client's shared closure for the node (see {@link joinWatcher}) and leaves it
 * when the holding ends. A node held again and again (a leader that reconnects keeps its node and
 * starts a new term on it each time) thus costs the client one closure, not one per holding.
 */
export class Holding implements RemovalWatcher {
  private loss: AbortController | undefined;
  /** Why the lock is lost, once it is (kept also while nobody has asked for the signal). */
  private lossReason: LockLostError | undefined;
  private leases = 0;
  private stopped = false;
  /** The removal in progress or done; a failed one is forgotten, so that it can be tried again. */
  private removal: Promise<void> | undefined;
  /** The last removal that failed (its leases' next release tries again). */
  private failedRemoval: Promise<void> | undefined;
  /** Our place among the waiters of the node's shared watcher, while the watch is set. */
  private membership: WatcherMembership | undefined;
  /** The node watch's waiter, made on the first watch (see {@link join}). */
  private onEvent: ((event: WatchedEvent) => void) | undefined = undefined;
  /** The session that owns the node (the grant is decided on its reply). */
  private readonly owner: bigint;
  /** When the hold began, for the telemetry's hold time (0: nobody listened then). */
  private readonly heldSince = holdStarted();
  /** The client's live holdings, this one among them until it ends (see {@link holdingsOf}). */
  private readonly live: LiveHoldings;
  /** @internal Neighbours in the client's list of live holdings. */
  prevLive: Holding | undefined = undefined;
  /** @internal */
  nextLive: Holding | undefined = undefined;

  constructor(readonly spec: HoldingSpec) {
    this.owner = spec.client.sessionId;
    this.live = spec.live ?? holdingsOf(spec.client);
    this.live.add(this);
    this.onState(spec.client.state);
  }

  /** Aborted when the lock may be gone. The first call starts watching the node. */
  get lost(): AbortSignal {
    if (!this.loss) {
      this.loss = new AbortController();
      if (this.lossReason) this.loss.abort(this.lossReason);
      else if (!this.stopped) this.watchNode();
    }
    return this.loss.signal;
  }

  /** The reason the lock is known to be lost, without starting the node watch. */
  get lostReason(): LockLostError | undefined {
    return this.lossReason;
  }

  get ended(): boolean {
    return this.stopped;
  }

  /**
   * Sets the watch on the node. Resolves false when the node is already gone or is not ours any
   * more (the caller then contends again); a retriable error is retried, since the watch is only
   * registered on a reply.
   */
  arm(signal?: AbortSignal): Promise<boolean> {
    return retry(
      async () => {
        const joined = this.join();
        try {
          const { stat } = await this.spec.client.getData(this.spec.path, {
            watch: joined.watcher,
            signal,
          });
          joined.armed();
          // Another node at the same path (deleted and created again meanwhile) is not ours.
          return stat.czxid === this.spec.czxid;
        } catch (error) {
          this.leave();
          if (hasCode(error, 'NONODE')) return false;
          throw error;
        }
      },
      { signal },
    );
  }

  /** A new lease on this node. */
  lease(): Lease {
    // Stryker disable next-line StringLiteral: unreachable message: reenter() refuses an ended holding first and holdNode() leases a new one
    if (this.stopped) throw badArguments('the lock node is being released', this.spec.path);
    this.leases++;
    return new LeaseHandle(this);
  }

  /** One lease was released: the last one deletes the node. */
  leaseReleased(): Promise<void> {
    this.leases--;
    if (this.leases > 0) return Promise.resolve();
    return this.end(true);
  }

  /**
   * Stops watching; deletes the node when `remove`. Idempotent while a removal is under way or
   * done; after a failed one (an error that is neither retriable nor says the session is over)
   * the next call tries again instead of handing back the old failure.
   */
  end(remove: boolean): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      holdEnded(this.spec, this.heldSince, 'released', undefined, this.lossReason !== undefined);
      this.live.remove(this);
      this.leave();
      // A node of an expired session goes with it: a delete from the client's new session (or
      // while it seeks one) would only wait, perhaps for ever, to remove what the server removes.
      if (!remove || this.spec.client.sessionId !== this.owner) this.removal = Promise.resolve();
    }
    if (!this.removal) {
      const removal = this.spec.removeNode(this);
      this.removal = removal;
      if (!this.spec.tellsRemovalFailure) removal.catch(() => this.removalFailed(removal));
    }
    return this.removal;
  }

  /** @internal `removal` failed: the next release tries again (see {@link HoldingSpec.removeNode}). */
  removalFailed(removal: Promise<void>): void {
    this.failedRemoval = removal;
    if (this.removal === removal) this.removal = undefined;
  }

  /**
   * Whether `removal`, as {@link end} or {@link leaseReleased} handed it out, failed: a lease asks
   * this instead of putting a handler of its own on the promise it hands its caller.
   */
  failedToRemove(removal: Promise<void>): boolean {
    return removal === this.failedRemoval;
  }

  /** The node turned out to be gone (or not ours) when the watch was set. */
  nodeLost(): void {
    if (!this.stopped) this.lose('deleted');
  }

  /** Joins the node's shared watcher (afresh: a watcher that fired has dropped its waiters). */
  private join(): WatcherMembership {
    this.leave();
    // Made on the first watch only (most holdings never set one), and kept: joining again with the
    // same function is how the shared watcher knows this holding is already among its waiters.
    this.onEvent ??= (event) => this.onNodeEvent(event);
    const joined = joinWatcher(this.spec.client, dataWatchKey(this.spec.path), this.onEvent);
    this.membership = joined;
    return joined;
  }

  private leave(): void {
    this.membership?.leave();
    this.membership = undefined;
  }

  /** Sets the node watch in the background; a node found gone or replaced is lost. */
  private watchNode(): void {
    // Not tied to any acquire's signal: the watch must outlive it (the session bounds this call).
    this.arm().then(
      (present) => {
        if (!present) this.nodeLost();
      },
      () => {
        // The session ended: the state listener reports it.
      },
    );
  }

  /** @internal Told by the client's one listener (see {@link holdingsOf}). */
  lose(reason: LockLossReason): void {
    if (this.lossReason) return;
    this.lossReason = new LockLostError(reason, this.spec.path);
    if (!this.stopped) holdEnded(this.spec, this.heldSince, 'lost', reason);
    this.loss?.abort(this.lossReason);
  }

  /** @internal Told by the client's one listener (see {@link holdingsOf}). */
  onState(state: SessionState): void {
    if (state === 'suspended' && this.spec.lossPolicy === 'suspended') this.lose('suspended');
    else if (state === 'expired' || state === 'closed' || state === 'auth-failed') this.lose(state);
  }

  private onNodeEvent(event: WatchedEvent): void {
    // The shared watcher dropped its waiters as it fired: the watch is no longer set.
    this.membership = undefined;
    if (this.stopped) return;
    switch (event.type) {
      case 'NodeDeleted':
        this.lose('deleted');
        return;
      case 'None':
        this.lose(
          event.state === 'closed' || event.state === 'auth-failed' ? event.state : 'expired',
        );
        return;
      default:
        // Data changed (or a watch was removed): keep watching; a node gone meanwhile is lost.
        this.watchNode();
    }
  }
}

/**
 * Turns a node that won the lock into a lease at once. The node watch is set when the lease's
 * signal is first read (see {@link Holding}), never on the acquire path.
 */
export function holdNode(spec: HoldingSpec): Lease {
  // A grant decided after close() began is void: closeSession may already have reached the
  // server and deleted the node, and another process may hold the lock.
  if (spec.client.closing) throw new LockLostError('closed', spec.path);
  return new Holding(spec).lease();
}

class LeaseHandle implements Lease {
  /**
   * The node this lease stands for. A private field is also the proof reentrancy asks for: only
   * leases this module issued have it (a brand check, cheaper than a registry per lease).
   */
  readonly #holding: Holding;
  /** Made when the signal is first read: a lease nobody asks about costs no controller. */
  private own: AbortController | undefined;
  /** The release under way or done; one that failed is tried again by the next `release()`. */
  private releasing: Promise<void> | undefined;
  /** Passes the holding's loss on to `own`: made with `own`, when the signal is first read. */
  private forwardLoss: (() => void) | undefined;

  constructor(holding: Holding) {
    this.#holding = holding;
  }

  /** The holding behind `lease` if this module issued it, else undefined. */
  static holdingOf(lease: unknown): Holding | undefined {
    return typeof lease === 'object' && lease !== null && #holding in lease
      ? (lease as LeaseHandle).#holding
      : undefined;
  }

  get path(): string {
    return this.#holding.spec.path;
  }
  get fencingToken(): bigint {
    return this.#holding.spec.czxid;
  }
  get signal(): AbortSignal {
    if (!this.own) {
      const own = new AbortController();
      this.own = own;
      if (this.releasing) own.abort(new LeaseReleasedError(this.path));
      else {
        const lost = this.#holding.lost;
        const forwardLoss = () => own.abort(lost.reason);
        this.forwardLoss = forwardLoss;
        if (lost.aborted) forwardLoss();
        else lost.addEventListener('abort', forwardLoss, { once: true });
      }
    }
    return this.own.signal;
  }
  get released(): boolean {
    return this.releasing !== undefined;
  }

  async multi(ops: readonly Op[], options?: CallOptions): Promise<OpResult[]> {
    return guardedMulti(this.guard(), ops, options);
  }

  /** This lease as a guarded multi sees it (see guarded.ts). */
  guard(): Guard {
    const holding = this.#holding;
    const { spec } = holding;
    if (spec.sharedPath) {
      throw badArguments(
        `the node ${spec.path} is the same path for every holder: its existence cannot prove this hold (use a Mutex for guarded writes)`,
        spec.path,
      );
    }
    const client = spec.client as Partial<GuardClient>;
    if (typeof client.multi !== 'function') {
      throw badArguments('a guarded multi needs a client with multi()', spec.path);
    }
    return {
      client: client as GuardClient,
      paths: [spec.path],
      // A lease lost before it was released reports the loss: it says more than the release.
      ended: () =>
        holding.lostReason ?? (this.releasing ? new LeaseReleasedError(spec.path) : undefined),
      nodeGone: () => {
        holding.nodeLost();
        return holding.lostReason ?? new LockLostError('deleted', spec.path);
      },
    };
  }

  release(): Promise<void> {
    if (!this.releasing) {
      const own = this.own;
      if (own) {
        if (this.forwardLoss) this.#holding.lost.removeEventListener('abort', this.forwardLoss);
        if (!own.signal.aborted) own.abort(new LeaseReleasedError(this.path));
      }
      this.releasing = this.#holding.leaseReleased();
    } else if (this.#holding.failedToRemove(this.releasing)) {
      // Never hand back a cached failure: the node may still be there, so try again.
      this.releasing = this.#holding.end(true);
    }
    return this.releasing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }

  get [Symbol.toStringTag](): string {
    return 'Lease';
  }
}

/** The guard of a lease this module issued (see guarded.ts), or undefined for any other. */
export function guardOf(lease: unknown): Guard | undefined {
  return lease instanceof LeaseHandle ? lease.guard() : undefined;
}

/** The holding behind a lease this module issued, or undefined for any other (see reentry.ts). */
export function holdingOf(lease: unknown): Holding | undefined {
  return LeaseHandle.holdingOf(lease);
}
