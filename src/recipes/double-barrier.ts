// Curator's DistributedDoubleBarrier (kazoo's DoubleBarrier): members enter together once
// `memberQty` are there, and leave together once all have left. Curator's node layout: each
// member an EPHEMERAL child named by a random UUID under the barrier path, and a `ready` child
// created by the member that completes the count.
import type { RecipeClient } from '../client/recipe-client.js';
import { CreateMode, type Watcher } from '../client/types.js';
import { stopping } from '../coordination/bound-signal.js';
import { hasCode } from '../coordination/codes.js';
import { childPath } from '../coordination/naming.js';
import { renewedAfter } from '../coordination/renewal.js';
import { isRetriable } from '../coordination/retry.js';
import { ClosedError, makeError } from '../protocol/errors.js';
import type { StopSignal } from '../session/signal-waiters.js';
import { checkRecipePath, createWithParents } from './paths.js';
import { retry, retryUntil } from './retry.js';
import { startWait, type WaitBound, type WaitOptions, waitForOneWatch } from './wait.js';

/** Options of a {@link DistributedDoubleBarrier}. */
export interface DoubleBarrierOptions {
  /** How many members the barrier waits for (a whole number, at least 1). Required. */
  memberQty: number;
}

/** The name of the child that says every member has entered (Curator's). */
export const READY_NODE = 'ready';

const FOREVER = { maxAttempts: Number.POSITIVE_INFINITY };

/**
 * A double barrier (Curator's `DistributedDoubleBarrier`, same node layout, so Curator members
 * and ours can share one): {@link enter} waits until `memberQty` members have entered,
 * {@link leave} waits until every member has left. Each member is an ephemeral node named by a
 * random UUID (no sequential nodes, so no sequence limit).
 *
 * At a reconnect nothing is lost (the member node belongs to the session, the client sets the
 * watches again). At a session renewal the member node is gone with the old session: a waiting
 * `enter` creates it again on the new session and goes on waiting; a `leave` finds it missing
 * and rejects with NONODE (as Curator's "Our path is missing"), since the other members may
 * already have counted it as gone.
 */
export class DistributedDoubleBarrier implements AsyncDisposable {
  /** This member's node. */
  readonly memberPath: string;
  /** How many members the barrier waits for. */
  readonly memberQty: number;
  private readonly readyPath: string;
  private readonly memberName: string;
  private readonly closing = new AbortController();
  private closed: Promise<void> | undefined;

  /**
   * @param client The client to use.
   * @param path The barrier's node.
   * @param options `memberQty`: how many members the barrier waits for.
   */
  constructor(
    private readonly client: RecipeClient,
    readonly path: string,
    options: DoubleBarrierOptions,
  ) {
    checkRecipePath(path, 'DistributedDoubleBarrier');
    const memberQty = (options as DoubleBarrierOptions | undefined)?.memberQty;
    if (!Number.isInteger(memberQty) || (memberQty as number) < 1) {
      throw makeError(
        'BADARGUMENTS',
        `memberQty must be a positive integer, got ${String(memberQty)}`,
        { path },
      );
    }
    this.memberQty = memberQty as number;
    this.memberName = crypto.randomUUID();
    this.memberPath = childPath(path, this.memberName);
    this.readyPath = childPath(path, READY_NODE);
  }

  /**
   * Enters: creates this member's node and waits until `memberQty` members have entered (or the
   * `ready` node says so). Rejects with a `TimeoutError` when `timeout` runs out first, with the
   * signal's reason when it aborts, with a `ClosedError` when the barrier is closed; in each case
   * this member's node is deleted again so that it is not counted.
   */
  async enter(options: WaitOptions = {}): Promise<void> {
    const bound = this.startWait(options);
    let entered = false;
    try {
      await this.onNewSession(bound, () => this.createMember(bound));
      while (!entered) {
        const event = await this.onNewSession(bound, () =>
          waitForOneWatch(this.client, `exists:${this.readyPath}`, bound.signal, async (watch) => {
            entered = await this.checkEntered(watch, bound);
            return entered ? 'now' : 'wait';
          }),
        );
        // The creation of `ready` lets the members in, as in Curator and kazoo, even if it is
        // gone by the time we could look: kazoo's leave deletes it first, so a fast member can
        // create and remove it before a waiter's next read.
        if (event?.type === 'NodeCreated') entered = true;
      }
    } catch (error) {
      await this.client.delete(this.memberPath).catch(() => {});
      throw bound.signal.aborted ? bound.signal.reason : error;
    } finally {
      bound.dispose();
    }
  }

