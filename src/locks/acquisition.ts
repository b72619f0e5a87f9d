// One acquisition of a queue lock as a state machine driven by replies and watch events: the
// create and the listing go out together, the listing decides, a waiter sets one data watch on
// the contender ahead of it and lists again when that fires. Each request answers through the
// lock seam (seam.ts) into `replied`, so the hot path costs no promise and no closure per step;
// what is rare (a create whose outcome is unknown, missing parents, a retry after a lost reply, the
// order past the sequence limit) runs through the general helpers of nodes.ts and comes back.

import { type Children, namesOf, placeAmong } from '../coordination/children.js';
import type { Bound, BoundWaiter } from '../coordination/deadline.js';
import type { OwnNode } from '../coordination/naming.js';
import { baseName, childPath, type OwnerPrefixes } from '../coordination/naming.js';
import { settleWhileConnected } from '../coordination/nodes.js';
import { ownSequenceOf, PAST_LIMIT, type Place, type QueueRule } from '../coordination/place.js';
import { checkOwnSession, renewedAfter } from '../coordination/renewal.js';
import { isRetriable, pauseBeforeRetry } from '../coordination/retry.js';
import {
  dataWatchKey,
  joinWatch,
  type SharedWatch,
  type WatchedNodes,
  type WatchWaiter,
} from '../coordination/watchers.js';
import { ErrorCode } from '../protocol/errors.js';
import type { CallSink } from '../session/session.js';
import { promiseSettledBy } from '../session/settlers.js';
import { type AcquireProbe, acquirePlaced } from '../telemetry/lock.js';
import { hasCode } from './errors.js';
import { type Attempt, cleanupAttempt, recoverCreate } from './nodes.js';
import type { QueueRecipe } from './queue-lock.js';
import type { CreatedNode, LockSeam } from './seam.js';
import type { Lease } from './types.js';

/** What an acquisition asks of the lock it runs for (QueueLock). */
export interface AcquisitionHost {
  readonly recipe: QueueRecipe;
  readonly rule: QueueRule;
  readonly seam: LockSeam;
  /** The shared watchers of the recipe's client (see watchedNodesOf), looked up once per lock. */
  readonly watched: WatchedNodes;
  /** The node's data, as bytes. */
  readonly data: Uint8Array;
  /** The owner prefixes of this lock's attempts (one per create). */
  readonly prefixes: OwnerPrefixes;
  /** The lock is ours: the lease on `node`. */
  hold(node: OwnNode): Lease;
  /** Lists the children, retrying lost replies (the slow path's listing). */
  list(signal: AbortSignal | undefined): Promise<string[]>;
  /** Past the sequence limit: our place by creation zxid. */
  placeByCreation(
    children: readonly string[],
    node: OwnNode,
    czxids: Map<string, bigint>,
    signal: AbortSignal | undefined,
  ): Promise<Place | undefined>;
}

/** The requests of one round, in the low bits of a step; the round number above them. */
const Step = { create: 1, earlyList: 2, list: 3, watch: 4 } as const;
const KIND_BITS = 3;
const KIND_MASK = (1 << KIND_BITS) - 1;

/**
 * One acquisition: `promise` resolves with the lease, or null when `wait` is false and the lock is
 * taken; it rejects with the signal's reason on abort (after cleaning up: its node deleted while
 * the client stays connected) or with the error that ended it.
 */
