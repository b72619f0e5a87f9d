// kazoo's SetPartitioner, in its layout and protocol: a set of work items divided among the live
// members of a party, each item held under a kazoo-layout lock while its member owns it. Members
// join `<path>/party` (kazoo's ShallowParty nodes); once the party has not changed for
// `settleTime` (kazoo's time_boundary), each member computes its share with the same partition
// function and locks each of its items at `<path>/locks/<item>`. A change of the party (a member
// joining or leaving, its session ending) moves an owner to `release`: it stops its work on the
// items, calls release(), and the set is divided again. The locks make the handover safe: an item
// is never owned by two members, whatever their views of the party.
import { Listenable } from '../client/listenable.js';
import type { RecipeClient } from '../client/recipe-client.js';
import { waitBounded } from '../coordination/bounded.js';
import { hasCode } from '../coordination/codes.js';
import { untilConnected } from '../coordination/connection-wait.js';
import { childPath } from '../coordination/naming.js';
import { isRetriable, pauseBeforeRetry, pauseUnlessAborted, retry } from '../coordination/retry.js';
import { joinWatcher, type WatcherMembership } from '../coordination/watchers.js';
import { type Lease, Mutex } from '../locks/index.js';
import { ClosedError, InvalidArgumentError } from '../protocol/errors.js';
import { nodeName, pathProblem } from '../protocol/paths.js';
import {
  checkOptions,
  ended,
  type PartitionFunction,
  type PartitionState,
  type SetPartitionerEvents,
  type SetPartitionerOptions,
  shareOf,
} from './partitioner-options.js';
import { byCodePoint, joinParty, leaveParty, memberIds } from './partitioner-party.js';
import type { WaitOptions } from './wait.js';

/**
 * A set divided among the members of a party (kazoo's `SetPartitioner`, in its layout: kazoo
 * processes and ours divide one set). `start()` joins the party; the partitioner then divides
 * the set in the background. In `acquired`, `partition` holds this member's items; on
 * `release`, stop the work on them and call {@link release}; `acquired()` waits for a share.
 *
 * At a reconnect the party watch is restored; a suspended connection moves an owner to `release`
 * (its locks may be lost), and after `release()` the set is divided again. At a renewal the old
 * session's member node and locks are gone: the owner moves to `release`, and after `release()`
 * the partitioner joins again on the new session.
 */
export class SetPartitioner extends Listenable<SetPartitionerEvents> {
  /** This member's id. */
  readonly id: string;
  private readonly items: readonly string[];
  private readonly partitionOf: PartitionFunction;
  private readonly settleTime: number;
  private readonly partyPath: string;
  private readonly locksPath: string;
  private readonly stopping = new AbortController();
  private current: PartitionState = 'allocating';
  private owned: readonly string[] = [];
  private leases: Lease[] = [];
  private memberPath: string | undefined;
  private failedWith: unknown;
  private running: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private readonly joinedOnce: Promise<void>;
  private joined!: () => void;
  /** What start() waits for: joined, or closed first. */
  private startOutcome: Promise<void> | undefined;
  /** Ends the current term (acquired) or round (allocating). */
  private term: AbortController | undefined;
  /** Set by release(): what the loop resolves once the items are given back. */
  private releasing: { promise: Promise<void>; resolve: () => void } | undefined;

  /**
   * @param client The client to work through (a `RecipeClient`).
   * @param path The partitioner's path (kazoo's partition path).
   */
  constructor(
    readonly client: RecipeClient,
    readonly path: string,
    options: SetPartitionerOptions,
  ) {
    super(['state', 'error']);
    const problem = pathProblem(path);
    if (problem !== null) {
      throw new InvalidArgumentError(`SetPartitioner: invalid path "${path}": ${problem}`, {
        path,
      });
    }
    const checked = checkOptions(options, path);
    this.items = checked.items;
    this.id = checked.id;
    this.partitionOf = checked.partition;
    this.settleTime = checked.settleTime;
    this.partyPath = childPath(path, 'party');
    this.locksPath = childPath(path, 'locks');
    this.joinedOnce = new Promise<void>((resolve) => {
      this.joined = resolve;
    });
  }

  /** The state now. */
  get state(): PartitionState {
    return this.current;
  }

  /** This member's items while `acquired` (sorted as kazoo sorts them); empty in other states. */
  get partition(): readonly string[] {
    return this.current === 'acquired' ? this.owned : [];
  }

