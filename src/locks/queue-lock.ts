// The reentrant queue lock behind Mutex and both sides of ReadWriteLock: an EPHEMERAL_SEQUENTIAL
// contender node per waiter, ordered by sequence number, each waiting on the one node ahead of it
// whose deletion may let it in. A recipe only says which contenders ahead keep it waiting.

import { toBytes } from '../client/bytes.js';
import type { RecipeClient } from '../client/recipe-client.js';
import type { Data } from '../client/types.js';
import { queueOrder } from '../coordination/creation-order.js';
import { Bound } from '../coordination/deadline.js';
import { type NamingStyle, OwnerPrefixes, type OwnNode } from '../coordination/naming.js';
import type { SequenceOrder } from '../coordination/order.js';
import { type Place, placeInOrder, type QueueRule } from '../coordination/place.js';
import { retry } from '../coordination/retry.js';
import { watchedNodesOf } from '../coordination/watchers.js';
import { type AcquireProbe, acquireSettles, acquireStarted } from '../telemetry/lock.js';
import { Acquisition, type AcquisitionHost } from './acquisition.js';
import { AcquireDeadlines, noWait } from './deadline.js';
import { checkRecipePath } from './errors.js';
import { type HoldingSpec, holdNode, type RemovalWatcher } from './lease.js';
import { holdingsOf, type LiveHoldings } from './live-holdings.js';
import { deleteOwnNode } from './nodes.js';
import { reenter } from './reentry.js';
import { type LockSeam, seamOf } from './seam.js';
import type { AcquireOptions, Lease, Lock, LossPolicy, ReentrantAcquireOptions } from './types.js';

const EMPTY = new Uint8Array(0);

/** How one recipe queues (see {@link QueueLock}). */
export interface QueueRecipe {
  readonly client: RecipeClient;
  /** The lock path: contenders are its children. */
  readonly path: string;
  readonly style: NamingStyle;
  /** This recipe's node name between the owner prefix and the sequence (`lock-`, `__READ__`...). */
  readonly lockName: string;
  /** Names that count as contenders on the path; other children are ignored. */
  readonly contenderNames: readonly string[];
  /**
   * The one contender name that keeps this recipe waiting (a reader waits only for writers ahead
   * of it); undefined: every contender ahead does (a mutex, a writer).
   */
  readonly waitsFor?: string | undefined;
  /** Kinds of lease (lock names) accepted as `reentrantFrom`. */
  readonly reentrantKinds: readonly string[];
  readonly data: Data | undefined;
  readonly lossPolicy: LossPolicy;
  readonly sequenceOrder: SequenceOrder;
  /** The class the user constructed, for messages (`Mutex`, `ReadWriteLock`). */
  readonly recipeName: string;
}

/**
 * A fair, herd-free, reentrant lock on one queue of contender nodes: a contender holds when no
 * contender ahead of it is of a kind it waits for; otherwise it watches the nearest such one, and
 * lists the children again when that one changes (a contender that gave up wakes its successor
 * although someone ahead may still hold). Sequence numbers only grow, so the set ahead of a
 * contender can only shrink: newcomers never need to be waited for.
 */
