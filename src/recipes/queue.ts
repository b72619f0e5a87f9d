// A queue whose take removes the entry (kazoo's Queue, Curator's SimpleDistributedQueue and
// DistributedQueue without a lock path, in their layouts): a consumer that dies after a take has
// lost the item. For an item that must outlive its consumer, use the LockingQueue.

import { toBytes } from '../client/bytes.js';
import type { ErrorEvents } from '../client/listeners.js';
import { Op } from '../client/multi.js';
import type { RecipeClient } from '../client/recipe-client.js';
import type { Data } from '../client/types.js';
import { CreateMode } from '../client/types.js';
import { stopping } from '../coordination/bound-signal.js';
import { hasCode } from '../coordination/codes.js';
import { retry } from '../coordination/retry.js';
import { InvalidArgumentError } from '../protocol/errors.js';
import type { StopSignal } from '../session/signal-waiters.js';
import { mayHaveApplied } from './paths.js';
import { type PutOptions, QueueBase } from './queue-base.js';
import {
  checkPriority,
  decodeCuratorItems,
  encodeCuratorItems,
  entryPath,
  entryPrefix,
  QUEUE_LAYOUTS,
  type QueueLayout,
} from './queue-entries.js';

export type { PutOptions } from './queue-base.js';

/** Options of a {@link DistributedQueue}. */
export interface DistributedQueueOptions {
  /** Whose node layout the queue uses (see {@link QueueLayout}). Required. */
  layout: QueueLayout;
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
export class DistributedQueue extends QueueBase<Uint8Array, QueueEvents> {
  protected readonly layout: QueueLayout;
  protected readonly listed: readonly string[];
  protected readonly needed: readonly string[];

  /**
   * @param client The client to work through (a `RecipeClient`).
   * @param path The queue's path (its entries are its children).
   */
  constructor(client: RecipeClient, path: string, options: DistributedQueueOptions) {
    super(client, path, 'DistributedQueue');
    const layout = options?.layout;
    if (!QUEUE_LAYOUTS.includes(layout)) {
      throw new InvalidArgumentError(
        `DistributedQueue: layout must be one of ${QUEUE_LAYOUTS.join(', ')}, got ${String(layout)}`,
        { path },
      );
    }
    this.layout = layout;
    this.listed = [path];
    this.needed = [path];
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
        this.forgetEnsured();
        await this.ensure(signal);
        return true;
      },
    });
  }

  /**
   * Reads the entry and removes it (or, for a Curator node of several items, writes the rest
   * back), each at the version read: another consumer that took it first makes this one move on.
   * A remove whose reply was lost counts as this consumer's: the item is returned. The read stops
   * at `signal`; the remove, once sent, is seen through (an item removed must be returned).
   */
  protected async takeEntry(
    name: string,
    signal: StopSignal | undefined,
  ): Promise<Uint8Array | null> {
    const path = entryPath(this.path, name);
    let found: { data: Uint8Array; stat: { version: number } };
    try {
      found = await retry(() => this.client.getData(path, stopping({}, signal)), { signal });
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