  /**
   * Joins the party and divides the set in the background; resolves once this member is in the
   * party. `timeout` rejects with a `TimeoutError`, `signal` with its reason; either way the
   * partitioner goes on (close it).
   */
  start(options: WaitOptions = {}): Promise<void> {
    if (this.closing) return Promise.reject(new ClosedError(`the partitioner ${this.path}`));
    this.running ??= this.run();
    if (!this.startOutcome) {
      const outcome = Promise.race([
        this.joinedOnce,
        ended(this.stopping.signal).then(() => this.closedError()),
      ]);
      // Every start() shares it; a start() whose arguments were refused never waits on it.
      outcome.catch(() => {});
      this.startOutcome = outcome;
    }
    return waitBounded(
      this.startOutcome,
      options,
      `joining the party of ${this.path}`,
      this.client,
    );
  }

  /** Each state from now on, as an async iterator (done at `close()`). */
  events(): AsyncIterableIterator<PartitionState> {
    return this.listeners.stream('state');
  }

  /**
   * Resolves with this member's items once it has acquired them (at once when it has). Rejects
   * with a `TimeoutError` for `timeout`, the signal's reason, a `ClosedError` at close, or the
   * failure's error in `failure`.
   */
  acquired(options: WaitOptions = {}): Promise<readonly string[]> {
    const settled = this.settledNow();
    if (settled) return settled;
    const cleanup: (() => void)[] = [];
    const next = new Promise<readonly string[]>((resolve, reject) => {
      cleanup.push(
        this.listeners.on('state', () => {
          const now = this.settledNow();
          if (now) now.then(resolve, reject);
        }),
      );
      // A close ends the listeners: nothing else would settle this wait.
      const onStop = () => reject(this.stopping.signal.reason);
      this.stopping.signal.addEventListener('abort', onStop, { once: true });
      cleanup.push(() => this.stopping.signal.removeEventListener('abort', onStop));
    });
    next.catch(() => {});
    const bounded = waitBounded(next, options, `the partition of ${this.path}`, this.client);
    const done = () => {
      for (const undo of cleanup) undo();
    };
    bounded.then(done, done);
    return bounded;
  }

  /**
   * Gives back this member's items (their locks) and divides the set again (kazoo's
   * `release_set`): call it in `release`, once the work on the items has stopped; in `acquired`
   * it gives them back at once. Resolves once they are given back; in other states at once.
   */
  release(): Promise<void> {
    if (this.current !== 'acquired' && this.current !== 'release') return Promise.resolve();
    if (!this.releasing) {
      let resolve!: () => void;
      const promise = new Promise<void>((done) => {
        resolve = done;
      });
      this.releasing = { promise, resolve };
      this.term?.abort(new Error('released'));
    }
    return this.releasing.promise;
  }

  /** Gives back the items, leaves the party, ends the streams; state `closed`. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.stopping.abort(new ClosedError(`the partitioner ${this.path}`, { path: this.path }));
      this.term?.abort(this.stopping.signal.reason);
      await this.running;
      await this.giveBack();
      await leaveParty(this.client, this.memberPath).catch((e: unknown) =>
        this.listeners.report(e),
      );
      this.setState('closed');
      this.releasing?.resolve();
      this.listeners.end();
    })();
    return this.closing;
  }

  /** Rejects with the ClosedError of a close() that came first. */
  private closedError(): never {
    throw this.stopping.signal.reason;
  }

  private settledNow(): Promise<readonly string[]> | undefined {
    if (this.current === 'acquired') return Promise.resolve(this.owned);
    if (this.current === 'failure') return Promise.reject(this.failedWith);
    if (this.current === 'closed' || this.closing) {
      return Promise.reject(new ClosedError(`the partitioner ${this.path}`, { path: this.path }));
    }
    return undefined;
  }

  private setState(state: PartitionState): void {
    if (this.current === state || this.current === 'closed') return;
    this.current = state;
    this.listeners.emit('state', state);
  }

  private async run(): Promise<void> {
    const stop = this.stopping.signal;
    while (!stop.aborted) {
      try {
        await this.round(stop);
      } catch (error) {
        if (stop.aborted) return;
        await this.giveBack();
        if (!this.survivable(error)) return this.fail(error);
        // The session ended or the link broke mid-round: join again once connected.
        this.setState('allocating');
        await pauseBeforeRetry(error, stop);
        await untilConnected(this.client, stop);
      }
    }
  }

