import { Listeners, type Unsubscribe } from '../client/listeners.js';
import type { RecipeClient } from '../client/recipe-client.js';
import { type BoundOptions, outcome, waitBounded } from '../coordination/bounded.js';
import { untilConnected } from '../coordination/connection-wait.js';
import { queueOrder } from '../coordination/creation-order.js';
import type { BoundWaiter } from '../coordination/deadline.js';
import type { OwnNode } from '../coordination/naming.js';
import { childPath } from '../coordination/naming.js';
import { syncFirst } from '../coordination/nodes.js';
import { checkOwnSession, renewedAfter } from '../coordination/renewal.js';
import { isRetriable, pauseBeforeRetry } from '../coordination/retry.js';
import { waitForChange } from '../coordination/wait.js';
import { ClosedError } from '../protocol/errors.js';
import { electionEvent } from '../telemetry/lock.js';
import { AcquireDeadlines, noWait } from './deadline.js';
import {
  LATCH_NAME,
  type LatchState,
  type LeaderLatchEvents,
  type LeaderLatchOptions,
  type Leadership,
  type Participant,
} from './election-types.js';
import { badArguments, checkRecipePath, hasCode, LockLostError, lossPolicyOf } from './errors.js';
import { holdNode } from './lease.js';
import { type Attempt, cleanupAttempt, createProtected } from './nodes.js';
import { participantsOf } from './participants.js';
import type { AcquireOptions, Lease, LossPolicy } from './types.js';

interface Waiter extends BoundWaiter {
  resolve(leadership: Leadership): void;
  reject(error: unknown): void;
  /** `timeout: 0`: answered by the first listing (we lead, or we do not), never waits longer. */
  readonly noWait: boolean;
}

/** How a term of leadership ended, and what the contention loop must do next. */
type TermEnd = 'closed' | 'recreate' | 'recover';

/**
 * Curator's LeaderLatch: every participant creates an EPHEMERAL_SEQUENTIAL node
 * `_c_<uuid>-latch-<seq>` (protected, data = its id) under `path`; the first in line (Curator's
 * order, and the creation order once the parent's sequence counter reached its limit) leads. Each other participant watches only the node just ahead of it, so a change of
 * leader wakes one participant (no herd).
 *
 * Connection losses are handled like the locks': a create whose reply was lost is found again by
 * its protected prefix; after the connection comes back the participant syncs, lists again and
 * keeps its place if its node survived (Curator instead deletes and re-creates its node, going to
 * the back of the line). Leadership is reported lost (the term's signal aborts) as soon as the
 * connection is suspended (default) or the session expires. After an expiry the latch takes part
 * again with a new node once the client has a new session (see `ConnectOptions.renewSession`);
 * `leadership()` waits across it. A client that does not renew ends the latch at the expiry:
 * `leadership()` then rejects with the session's error.
 */
export class LeaderLatch implements AsyncDisposable {
  /** This participant's id. */
  readonly id: string;
  private readonly lossPolicy: LossPolicy;
  private readonly closing = new AbortController();
  private readonly attempt: Attempt = {};
  private readonly waiters = new Set<Waiter>();
  /** Creation zxids of the candidates, read once each while the line is past the sequence limit. */
  private readonly czxids = new Map<string, bigint>();
  /** Whether the first listing after `start()` decided (we led, or someone was ahead of us). */
  private decided = false;
  /** The running term; `gained` once it was handed out (and announced as `leader-gained`). */
  private current: { lease: Lease; leadership: Leadership; gained: boolean } | undefined;
  private status: LatchState = 'latent';
  private failure: unknown;
  private loop: Promise<void> | undefined;
  private closed: Promise<void> | undefined;
  private readonly decision = outcome();
  private readonly events = new Listeners<LeaderLatchEvents>(['leader', 'error']);
  /** The deadlines of `leadership()` waits, on the client's shared timer. */
  private readonly deadlines: AcquireDeadlines;

  constructor(
    /** The client whose session holds the candidate node. */
    readonly client: RecipeClient,
    /** The election's node; candidates are its children. */
    readonly path: string,
    options: LeaderLatchOptions = {},
  ) {
    checkRecipePath(path, 'LeaderLatch');
    const id = options.id ?? '';
    if (typeof id !== 'string') throw badArguments('id must be a string', path);
    this.id = id;
    this.lossPolicy = lossPolicyOf(options.lossPolicy, path);
    this.deadlines = new AcquireDeadlines(path, `leadership of ${path}`, client);
  }

  /** See {@link LatchState}. */
  get state(): LatchState {
    return this.status;
  }

  /** True while this participant leads (a term is running and its signal has not aborted). */
  get hasLeadership(): boolean {
    return this.current !== undefined && !this.current.leadership.signal.aborted;
  }

  /** This participant's candidate node, once created. */
  get ourPath(): string | undefined {
    return this.attempt.node?.path;
  }

