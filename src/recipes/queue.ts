// A queue whose take removes the entry (kazoo's Queue, Curator's SimpleDistributedQueue and
// DistributedQueue without a lock path, in their layouts): a consumer that dies after a take has
// lost the item. For an item that must outlive its consumer, use the LockingQueue.

import { toBytes } from '../client/bytes.js';
import { Listenable } from '../client/listenable.js';
import type { ErrorEvents } from '../client/listeners.js';
import { Op } from '../client/multi.js';
import type { RecipeClient } from '../client/recipe-client.js';
import type { Data } from '../client/types.js';
import { CreateMode } from '../client/types.js';
import { hasCode } from '../coordination/codes.js';
import { retry } from '../coordination/retry.js';
import { ClosedError, InvalidArgumentError } from '../protocol/errors.js';
import { pathProblem } from '../protocol/paths.js';
import { ensurePath, mayHaveApplied } from './paths.js';
import {
  checkPriority,
  decodeCuratorItems,
  encodeCuratorItems,
  entriesInOrder,
  entryPath,
  entryPrefix,
  linkedSignal,
  lookUntilFound,
  QUEUE_LAYOUTS,
  type QueueLayout,
} from './queue-entries.js';
import { startWait, type WaitOptions } from './wait.js';

/** Options of a {@link DistributedQueue}. */
export interface DistributedQueueOptions {
  /** Whose node layout the queue uses (see {@link QueueLayout}). Required. */
  layout: QueueLayout;
}

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

/** The events of a queue. */
export interface QueueEvents extends ErrorEvents {}

/**
 * A distributed queue in kazoo's (`Queue`) or Curator's (`DistributedQueue`,
 * `SimpleDistributedQueue`) layout: processes of either, and ours, put into and take from the
 * same path. {@link take} removes the entry it returns (at most once: a consumer that dies after
 * its take has lost the item). Nothing runs in the background; {@link close} ends the takes
 * still waiting.
 *
 * At a reconnect the requests are sent again: a put whose reply was lost is sent again (so an
 * item may be put twice, never lost), and a take whose delete's reply was lost returns the item
 * (a take racing another consumer for that entry may then return it twice). At a renewal the
 * same holds, on the new session.
 */
export class DistributedQueue extends Listenable<QueueEvents> {
  private readonly layout: QueueLayout;
  private readonly closed = new AbortController();
  private closing: Promise<void> | undefined;
  private ensured = false;

  /**
   * @param client The client to work through (a `RecipeClient`).
   * @param path The queue's path (its entries are its children).
   */
  constructor(
    readonly client: RecipeClient,
    readonly path: string,
    options: DistributedQueueOptions,
  ) {
    super(['error']);
    const problem = pathProblem(path);
    if (problem !== null) {
      throw new InvalidArgumentError(`DistributedQueue: invalid path "${path}": ${problem}`, {
        path,
      });
    }
    const layout = options?.layout;
    if (!QUEUE_LAYOUTS.includes(layout)) {
      throw new InvalidArgumentError(
        `DistributedQueue: layout must be one of ${QUEUE_LAYOUTS.join(', ')}, got ${String(layout)}`,
        { path },
      );
    }
    this.layout = layout;
  }

  /** Puts one item at the end of the queue (of its priority, in the kazoo layout). */
  put(data: Data, options: PutOptions = {}): Promise<void> {
    return this.putAll([data], options);
  }

  /** Puts several items in one transaction: all of them or none. */
  async putAll(items: readonly Data[], options: PutOptions = {}): Promise<void> {
    this.checkOpen();
    const { signal } = options;
    const priority = checkPriority(options.priority, this.path);
    if (options.priority !== undefined && this.layout !== 'kazoo') {
      throw new InvalidArgumentError('priority is part of the kazoo layout only', {
        path: this.path,
      });
    }
    if (!Array.isArray(items)) {
      throw new InvalidArgumentError('putAll takes an array of items', { path: this.path });
    }
    const prefix = entryPath(this.path, entryPrefix(this.layout, priority));
    const ops = items.map((item) => {
      const bytes = toBytes(item, this.path, 'put');
      const data = this.layout === 'curator' ? encodeCuratorItems([bytes]) : bytes;
      return Op.create(prefix, data, { mode: CreateMode.PERSISTENT_SEQUENTIAL });
    });
    if (ops.length === 0) return;
    await this.ensure(signal);
    await retry(() => this.client.multi(ops, { signal }), {
      signal,
      recover: async (error) => {
        if (!hasCode(error, 'NONODE') || signal?.aborted) return false;
        this.ensured = false;
        await this.ensure(signal);
        return true;
      },
    });
  }