export class QueueLock implements Lock {
  private readonly rule: QueueRule;
  /** What the acquisitions of this lock run on (see {@link Acquisition}): made once per lock. */
  private readonly host: AcquisitionHost;
  /**
   * The last lease this object granted. While it is not released, a second `acquire()` on this
   * object waits for it: legitimate when two tasks share the object, a self-deadlock when one
   * task re-enters. Which it is cannot be told, so the wait goes on, and its timeout says how to
   * re-enter (see {@link awaited}).
   */
  private lastLease: Lease | undefined;
  /** What a timeout's message names, asked at the moment of the timeout. */
  private readonly awaited = (): string => {
    // A reader is not kept waiting by its own side's readers: only a side that waits for every
    // contender ahead (a mutex, a writer) can wait for itself.
    const held =
      this.recipe.waitsFor === undefined &&
      this.lastLease !== undefined &&
      !this.lastLease.released;
    const lock = `the lock ${this.recipe.path}`;
    if (!held) return lock;
    return (
      `${lock}, which this ${this.recipe.recipeName} object already holds (its lease ` +
      `${this.lastLease!.path} is not released): to re-enter from the code that holds it, pass ` +
      'acquire({ reentrantFrom: lease })'
    );
  };
  /** The deadlines of this lock's acquires, on its client's shared timer. */
  private readonly deadlines: AcquireDeadlines;
  /** What every node this lock holds shares (see {@link HeldQueueNode}). */
  private readonly held: HeldNodes;
  /** The listing request's options when there is no signal to pass: one object, not one per call. */
  private static readonly noOptions = {};

  /** @internal Made by the recipes (Mutex, the ReadWriteLock sides), not by users. */
  constructor(protected readonly recipe: QueueRecipe) {
    checkRecipePath(recipe.path, recipe.recipeName);
    const names = recipe.contenderNames;
    this.rule = {
      names,
      blockedBy: recipe.waitsFor === undefined ? -1 : names.indexOf(recipe.waitsFor),
    };
    this.host = {
      recipe,
      rule: this.rule,
      seam: seamOf(recipe.client),
      watched: watchedNodesOf(recipe.client),
      data:
        recipe.data === undefined ? EMPTY : toBytes(recipe.data, recipe.path, recipe.recipeName),
      prefixes: new OwnerPrefixes(recipe.style),
      hold: (node) => this.hold(node),
      list: (signal) => this.list(signal),
      placeByCreation: (children, node, czxids, signal) =>
        this.placeByCreation(children, node, czxids, signal),
    };
    this.deadlines = new AcquireDeadlines(recipe.path, this.awaited, recipe.client);
    this.held = { recipe, seam: this.host.seam, live: undefined };
  }

  /** The client whose session holds the lock nodes. */
  get client(): RecipeClient {
    return this.recipe.client;
  }

  /** The lock's node; contenders are its children. */
  get path(): string {
    return this.recipe.path;
  }