export class Acquisition implements CallSink, BoundWaiter, Attempt, WatchWaiter {
  readonly promise: Promise<Lease | null>;
  /** @internal Set by the promise's executor (see promiseSettledBy). */
  resolve!: (lease: Lease | null) => void;
  /** @internal */
  reject!: (error: unknown) => void;
  // What this attempt has put on the server (an Attempt: the cleanup's and the rare steps' record).
  prefix: string | undefined = undefined;
  node: OwnNode | undefined = undefined;
  /** Counts the rounds of requests; a reply of an older round is stale and ignored. */
  private round = 0;
  private over = false;
  /** Set while our create is answered and the early listing is not, or the reverse. */
  // Stryker disable next-line BooleanLiteral: enqueue() sets it before anything reads it
  private created = false;
  /** The early listing's answer when it came before the create's (null: it failed). */
  private early: Children | null | undefined;
  /** Waiting for the predecessor's watch: our place among its shared watcher's waiters. */
  private membership: SharedWatch | undefined;
  /** The membership whose getData went out last (its watch, once set, keeps the entry). */
  private watched: SharedWatch | undefined;
  /** The getData of the current wait was answered: the watch is set, nothing is in flight. */
  // Stryker disable next-line BooleanLiteral: watch() sets it before anything reads it
  private watchSet = false;
  /** The predecessor's watch fired before the getData that set it was answered. */
  // Stryker disable next-line BooleanLiteral: watch() sets it before anything reads it
  private woken = false;
  private czxids: Map<string, bigint> | undefined;
  /** Our node's sequence number (see ownSequenceOf), for the node `sequenceOf`. */
  private ownSequence = 0;
  private sequenceOf: OwnNode | undefined = undefined;
  /** A rare step runs through the general helpers (see {@link slow}). */
  private slowRunning = false;

  constructor(
    private readonly host: AcquisitionHost,
    /** The caller's signal and deadline; its AbortSignal is read only by the rare steps. */
    private readonly bound: Bound | undefined,
    private readonly wait: boolean,
    private readonly probe: AcquireProbe | undefined,
    /**
     * The caller hears of the bound's end at once, while the attempt cleans up in the background
     * (an acquire's timeout or abort); otherwise only once it has cleaned up (acquireSettled).
     */
    private readonly answersAtOnce = false,
  ) {
    this.promise = promiseSettledBy(this);
    if (bound?.ended) {
      // Stryker disable next-line BooleanLiteral: nothing runs after an abort before the start (no listener, no request)
      this.over = true;
      this.reject(bound.reason);
      return;
    }
    bound?.listen(this);
    this.enqueue();
  }

  /**
   * The caller's signal aborted or the deadline passed: the attempt ends at once (its requests
   * carry no signal; their late replies are ignored), and its cleanup finds a create still in
   * flight by its prefix (the server answers a session in order). Not while a rare step runs
   * through the general helpers: they see the bound's signal themselves, and the machine ends
   * when they come back. Once the bound has ended the machine never grants (every path to a
   * grant checks `over` or the bound first), so a caller told at once hears exactly one outcome.
   */
  boundEnded(reason: unknown): void {
    if (this.answersAtOnce) this.reject(reason);
    if (!this.slowRunning) this.fail(reason);
  }

  /** Creates our node and lists the children in one write (see QueueLock). */
  private enqueue(): void {
    const { recipe, seam, data } = this.host;
    const prefix = this.host.prefixes.next();
    this.prefix = prefix;
    this.created = false;
    this.early = undefined;
    const round = this.nextRound();
    const nodePath = childPath(recipe.path, prefix + recipe.lockName);
    seam.createSequential(nodePath, data, this, round | Step.create);
    seam.getChildren(recipe.path, this, round | Step.earlyList);
  }

  private list(): void {
    const { seam, recipe } = this.host;
    seam.getChildren(recipe.path, this, this.nextRound() | Step.list);
  }

  private nextRound(): number {
    // Stryker disable next-line ArithmeticOperator: counting down gives distinct rounds as well
    this.round = (this.round + 1) & 0xfffff;
    return this.round << KIND_BITS;
  }

