// Run a task while leader, as Curator's LeaderSelector: its election is a Curator InterProcessMutex
// on the path, so a Java LeaderSelector on the same path takes part in the same election.

import { type ErrorEvents, Listeners, type Unsubscribe } from '../client/listeners.js';
import type { RecipeClient } from '../client/recipe-client.js';
import { type BoundOptions, waitBounded } from '../coordination/bounded.js';
import { Bound } from '../coordination/deadline.js';
import { LockName } from '../coordination/naming.js';
import { ClosedError } from '../protocol/errors.js';
import type { LeaderLatchOptions, Leadership, Participant } from './election-types.js';
import { badArguments, checkRecipePath, LeaseReleasedError } from './errors.js';
import { Mutex } from './mutex.js';
import { participantsOf } from './participants.js';
import type { Lease } from './types.js';

/** Options of a {@link LeaderSelector}. */
export interface LeaderSelectorOptions extends LeaderLatchOptions {
  /**
   * Join the election again (at the back of the line) each time the task returns or leadership
   * is lost, as Curator's `autoRequeue()`. Default false: the selector stops after one term.
   */
  requeue?: boolean;
  /** The task to run while leader (Curator's `LeaderSelectorListener.takeLeadership`). Required. */
  task: LeaderTask;
}

/** The events of a {@link LeaderSelector} (see `LeaderSelector.on`). */
export interface LeaderSelectorEvents extends ErrorEvents {
  /**
   * Told about errors the selector cannot hand to anyone else: a task that threw (unless it threw
   * because its signal aborted), or the election failing (e.g. the session expired). Without a
   * listener they are dropped, so that a failing task never crashes the process.
   */
  error: (error: Error) => void;
}

/**
 * The task a selector runs while leader. Its `leadership.signal` aborts when leadership may be
 * lost or the selector is closed: stop then, and return.
 */
export type LeaderTask = (leadership: Leadership) => Promise<void> | void;

/** The node names a selector's election counts: those of the {@link Mutex} it runs on. */
const SELECTOR_NAMES = [LockName.mutex, LockName.kazooMutex];

/**
 * Runs `task` whenever this participant becomes leader of the election at `path`. The election is
 * Curator's LeaderSelector's: an InterProcessMutex on `path` (a {@link Mutex}: protected
 * `_c_<uuid>-lock-<seq>` nodes with the id as data), so Java processes running Curator's
 * LeaderSelector on the same path share it. (Curator's LeaderLatch is a different layout: join
 * that one with a {@link LeaderLatch}.) Leadership ends when the task returns (the participant
 * steps down: its node is deleted, letting the next one lead) or when it may be lost (the task's
 * signal aborts; the selector waits for the task to return before it steps down). With `requeue`,
 * it then joins the line again at the back.
 */
export class LeaderSelector implements AsyncDisposable {
  private readonly closing = new AbortController();
  private readonly events = new Listeners<LeaderSelectorEvents>(['error']);
  private readonly task: LeaderTask;
  private current: Lease | undefined;
  private running: Promise<void> | undefined;
  private closed: Promise<void> | undefined;

  constructor(
    /** The client whose session holds the candidate node. */
    readonly client: RecipeClient,
    /** The election's node; candidates are its children. */
    readonly path: string,
    private readonly options: LeaderSelectorOptions,
  ) {
    checkRecipePath(path, 'LeaderSelector');
    const task = (options as LeaderSelectorOptions | undefined)?.task;
    if (typeof task !== 'function') throw badArguments('options.task must be a function', path);
    if (options.id !== undefined && typeof options.id !== 'string') {
      throw badArguments('id must be a string', path);
    }
    this.task = task;
  }

  /** True while the task runs with leadership that has not been lost. */
  get hasLeadership(): boolean {
    return this.current !== undefined && !this.current.signal.aborted;
  }

  /**
   * Resolves when the selector has stopped: after `close()`, after its one term (without
   * `requeue`), or after the election failed (reported to the `error` listeners). Never rejects.
   */
  get done(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /**
   * Joins the election; the task runs whenever this participant leads. Resolves at once: the
   * election runs in the background and waits for nothing on the server here (`options` is the
   * contract's `{ timeout, signal }`: an aborted signal rejects with its reason, the selector
   * still started). A second call does nothing more; after `close()` it rejects with a
   * `ClosedError`.
   */
  start(options: BoundOptions = {}): Promise<void> {
    if (this.closing.signal.aborted) {
      return Promise.reject(new ClosedError(`the selector ${this.path}`, { path: this.path }));
    }
    this.running ??= this.run();
    return waitBounded(
      Promise.resolve(),
      options,
      `the start of the selector ${this.path}`,
      this.client,
    );
  }

  /** Listens to an event (see {@link LeaderSelectorEvents}); returns the unsubscribe function. */
  on<E extends keyof LeaderSelectorEvents>(
    event: E,
    listener: LeaderSelectorEvents[E],
  ): Unsubscribe {
    return this.events.on(event, listener);
  }

  /**
   * Every participant in line, the leader first, as Curator's `LeaderSelector.getParticipants()`
   * lists them (the mutex's contenders, each node's data as its id); works before `start()`.
   */
  participants(): Promise<Participant[]> {
    return participantsOf(this.client, this.path, SELECTOR_NAMES);
  }

  /**
   * Stops: aborts a running task's signal, waits for the task to return, then leaves the
   * election (its node is deleted). A task that ignores its signal keeps `close()` waiting.
   * Idempotent: every call returns the same promise.
   */
  close(): Promise<void> {
    if (!this.closed) {
      // The running term ends as given up, not as a fault: its signal's reason says so.
      this.closing.abort(new LeaseReleasedError(this.path, `leadership of ${this.path}`));
      this.closed = this.running ?? Promise.resolve();
    }
    return this.closed;
  }

  /** What `await using` calls: {@link close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  private report(error: unknown): void {
    this.events.report(error);
  }

  private async run(): Promise<void> {
    const stop = this.closing.signal;
    const { requeue, id = '', lossPolicy } = this.options;
    const mutex = new Mutex(this.client, this.path, { data: id, lossPolicy });
    do {
      let lease: Lease;
      try {
        // Settled only once a waiting attempt has removed its node: close() promises it is gone.
        lease = await mutex.acquireSettled(stop);
      } catch (error) {
        // Closed while waiting (not an error), or the election itself failed.
        if (!stop.aborted) this.report(error);
        return;
      }
      this.current = lease;
      // The task's signal: aborted when the lease is lost or released or the selector closes,
      // through each signal's one shared listener (a Bound), not an AbortSignal.any per term.
      const term = new Bound(lease.signal, undefined, stop);
      const signal = term.signal;
      try {
        await this.task({
          path: lease.path,
          fencingToken: lease.fencingToken,
          signal,
          id,
          multi: (ops, options) => lease.multi(ops, options),
        });
      } catch (error) {
        if (!signal.aborted || error !== signal.reason) this.report(error);
      } finally {
        this.current = undefined;
        // Steps down: the node goes (retried across reconnects; the session takes it at worst).
        await lease.release().catch((error: unknown) => this.report(error));
        term.end();
      }
    } while (requeue === true && !stop.aborted);
  }
}