  /**
   * Takes the first item (removes its entry) and resolves with its bytes; waits for one while the
   * queue is empty. `timeout` rejects with a `TimeoutError`, `signal` with its reason, `close()`
   * with a `ClosedError`.
   */
  async take(options: WaitOptions = {}): Promise<Uint8Array> {
    this.checkOpen();
    const bound = startWait(options, this.path);
    const stop = linkedSignal(bound.signal, this.closed.signal);
    try {
      await this.ensure(stop.signal);
      return await lookUntilFound(this.client, [this.path], stop.signal, ([children]) =>
        this.takeFirst(children!, stop.signal),
      );
    } finally {
      stop.dispose();
      bound.dispose();
    }
  }

  /** Takes the first item if there is one (null when the queue is empty); never waits. */
  async tryTake(): Promise<Uint8Array | null> {
    this.checkOpen();
    await this.ensure(undefined);
    const children = await retry(() => this.client.getChildren(this.path));
    return this.takeFirst(children, undefined);
  }

  /** How many entries the queue has now (a Curator node of several items counts once). */
  async size(): Promise<number> {
    this.checkOpen();
    try {
      const children = await retry(() => this.client.getChildren(this.path));
      return entriesInOrder(this.layout, children).length;
    } catch (error) {
      if (hasCode(error, 'NONODE')) return 0;
      throw error;
    }
  }

  /** Ends the takes still waiting (they reject with `ClosedError`). Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed.abort(new ClosedError(`the queue ${this.path}`, { path: this.path }));
      this.listeners.end();
    })();
    return this.closing;
  }

  private checkOpen(): void {
    if (this.closing) throw new ClosedError(`the queue ${this.path}`, { path: this.path });
  }

  private async ensure(signal: AbortSignal | undefined): Promise<void> {
    if (this.ensured) return;
    await ensurePath(this.client, this.path, { containers: false, signal });
    this.ensured = true;
  }

  /** Takes the first entry of `children` that is still there; null when none is. */
  private async takeFirst(
    children: readonly string[],
    signal: AbortSignal | undefined,
  ): Promise<Uint8Array | null> {
    for (const name of entriesInOrder(this.layout, children)) {
      if (signal?.aborted) return null;
      const item = await this.takeEntry(entryPath(this.path, name), signal);
      if (item) return item;
    }
    return null;
  }

  /**
   * Reads the entry and removes it (or, for a Curator node of several items, writes the rest
   * back), each at the version read: another consumer that took it first makes this one move on.
   * A remove whose reply was lost counts as this consumer's: the item is returned. The read stops
   * at `signal`; the remove, once sent, is seen through (an item removed must be returned).
   */
  private async takeEntry(
    path: string,
    signal: AbortSignal | undefined,
  ): Promise<Uint8Array | null> {
    let found: { data: Uint8Array; stat: { version: number } };
    try {
      found = await retry(() => this.client.getData(path, { signal }), { signal });
    } catch (error) {
      if (hasCode(error, 'NONODE')) return null;
      throw error;
    }
    let item = found.data;
    let rest: Uint8Array[] = [];
    if (this.layout === 'curator') {
      const items = decodeCuratorItems(found.data);
      if (items === undefined || items.length === 0) {
        // Curator's consumer drops a node it cannot read the same way.
        await this.removeAt(path, found.stat.version);
        if (items === undefined) {
          this.listeners.report(
            new Error(`dropped a queue node not in Curator's framing: ${path}`),
          );
        }
        return null;
      }
      [item, ...rest] = items as [Uint8Array, ...Uint8Array[]];
    }
    const removed =
      rest.length === 0
        ? await this.removeAt(path, found.stat.version)
        : await this.rewriteAt(path, encodeCuratorItems(rest), found.stat.version);
    return removed ? item : null;
  }

  private removeAt(path: string, version: number): Promise<boolean> {
    return lostMeansDone(() => this.client.delete(path, version), ['NONODE', 'BADVERSION']);
  }

  private rewriteAt(path: string, data: Uint8Array, version: number): Promise<boolean> {
    return lostMeansDone(() => this.client.setData(path, data, version), ['NONODE', 'BADVERSION']);
  }
}

/**
 * Sends `write` until it is answered. Resolves true when it applied, false when it failed with
 * one of `takenBy` (another consumer was first), except after a reply was lost: then the lost
 * request may be what changed the node, and it counts as applied (never lose an item).
 */
async function lostMeansDone(
  write: () => Promise<unknown>,
  takenBy: readonly string[],
): Promise<boolean> {
  let lost = false;
  try {
    await retry(write, {
      recover: (error) => {
        if (mayHaveApplied(error)) lost = true;
        return false;
      },
    });
    return true;
  } catch (error) {
    if (hasCode(error, ...takenBy)) return lost;
    throw error;
  }
}