  replied(step: number, error: Error | null, value: unknown): void {
    const kind = step & KIND_MASK;
    // A watch the server set stays registered in the client whatever became of this wait: the
    // shared watcher entry must stay with it (see joinWatcher).
    if (kind === Step.watch && error === null) this.armedWatch(step);
    if (this.over || step >>> KIND_BITS !== this.round) return;
    try {
      if (kind === Step.create) this.onCreated(error, value as CreatedNode);
      else if (kind === Step.earlyList) this.onEarlyList(error, value as Children);
      else if (kind === Step.list) this.onListed(error, value as Children);
      else this.onWatchSet(error);
    } catch (thrown) {
      this.fail(thrown);
    }
  }

  /** Our watch read found the contender ahead gone: taken with no Error made (see onWatchSet). */
  refused(step: number, code: number): boolean {
    if ((step & KIND_MASK) !== Step.watch || code !== ErrorCode.NONODE) return false;
    if (!this.over && step >>> KIND_BITS === this.round) this.relist();
    return true;
  }

  private onCreated(error: Error | null, node: CreatedNode): void {
    if (error) {
      const prefix = this.prefix!;
      this.slow(this.recoverCreate(error, prefix), (children) => this.decide(children));
      return;
    }
    this.node = { path: node.path, name: baseName(node.path), stat: node.stat };
    this.prefix = undefined;
    this.created = true;
    if (this.early !== undefined) this.afterEarly(this.early);
  }

  private onEarlyList(error: Error | null, children: Children): void {
    const early = error ? null : children; // e.g. NONODE before the parents exist
    if (this.created) this.afterEarly(early);
    else this.early = early;
  }

  /**
   * Both answers of the round are in. The server applied the create before it read the listing
   * (it answers a session's requests in order), so the listing shows our node unless someone
   * deleted it in between; without it, or without a listing (NONODE before the parents exist),
   * a fresh listing decides. One pass over the names: the place says whether our node is there.
   */
  private afterEarly(early: Children | null): void {
    const place = early ? this.placeAmong(early) : undefined;
    if (place === undefined) this.list();
    else this.decided(early!, place);
  }

  private onListed(error: Error | null, children: Children): void {
    if (error) {
      // No lock directory, so no node of ours in it (its session expired and the server swept
      // the empty container, or someone removed it): queue again, as for a deleted node.
      if (hasCode(error, 'NONODE') && !this.bound?.ended) {
        this.placed(undefined);
        return;
      }
      if (!isRetriable(error) || this.bound?.ended) throw error;
      const round = this.nextRound(); // nothing in flight belongs to this machine meanwhile
      pauseBeforeRetry(error, this.bound?.signal).then(() => {
        if (!this.over && this.round === round >>> KIND_BITS) this.list();
      });
      return;
    }
    this.decide(children);
  }

  private decide(children: Children): void {
    this.decided(children, this.placeAmong(children));
  }

  /** Our node's place among `children`, its sequence read once per node (not per listing). */
  private placeAmong(children: Children): Place | undefined | typeof PAST_LIMIT {
    const node = this.node!;
    const { rule } = this.host;
    if (this.sequenceOf !== node) {
      this.sequenceOf = node;
      this.ownSequence = ownSequenceOf(node.name, rule.names);
    }
    return placeAmong(children, node.name, rule, this.ownSequence);
  }

  /** Goes on from our `place` in `children`. */
  private decided(children: Children, place: Place | undefined | typeof PAST_LIMIT): void {
    const node = this.node!;
    if (place === PAST_LIMIT) {
      this.czxids ??= new Map();
      const names = namesOf(children);
      const placing = this.host.placeByCreation(names, node, this.czxids, this.bound?.signal);
      this.slow(placing, (placed) => this.placed(placed));
      return;
    }
    this.placed(place);
  }