  /**
   * Joins the election and resolves once this participant's candidate node is in line and the
   * first listing decided whether it leads (`hasLeadership` then says so). Rejects with a
   * `TimeoutError` after `timeout` ms and with the signal's reason on abort (the latch stays in
   * the election: `close()` it), with the latch's error when it fails first, and with a
   * `ClosedError` after `close()`. A second call waits for the same outcome.
   */
  start(options: BoundOptions = {}): Promise<void> {
    if (this.status === 'closed') return Promise.reject(this.endError());
    if (this.status === 'latent') {
      this.status = 'started';
      this.loop = this.contend().catch((error: unknown) => this.fail(error));
    }
    return waitBounded(
      this.decision.promise,
      options,
      `the first listing of ${this.path}`,
      this.client,
    );
  }

  /** Listens to an event of the latch (see {@link LeaderLatchEvents}); returns the unsubscribe. */
  on<E extends keyof LeaderLatchEvents>(event: E, listener: LeaderLatchEvents[E]): Unsubscribe {
    return this.events.on(event, listener);
  }

  /**
   * The current term of leadership, at once if this participant leads, else when it next does.
   * Rejects with a `LockTimeoutError` after `timeout` ms, with the signal's reason on abort, and
   * with the latch's error once it is closed or failed. `timeout: 0` answers whether it leads now;
   * called before the latch's first listing (just after `start()`), it waits for that listing,
   * so a latch started on a free election leads (bound that wait with `signal`).
   */
  async leadership(options: AcquireOptions = {}): Promise<Leadership> {
    if (this.status === 'latent') throw badArguments('start() the latch first', this.path);
    const bound = this.deadlines.start(options);
    return new Promise<Leadership>((resolve, reject) => {
      const waiter: Waiter = {
        noWait: noWait(options),
        resolve: (leadership) => {
          end();
          resolve(leadership);
        },
        reject: (error) => {
          end();
          reject(error);
        },
        boundEnded: (reason) => waiter.reject(reason),
      };
      const end = () => {
        this.waiters.delete(waiter);
        bound?.end(); // leaves the shared timer and the caller's signal
      };
      if (this.status === 'closed') return waiter.reject(this.endError());
      if (this.hasLeadership && this.current) return waiter.resolve(this.current.leadership);
      if (bound?.ended) return waiter.reject(bound.reason);
      // `timeout: 0` before the first listing waits for it: only then is "not leader now" true.
      if (waiter.noWait && this.decided) return waiter.reject(this.deadlines.taken());
      this.waiters.add(waiter);
      bound?.listen(waiter);
    });
  }

  /** Every participant in line (the leader first), read from the server; works before `start()`. */
  participants(): Promise<Participant[]> {
    return participantsOf(this.client, this.path);
  }

  /** The current leader, or null when nobody takes part. */
  async leader(): Promise<Participant | null> {
    return (await this.participants())[0] ?? null;
  }

  /**
   * Leaves the election: ends the current term (its signal aborts first), then deletes the
   * candidate node (retried across reconnects until done or the session is gone). Idempotent.
   */
  close(): Promise<void> {
    if (!this.closed) {
      this.status = 'closed';
      this.closing.abort(new ClosedError(`the latch ${this.path}`, { path: this.path }));
      this.decision.settle(this.endError());
      this.closed = (async () => {
        await this.loop;
        this.endTerm();
        for (const waiter of [...this.waiters]) waiter.reject(this.endError());
        await cleanupAttempt(this.client, this.path, this.attempt);
      })();
    }
    return this.closed;
  }

  /** What `await using` calls: {@link close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** The first listing decided: `timeout: 0` waiters that were not made leader are answered. */
  private firstListingDecided(): void {
    this.decided = true;
    this.decision.settle();
    for (const waiter of [...this.waiters]) {
      if (waiter.noWait) waiter.reject(this.deadlines.taken());
    }
  }

  private endError(): unknown {
    return this.failure ?? this.closing.signal.reason;
  }

  /** A fatal error (the session is over, or the server refuses us): the latch ends. */
  private fail(error: unknown): void {
    if (this.closing.signal.aborted) return;
    this.failure = error;
    void this.close();
  }