  /** One round: join, allocate, hold until the term ends, give back. */
  private async round(stop: AbortSignal): Promise<void> {
    this.memberPath = await joinParty(
      this.client,
      this.partyPath,
      this.id,
      this.memberPath,
      stop,
      (path) => {
        this.memberPath = path;
      },
    );
    this.joined();
    const term = new AbortController();
    this.term = term;
    if (stop.aborted) return;
    if (await this.allocate(term)) {
      this.setState('acquired');
      await ended(term.signal);
      if (stop.aborted) return;
      // Not asked for by release(): the party changed or a lock may be lost. The owner stops
      // its work first, then calls release().
      if (!this.releasing) {
        this.setState('release');
        await Promise.race([new Promise<void>((r) => this.releaseWanted(r)), ended(stop)]);
        if (stop.aborted) return;
      }
    }
    await this.giveBack();
    this.setState('allocating');
    this.releasing?.resolve();
    this.releasing = undefined;
  }

  /** Whether the loop goes on after `error`: a lost link, an ended session, a missing node. */
  private survivable(error: unknown): boolean {
    const state = this.client.state;
    if (this.client.closing || state === 'closed' || state === 'auth-failed') return false;
    return isRetriable(error) || hasCode(error, 'SESSIONEXPIRED', 'NONODE');
  }

  private async fail(error: unknown): Promise<void> {
    this.failedWith = error;
    this.listeners.report(error);
    await leaveParty(this.client, this.memberPath).catch(() => {});
    this.setState('failure');
    this.releasing?.resolve();
    this.releasing = undefined;
  }

  /** Calls `then` once release() is called (now, if it was). */
  private releaseWanted(then: () => void): void {
    if (this.releasing) {
      then();
      return;
    }
    const term = new AbortController();
    this.term = term;
    term.signal.addEventListener('abort', () => then(), { once: true });
  }

  /**
   * One round: waits for the party to settle, computes this member's share, and locks it. True
   * once every item is locked; false when the round was ended first (the party changed, a lock
   * was lost, the partitioner closed), its locks given back by the caller.
   */
  private async allocate(term: AbortController): Promise<boolean> {
    const stop = this.stopping.signal;
    const onStop = () => term.abort(stop.reason);
    stop.addEventListener('abort', onStop, { once: true });
    // A shared watcher drops its waiters when it fires: each listing joins afresh, and only the
    // last listing's watch ends the term once the party has settled.
    let party: WatcherMembership | undefined;
    let settled = false;
    let changed = false;
    const listen = (): WatcherMembership => {
      party?.leave();
      const joined = joinWatcher(this.client, `getChildren:${this.partyPath}`, () => {
        if (party !== joined) return;
        changed = true;
        if (settled) term.abort(new Error('the party changed'));
      });
      party = joined;
      return joined;
    };
    const stopListening = () => {
      party?.leave();
      stop.removeEventListener('abort', onStop);
    };
    term.signal.addEventListener('abort', stopListening, { once: true });
    let held = false;
    try {
      let children: string[];
      for (;;) {
        changed = false;
        const membership = listen();
        children = await retry(
          () =>
            this.client.getChildren(this.partyPath, {
              watch: membership.watcher,
              signal: term.signal,
            }),
          { signal: term.signal },
        );
        membership.armed();
        await pauseUnlessAborted(this.settleTime, term.signal);
        if (term.signal.aborted) return false;
        if (!changed) break;
      }
      settled = true;
      // Our node gone from the listing: the session changed; join again on the next round.
      if (!children.includes(nodeName(this.memberPath!))) return false;
      const share = shareOf(this.partitionOf, this.id, memberIds(children), this.items, this.path);
      for (const item of share) {
        if (term.signal.aborted) return false;
        let lease: Lease;
        try {
          lease = await new Mutex(this.client, childPath(this.locksPath, item), {
            naming: 'kazoo',
          }).acquire({ signal: term.signal });
        } catch (error) {
          if (term.signal.aborted) return false;
          throw error;
        }
        this.leases.push(lease);
        lease.signal.addEventListener('abort', () => term.abort(lease.signal.reason), {
          once: true,
        });
      }
      if (term.signal.aborted) return false;
      this.owned = share.sort(byCodePoint);
      held = true;
      return true;
    } finally {
      if (!held) stopListening();
    }
  }

  /** Releases every lock held (each release keeps trying through a reconnect). */
  private async giveBack(): Promise<void> {
    const leases = this.leases.splice(0);
    this.owned = [];
    await Promise.all(
      leases.map((lease) =>
        lease.release().catch((error: unknown) => this.listeners.report(error)),
      ),
    );
  }
}