  /**
   * Stops this member: waits of {@link enter} and {@link leave} still running reject with a
   * `ClosedError`, and this member's node is deleted (without waiting for the others). Later
   * calls reject with `ClosedError`. Idempotent.
   */
  close(): Promise<void> {
    this.closed ??= (async () => {
      this.closing.abort(new ClosedError(`the double barrier ${this.path}`, { path: this.path }));
      await this.deleteMember().catch(() => {});
    })();
    return this.closed;
  }

  /** What `await using` calls: {@link close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** One wait's bound: the caller's timeout and signal, and this barrier's close. */
  private startWait(options: WaitOptions): WaitBound {
    return startWait(options, this.path, { client: this.client, stop: this.closing.signal });
  }

  /**
   * Leaves: deletes this member's node and waits until every member's node is gone (Curator's
   * order: the lowest-named member waits for the highest, the others delete theirs and wait for
   * the lowest). Resolves when all have left. Rejects with a `TimeoutError` when `timeout` runs
   * out first, with NONODE when this member's node is missing (never entered, or the session
   * that held it expired), with the signal's reason when it aborts, with a `ClosedError` once
   * the barrier is closed.
   */
  async leave(options: WaitOptions = {}): Promise<void> {
    const bound = this.startWait(options);
    const ours = { shouldExist: true };
    try {
      // A step that failed with the old session starts over with a fresh listing: it finds our
      // node gone (NONODE) unless we had deleted it already, and then it waits on as before.
      while (
        (await this.onNewSession(bound, () => this.leaveStep(bound, ours), 'again')) !== 'done'
      );
      await this.onNewSession(bound, () =>
        retry(() => this.client.delete(this.readyPath), FOREVER).catch((error: unknown) => {
          if (!hasCode(error, 'NONODE')) throw error;
        }),
      );
    } catch (error) {
      throw bound.signal.aborted ? bound.signal.reason : error;
    } finally {
      bound.dispose();
    }
  }

  /** One round of {@link leave}: list the members, delete ours if it is our turn, wait for one. */
  private async leaveStep(
    bound: WaitBound,
    ours: { shouldExist: boolean },
  ): Promise<'done' | 'again'> {
    const children = (await this.listMembers(bound.signal)).sort();
    if (children.length === 0) return 'done';
    const ourIndex = children.indexOf(this.memberName);
    if (ourIndex < 0 && ours.shouldExist) {
      throw makeError('NONODE', `this member's node ${this.memberPath} is missing`, {
        path: this.memberPath,
      });
    }
    if (children.length === 1 && ourIndex === 0) {
      await this.deleteMember();
      return 'done';
    }
    const lowest = ourIndex === 0;
    const watched = childPath(this.path, lowest ? children.at(-1)! : children[0]!);
    if (!lowest && ours.shouldExist) {
      await this.deleteMember();
      ours.shouldExist = false;
    }
    await waitForOneWatch(this.client, `exists:${watched}`, bound.signal, async (watch) => {
      try {
        const stat = await this.client.exists(watched, stopping({ watch }, bound.signal));
        return stat ? 'wait' : 'now';
      } catch (error) {
        if (!isRetriable(error) || bound.signal.aborted) throw error;
        return 'now';
      }
    });
    return 'again';
  }

