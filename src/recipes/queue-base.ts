// What the two queues share: the path check, creating their directories once, the waiting take
// (a look at the directories, then a wait on their child watches until an entry is taken), the
// take that never waits, the size, the closed state, and close() ending the waiting takes. Each
// queue says what taking an entry is (removing it, or locking it) and how a put is made.
import { Listenable } from '../client/listenable.js';
import type { ErrorEvents } from '../client/listeners.js';
import type { RecipeClient } from '../client/recipe-client.js';
import type { Data } from '../client/types.js';
import { hasCode } from '../coordination/codes.js';
import { retry } from '../coordination/retry.js';
import { ClosedError, InvalidArgumentError } from '../protocol/errors.js';
import { pathProblem } from '../protocol/paths.js';
import type { StopSignal } from '../session/signal-waiters.js';
import { ensurePathUntil } from './paths.js';
import { entriesInOrder, lookUntilFound, type QueueLayout } from './queue-entries.js';
import { startWait, type WaitOptions } from './wait.js';

/** Options of a put. */
export interface PutOptions {
  /**
   * kazoo's priority, 0 to 999 (default 100): a lower number is taken first. Kazoo layouts only
   * (the priority is part of the entry's name).
   */
  priority?: number;
  /** Stops the put: it rejects with the signal's reason (the entry may have been created). */
  signal?: AbortSignal;
}

/**
 * The base of {@link DistributedQueue} and {@link LockingQueue}: `put`, `take`, `tryTake`,
 * `size` and `close` work alike in both; what a take hands out (`Taken`) is each queue's own.
 */
export abstract class QueueBase<Taken, E extends ErrorEvents> extends Listenable<E> {
  /** Aborted by `close()`: ends the takes still waiting. */
  protected readonly closed = new AbortController();
  /** Set by the first `close()`. */
  protected closing: Promise<void> | undefined;
  private ensured = false;
  /** Whose entry names the queue reads (its entries directory is the first of `listed`). */
  protected abstract readonly layout: QueueLayout;
  /** The directories a take lists, the entries first; their listings go to `takeFirst`. */
  protected abstract readonly listed: readonly string[];
  /** The directories created before the first put or take. */
  protected abstract readonly needed: readonly string[];

  /**
   * @param client The client to work through (a `RecipeClient`).
   * @param path The queue's path.
   * @param kind The class name, for the message of an invalid path.
   */
  protected constructor(
    readonly client: RecipeClient,
    readonly path: string,
    kind: string,
  ) {
    super(['error']);
    const problem = pathProblem(path);
    if (problem !== null) {
      throw new InvalidArgumentError(`${kind}: invalid path "${path}": ${problem}`, { path });
    }
  }

  /** Puts one item at the end of the queue (of its priority, in kazoo's layouts). */
  put(data: Data, options: PutOptions = {}): Promise<void> {
    return this.putAll([data], options);
  }

  /** Puts several items in one transaction: all of them or none. */
  abstract putAll(items: readonly Data[], options?: PutOptions): Promise<void>;

  /**
   * Takes the first entry there is (see the queue for what taking it means) and resolves with
   * it; waits for one while there is none. `timeout` rejects with a `TimeoutError`, `signal`
   * with its reason, `close()` with a `ClosedError`.
   */
  async take(options: WaitOptions = {}): Promise<Taken> {
    this.checkOpen();
    // The queue's close ends the wait through the bound (one shared listener on the close
    // signal): without a timeout or a signal the wait's signal is the close signal itself.
    const bound = startWait(options, this.path, { client: this.client, stop: this.closed.signal });
    const stop = bound.signal;
    try {
      await this.ensure(stop);
      const found = await lookUntilFound(this.client, this.listed, stop, (listings) =>
        this.takeFirst(listings, stop),
      );
      return await this.handOut(found);
    } finally {
      bound.dispose();
    }
  }

  /** Takes the first entry if there is one (null when there is none); never waits. */
  async tryTake(): Promise<Taken | null> {
    this.checkOpen();
    await this.ensure(undefined);
    const listings: string[][] = [];
    for (const dir of this.listed) listings.push(await retry(() => this.client.getChildren(dir)));
    const found = await this.takeFirst(listings, undefined);
    return found && this.handOut(found);
  }

  /**
   * How many entries the queue has now: a Curator node of several items counts once, a
   * LockingQueue's taken entries count (kazoo's `len`).
   */
  async size(): Promise<number> {
    this.checkOpen();
    try {
      const children = await retry(() => this.client.getChildren(this.listed[0]!));
      return entriesInOrder(this.layout, children).length;
    } catch (error) {
      if (hasCode(error, 'NONODE')) return 0;
      throw error;
    }
  }

  /**
   * Ends the takes still waiting (they reject with `ClosedError`) and gives back what the queue
   * holds (a LockingQueue: the entries taken and not consumed, and its put markers). Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed.abort(this.closedError());
      await this.giveBack();
      this.listeners.end();
    })();
    return this.closing;
  }

  /** Takes the first of the candidates that is still there; null when none is. */
  private async takeFirst(
    listings: readonly string[][],
    signal: StopSignal | undefined,
  ): Promise<Taken | null> {
    for (const name of this.candidates(listings)) {
      if (signal?.aborted) return null;
      const taken = await this.takeEntry(name, signal);
      if (taken) return taken;
    }
    return null;
  }

  /** The entries a take may try, in the order it tries them, from the listings of `listed`. */
  protected candidates(listings: readonly string[][]): string[] {
    return entriesInOrder(this.layout, listings[0]!);
  }

  /** Takes the entry `name`; null when another consumer was first or it is gone. */
  protected abstract takeEntry(name: string, signal: StopSignal | undefined): Promise<Taken | null>;

  /** Hands out what a take found (a queue may keep track of it); as it is by default. */
  protected handOut(found: Taken): Promise<Taken> {
    return Promise.resolve(found);
  }

  /** What `close()` does after ending the waiting takes, before the listeners end. */
  protected async giveBack(): Promise<void> {}

  /** Throws a `ClosedError` once `close()` was called. */
  protected checkOpen(): void {
    if (this.closing) throw this.closedError();
  }

  /** The error of a call on a closed queue. */
  protected closedError(): ClosedError {
    return new ClosedError(`the queue ${this.path}`, { path: this.path });
  }

  /** Creates the directories the queue needs, once (again after `forgetEnsured`). */
  protected async ensure(signal: StopSignal | undefined): Promise<void> {
    if (this.ensured) return;
    for (const dir of this.needed) {
      await ensurePathUntil(this.client, dir, false, signal);
    }
    this.ensured = true;
  }

  /** A directory was found missing: the next `ensure` creates them again. */
  protected forgetEnsured(): void {
    this.ensured = false;
  }
}