  private placed(place: Place | undefined): void {
    if (place === undefined) {
      // Our node is gone (deleted by someone else): queue again, as Curator does.
      this.node = undefined;
      this.enqueue();
      return;
    }
    acquirePlaced(this.probe, place.ahead);
    const node = this.node!;
    if (place.ahead === 0) {
      // A listing on a renewed session may still show the old session's node: never ours.
      checkOwnSession(this.host.recipe.client, node);
      const lease = this.host.hold(node);
      this.end();
      this.bound?.end();
      this.resolve(lease);
      return;
    }
    if (!this.wait) {
      this.end();
      this.bound?.end();
      const { client, path } = this.host.recipe;
      cleanupAttempt(client, path, this).then(() => this.resolve(null));
      return;
    }
    this.watch(childPath(this.host.recipe.path, place.watch!));
  }

  /**
   * Waits for the contender ahead to change: a getData watch (as Curator: getData sets no watch
   * on a missing node), joined to the client's shared watcher for that node.
   */
  private watch(path: string): void {
    const membership = joinWatch(this.host.watched, dataWatchKey(path), this);
    this.membership = membership;
    this.watched = membership;
    this.watchSet = false;
    this.woken = false;
    const step = this.nextRound() | Step.watch;
    this.host.seam.watchData(path, membership.watcher, this, step);
  }

  private armedWatch(step: number): void {
    if (step >>> KIND_BITS === this.round) this.watched?.armed();
  }

  private onWatchSet(error: Error | null): void {
    if (error) {
      // Gone already, or the link broke: nothing to wait for; list again, never assume.
      if (!hasCode(error, 'NONODE') && !isRetriable(error)) throw error;
      this.relist();
      return;
    }
    this.watchSet = true;
    if (this.woken) this.relist();
  }

  /** The contender ahead changed (as a {@link WatchWaiter}: no closure per acquisition). */
  watchFired(): void {
    if (this.over || !this.membership) return;
    // Fired before the getData that set it was answered: list once that answer is in.
    if (this.watchSet) this.relist();
    else this.woken = true;
  }

  /** Stops waiting on the contender ahead and lists again. */
  private relist(): void {
    this.leaveWatch();
    this.list();
  }

  private leaveWatch(): void {
    this.membership?.leave(this);
    this.membership = undefined;
  }

  /** Runs a rare step through the general helpers; `next` takes over with its result. */
  private slow<T>(task: Promise<T>, next: (value: T) => void): void {
    const round = this.nextRound();
    this.slowRunning = true;
    task.then(
      (value) => {
        this.slowRunning = false;
        if (this.over || this.round !== round >>> KIND_BITS) return;
        if (this.bound?.ended) return this.fail(this.bound.reason);
        try {
          next(value);
        } catch (error) {
          this.fail(error);
        }
      },
      (error: unknown) => {
        this.slowRunning = false;
        this.fail(error);
      },
    );
  }

  /** A create failed: its parents are missing, or its outcome is unknown (see recoverCreate). */
  private async recoverCreate(error: Error, prefix: string): Promise<string[]> {
    const { recipe, data } = this.host;
    const signal = this.bound?.signal;
    const { client, path: dir, style, lockName } = recipe;
    await recoverCreate({ client, dir, style, lockName, data, signal }, this, error, prefix);
    return this.host.list(signal);
  }

  private end(): void {
    this.over = true;
    this.leaveWatch();
    this.bound?.unlisten(this);
  }

  /**
   * Ends the attempt after cleaning up. When the session it ran on expired and the client renewed
   * it, the acquisition starts again from the beginning on the new session (see renewal.ts: its
   * node went with the old session), within the same signal.
   */
  private fail(error: unknown): void {
    if (this.over) return;
    this.end();
    const { client, path } = this.host.recipe;
    const bound = this.bound;
    settleWhileConnected(client, cleanupAttempt(client, path, this)).then(() => {
      if (bound?.ended) return this.reject(bound.reason);
      if (!renewedAfter(client, error)) {
        bound?.end(); // the attempt is over: it leaves the shared timer and the caller's signal
        return this.reject(error);
      }
      this.over = false;
      this.czxids = undefined;
      bound?.listen(this);
      this.enqueue();
    });
  }
}
