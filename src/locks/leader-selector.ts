// Run a task while leader (Curator LeaderSelector's model) on top of the Curator-compatible latch.
import { badArguments, checkRecipePath } from './errors.js';
import {
  type ElectionClient,
  LeaderLatch,
  type LeaderLatchOptions,
  type Leadership,
  type Participant,
  participantsOf,
} from './leader-latch.js';

/** Options of a {@link LeaderSelector}. */
export interface LeaderSelectorOptions extends LeaderLatchOptions {
  /**
   * Join the election again (at the back of the line) each time the task returns or leadership
   * is lost, as Curator's `autoRequeue()`. Default false: the selector stops after one term.
   */
  requeue?: boolean;
  /**
   * Told about errors the selector cannot hand to anyone else: a task that threw (unless it threw
   * because its signal aborted), or the election failing (e.g. the session expired). Default:
   * ignored, so that a failing task never crashes the process.
   */
  onError?: (error: unknown) => void;
}

/**
 * The task a selector runs while leader. Its `leadership.signal` aborts when leadership may be
 * lost or the selector is closed: stop then, and return.
 */
export type LeaderTask = (leadership: Leadership) => Promise<void> | void;

/**
 * Runs `task` whenever this participant becomes leader of the election at `path` (a
 * {@link LeaderLatch}, so Curator LeaderLatch participants share the election). Leadership ends
 * when the task returns (the participant steps down, letting the next one lead) or when it may be
 * lost (the task's signal aborts; the selector waits for the task to return before it steps
 * down). With `requeue`, it then joins the line again.
 */
export class LeaderSelector implements AsyncDisposable {
  private readonly closing = new AbortController();
  private latch: LeaderLatch | undefined;
  private running: Promise<void> | undefined;

  constructor(
    /** The client whose session holds the candidate node. */
    readonly client: ElectionClient,
    /** The election's node; candidates are its children. */
    readonly path: string,
    private readonly task: LeaderTask,
    private readonly options: LeaderSelectorOptions = {},
  ) {
    checkRecipePath(path, 'LeaderSelector');
    if (typeof task !== 'function') throw badArguments('task must be a function', path);
  }

  /** True while the task runs with leadership that has not been lost. */
  get hasLeadership(): boolean {
    return this.latch?.hasLeadership ?? false;
  }

  /**
   * Resolves when the selector has stopped: after `close()`, after its one term (without
   * `requeue`), or after the election failed (reported to `onError`). Never rejects.
   */
  get done(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /** Joins the election. Throws BADARGUMENTS when called twice or after `close()`. */
  start(): void {
    if (this.running || this.closing.signal.aborted) {
      throw badArguments('the selector was already started', this.path);
    }
    this.running = this.run();
  }

  /** Every participant in line, the leader first (see {@link LeaderLatch.participants}). */
  participants(): Promise<Participant[]> {
    return participantsOf(this.client, this.path);
  }

  /**
   * Stops: aborts a running task's signal, waits for the task to return, then leaves the
   * election (its node is deleted). A task that ignores its signal keeps `close()` waiting.
   */
  async close(): Promise<void> {
    this.closing.abort(badArguments('the selector was closed', this.path));
    await this.running;
  }

  /** What `await using` calls: {@link close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  private report(error: unknown): void {
    try {
      this.options.onError?.(error);
    } catch {
      // A throwing error handler must not end the selector's loop or crash the process.
    }
  }

  private async run(): Promise<void> {
    const stop = this.closing.signal;
    const { requeue, onError: _, ...latchOptions } = this.options;
    do {
      const latch = new LeaderLatch(this.client, this.path, latchOptions);
      this.latch = latch;
      let electionFailed = false;
      try {
        latch.start();
        const leadership = await latch.leadership({ signal: stop });
        const signal = AbortSignal.any([leadership.signal, stop]);
        try {
          await this.task({ ...leadership, signal });
        } catch (error) {
          if (!signal.aborted || error !== signal.reason) this.report(error);
        }
      } catch (error) {
        // Waiting for leadership failed: closed (not an error) or the election itself failed.
        if (!stop.aborted) {
          electionFailed = true;
          this.report(error);
        }
      } finally {
        await latch.close();
      }
      if (electionFailed) return;
    } while (requeue === true && !stop.aborted);
  }
}