  /** Waits for the lock; see {@link Lock.acquire} and {@link ReentrantAcquireOptions}. */
  acquire(options?: ReentrantAcquireOptions): Promise<Lease> {
    try {
      if (options?.reentrantFrom !== undefined) return Promise.resolve(this.reenter(options));
      const probe = acquireStarted(this.recipe.path, this.recipe.lockName, this.client.sessionId);
      // The common call (no timeout, no signal) needs no deadline: contend directly.
      if (options?.timeout === undefined && options?.signal === undefined) {
        const acquiring = this.contendAcrossRenewals(undefined, true, probe) as Promise<Lease>;
        return acquireSettles(probe, acquiring, undefined);
      }
      return acquireSettles(probe, this.acquireBounded(options!, probe), options?.signal);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * An acquire with a timeout, a signal or both: its bound (see {@link AcquireDeadlines}), and
   * the acquisition itself rejects the caller at once when it ends (no promise, closure or
   * listener of its own per acquire).
   */
  private acquireBounded(options: AcquireOptions, probe: AcquireProbe | undefined): Promise<Lease> {
    const bound = this.deadlines.start(options);
    const wait = !noWait(options);
    const acquiring = new Acquisition(this.host, bound, wait, probe, true).promise;
    if (wait) return acquiring as Promise<Lease>;
    return acquiring.then(this.deadlines.granted);
  }

  /**
   * @internal As `acquire({ signal })`, but an abort is answered only once the attempt has cleaned
   * up after itself (its node deleted while the client stays connected), not at once: for
   * recipes whose own close() promises that their node is gone (LeaderSelector).
   */
  acquireSettled(signal: AbortSignal): Promise<Lease> {
    const bound = new Bound(signal, undefined);
    const acquiring = this.contendAcrossRenewals(bound, true) as Promise<Lease>;
    const end = () => bound.end();
    acquiring.then(end, end);
    return acquiring;
  }

  /** Takes the lock if it is free now (or reenters it through `reentrantFrom`); never waits. */
  tryAcquire(options?: Pick<ReentrantAcquireOptions, 'reentrantFrom'>): Promise<Lease | null> {
    try {
      if (options?.reentrantFrom !== undefined) return Promise.resolve(this.reenter(options));
      const probe = acquireStarted(this.recipe.path, this.recipe.lockName, this.client.sessionId);
      return acquireSettles(probe, this.contendAcrossRenewals(undefined, false, probe), undefined);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private reenter(options: Pick<ReentrantAcquireOptions, 'reentrantFrom'>): Lease {
    const { client, path, reentrantKinds } = this.recipe;
    return reenter(options.reentrantFrom!, client, path, reentrantKinds);
  }

  /** One acquisition (see {@link Acquisition}); it starts again on a renewed session by itself. */
  private contendAcrossRenewals(
    bound: Bound | undefined,
    wait: boolean,
    probe?: AcquireProbe,
  ): Promise<Lease | null> {
    // An acquisition starts again on a renewed session by itself (see Acquisition.fail).
    return new Acquisition(this.host, bound, wait, probe).promise;
  }

  private list(signal: AbortSignal | undefined): Promise<string[]> {
    const { client, path } = this.recipe;
    const options = signal ? { signal } : QueueLock.noOptions;
    return retry(() => client.getChildren(path, options), { signal });
  }

  /** Past the sequence limit: the order by creation zxid (see `SequenceOrder`). */
  private async placeByCreation(
    children: readonly string[],
    node: OwnNode,
    czxids: Map<string, bigint>,
    signal: AbortSignal | undefined,
  ): Promise<Place | undefined> {
    const { client, path, contenderNames, sequenceOrder } = this.recipe;
    const sorted = await queueOrder(
      client,
      path,
      children,
      contenderNames,
      sequenceOrder,
      node,
      czxids,
      signal,
    );
    return placeInOrder(sorted, node.name, this.rule);
  }

  private hold(node: OwnNode): Lease {
    const spec = new HeldQueueNode(node.path, node.stat.czxid, this.held);
    this.lastLease = holdNode(spec);
    return this.lastLease;
  }
}

/** What the nodes one queue lock holds have in common: made once per lock. */
interface HeldNodes {
  readonly recipe: QueueRecipe;
  /** The lock's seam: a release's delete goes straight to it. */
  readonly seam: LockSeam;
  /** The client's live holdings, looked up by the first holding (see holdingsOf). */
  live: LiveHoldings | undefined;
}

/**
 * A queue lock's node once it holds: a class, so a grant makes no closure to delete it with. What
 * is the same for every node of the lock is read from the lock, not copied per grant, and neither
 * the client's live holdings nor its seam is looked up per grant.
 */
class HeldQueueNode implements HoldingSpec {
  constructor(
    readonly path: string,
    readonly czxid: bigint,
    private readonly held: HeldNodes,
  ) {}

  get client(): RecipeClient {
    return this.held.recipe.client;
  }

  get lockPath(): string {
    return this.held.recipe.path;
  }

  get kind(): string {
    return this.held.recipe.lockName;
  }

  get lossPolicy(): LossPolicy {
    return this.held.recipe.lossPolicy;
  }

  /** Read by the Holding as it starts (after holdNode's check of a closing client). */
  get live(): LiveHoldings {
    this.held.live ??= holdingsOf(this.held.recipe.client);
    return this.held.live;
  }

  /** deleteOwnNode tells the holding of a failure itself. */
  get tellsRemovalFailure(): boolean {
    return true;
  }

  removeNode(watcher: RemovalWatcher): Promise<void> {
    return deleteOwnNode(this.held.recipe.client, this.path, watcher, this.held.seam);
  }
}