  /**
   * Runs `step`; when it failed because its session expired and the client renewed it, runs it
   * again on the new session (or, with `retried`, returns that instead: the caller starts over).
   * Anything else, and anything once the wait is over, is passed on.
   */
  private async onNewSession<T>(bound: WaitBound, step: () => Promise<T>, retried?: T): Promise<T> {
    for (;;) {
      try {
        return await step();
      } catch (error) {
        if (bound.signal.aborted || !renewedAfter(this.client, error)) throw error;
        if (retried !== undefined) return retried;
      }
    }
  }

  /**
   * Creates this member's ephemeral node (parents as containers) on the current session. A node
   * already there is ours if this session made it (a retried create whose first reply was lost);
   * one of an older session of ours, which the server has not removed yet, is deleted and made
   * again, because it vanishes whenever the server ends that session.
   */
  private async createMember(bound: WaitBound): Promise<void> {
    const signal = bound.signal;
    for (;;) {
      try {
        await retryUntil(
          () =>
            createWithParents(
              this.client,
              this.memberPath,
              undefined,
              stopping({ mode: CreateMode.EPHEMERAL }, signal),
            ),
          FOREVER,
          signal,
        );
        return;
      } catch (error) {
        if (!hasCode(error, 'NODEEXISTS')) throw error;
      }
      const stat = await retryUntil(
        () => this.client.exists(this.memberPath, stopping({}, signal)),
        FOREVER,
        signal,
      );
      if (stat?.ephemeralOwner === this.client.sessionId) return;
      if (stat === null) continue;
      await retryUntil(
        () => this.client.delete(this.memberPath, stat.version),
        FOREVER,
        signal,
      ).catch((error: unknown) => {
        if (!hasCode(error, 'NONODE') && !hasCode(error, 'BADVERSION')) throw error;
      });
    }
  }

  /**
   * The members' node names (`ready` left out), none when the barrier node is gone: it is a
   * container, which the server removes once it is empty (when the last member left, or when the
   * only member's node went with its expired session).
   */
  private async listMembers(signal: StopSignal): Promise<string[]> {
    const children = await retryUntil(
      () => this.client.getChildren(this.path, stopping({}, signal)),
      FOREVER,
      signal,
    ).catch((error: unknown) => {
      if (hasCode(error, 'NONODE')) return [] as string[];
      throw error;
    });
    return children.filter((name) => name !== READY_NODE);
  }

  /** Whether this member's node exists and belongs to the client's current session. */
  private async holdsMember(signal: StopSignal): Promise<boolean> {
    const stat = await retryUntil(
      () => this.client.exists(this.memberPath, stopping({}, signal)),
      FOREVER,
      signal,
    );
    return stat !== null && stat.ephemeralOwner === this.client.sessionId;
  }

  /** True when `ready` exists, or this member completes the count (and creates `ready`). */
  private async checkEntered(watch: Watcher, bound: WaitBound): Promise<boolean> {
    const signal = bound.signal;
    const ready = await retryUntil(
      () => this.client.exists(this.readyPath, stopping({ watch }, signal)),
      FOREVER,
      signal,
    );
    if (ready) return true;
    // No barrier node (see listMembers): ours is made again below, with the barrier node.
    const members = await this.listMembers(signal);
    if (!(await this.holdsMember(signal))) {
      // The session that held our node expired and a new one took over: enter again. A node of
      // the old session still listed does not count: it goes when the server ends that session.
      await this.createMember(bound);
      if (!members.includes(this.memberName)) members.push(this.memberName);
    }
    if (members.length < this.memberQty) return false;
    await retryUntil(
      () =>
        this.client.create2(
          this.readyPath,
          undefined,
          stopping({ mode: CreateMode.PERSISTENT }, signal),
        ),
      FOREVER,
      signal,
    ).catch((error: unknown) => {
      if (!hasCode(error, 'NODEEXISTS')) throw error;
    });
    return true;
  }

  private async deleteMember(): Promise<void> {
    await retry(() => this.client.delete(this.memberPath), FOREVER).catch((error: unknown) => {
      if (!hasCode(error, 'NONODE')) throw error;
    });
  }
}