  /** The contention loop: runs until the latch is closed or fails. */
  private async contend(): Promise<void> {
    const { client, path } = this;
    const stop = this.closing.signal;
    let recovering = false;
    while (!stop.aborted) {
      try {
        if (recovering) {
          // A server we reconnected to may lag behind the one we lost: catch up before reading.
          await syncFirst(client, path, stop);
          recovering = false;
        }
        const node = this.attempt.node ?? (await this.create(stop));
        const children = await client.getChildren(path, { signal: stop }).catch((error) => {
          if (hasCode(error, 'NONODE') && !stop.aborted) return [] as string[];
          throw error;
        });
        const sorted = await this.inLine(children, node, stop);
        const own = sorted.findIndex((contender) => contender.name === node.name);
        if (own < 0) {
          // Our node is gone (deleted by someone else): join again, as Curator does.
          this.attempt.node = undefined;
          continue;
        }
        if (own > 0) {
          this.firstListingDecided();
          await waitForChange(client, childPath(path, sorted[own - 1]!.name), stop);
          continue;
        }
        // A listing on a renewed session may still show the old session's node: never ours.
        checkOwnSession(client, node);
        const end = await this.lead(node, stop);
        if (end === 'recreate') this.attempt.node = undefined;
        else if (end === 'recover') {
          recovering = true;
          await untilConnected(client, stop);
        }
      } catch (error) {
        if (stop.aborted) return;
        if (renewedAfter(client, error)) {
          // The session expired and the client is opening a new one. The old term has ended
          // (its signal aborted at the expiry, before we got here), the old node goes with the
          // old session: take part again with a new node on the new session.
          this.attempt.node = undefined;
          this.attempt.prefix = undefined;
          recovering = false;
          await untilConnected(client, stop);
          continue;
        }
        // The lock retry policy decides (see RETRIABLE): an unknown outcome or a server that
        // cannot take the request now. Wait for a connection (a read-write one after NOTREADONLY:
        // a read-only server cannot take our node), pause after a refusal, then sync and go on.
        if (!isRetriable(error)) throw error;
        recovering = true;
        if (hasCode(error, 'NOTREADONLY')) await untilConnected(client, stop, true);
        else {
          await untilConnected(client, stop);
          await pauseBeforeRetry(error, stop);
        }
      }
    }
  }

  /**
   * The candidates in line: by sequence, as Curator's LeaderLatch sorts, and by creation zxid once
   * the counter has reached its limit (as the locks order, see `SequenceOrder`), where Curator's
   * text order would let a newcomer sort ahead of the leader.
   */
  private inLine(children: readonly string[], node: OwnNode, stop: AbortSignal) {
    return queueOrder(
      this.client,
      this.path,
      children,
      [LATCH_NAME],
      'numeric',
      node,
      this.czxids,
      stop,
    );
  }

  private create(signal: AbortSignal): Promise<OwnNode> {
    return createProtected(
      {
        client: this.client,
        dir: this.path,
        style: 'curator',
        lockName: LATCH_NAME,
        data: this.id,
        signal,
      },
      this.attempt,
    );
  }

  /** One term: hands out leadership until it is lost or the latch closes. */
  private async lead(node: OwnNode, stop: AbortSignal): Promise<TermEnd> {
    const lease = holdNode({
      client: this.client,
      path: node.path,
      lockPath: this.path,
      kind: LATCH_NAME,
      czxid: node.stat.czxid,
      lossPolicy: this.lossPolicy,
      // The latch deletes its node itself (on close): ending a term keeps the node.
      removeNode: () => Promise.resolve(),
    });
    const leadership: Leadership = {
      path: node.path,
      fencingToken: node.stat.czxid,
      signal: lease.signal,
      id: this.id,
      multi: (ops, options) => lease.multi(ops, options),
    };
    // A term lost at once (the link dropped since the listing) is never handed out nor announced.
    const gained = !lease.signal.aborted;
    this.current = { lease, leadership, gained };
    if (gained) {
      electionEvent('leader-gained', this.path, node.path);
      this.events.emit('leader', leadership);
      for (const waiter of [...this.waiters]) waiter.resolve(leadership);
    }
    this.firstListingDecided();
    await new Promise<void>((resolve) => {
      if (lease.signal.aborted || stop.aborted) return resolve();
      const done = () => {
        lease.signal.removeEventListener('abort', done);
        stop.removeEventListener('abort', done);
        resolve();
      };
      lease.signal.addEventListener('abort', done, { once: true });
      stop.addEventListener('abort', done, { once: true });
    });
    if (stop.aborted) return 'closed';
    const reason = lease.signal.reason;
    this.endTerm();
    if (reason instanceof LockLostError) {
      if (reason.reason === 'deleted') return 'recreate';
      if (reason.reason === 'suspended') return 'recover';
    }
    // The session expired (the loop takes part again on the new one, if the client renews it),
    // or the client is over.
    throw reason;
  }

  /** Ends the running term, if any: its signal aborts (if it has not already). */
  private endTerm(): void {
    const term = this.current;
    this.current = undefined;
    // A term never announced as gained is not announced as lost either.
    if (term?.gained) {
      electionEvent('leader-lost', this.path, term.leadership.path, termEnd(term.lease));
    }
    void term?.lease.release();
  }
}

/** Why a term ended, for the telemetry: the loss reason, or `closed` (closed, or given up). */
function termEnd(lease: Lease): string {
  const reason: unknown = lease.signal.reason;
  return reason instanceof LockLostError ? reason.reason : 'closed';
}
