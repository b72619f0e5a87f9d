// One entry a LockingQueue took: held under an ephemeral lock node (`<path>/taken/<name>`, as
// kazoo's LockingQueue names it) until it is consumed (the entry and its lock deleted in one
// transaction) or given back (the lock deleted). A consumer whose session ends gives it back
// by itself: the server deletes the lock, and another consumer takes the entry.

import type { Unsubscribe } from '../client/listeners.js';
import { Op, type OpResult } from '../client/multi.js';
import type { RecipeClient } from '../client/recipe-client.js';
import { hasCode } from '../coordination/codes.js';
import { untilConnected } from '../coordination/connection-wait.js';
import { retry } from '../coordination/retry.js';
import { LeaseReleasedError, type LockLossReason, LockLostError } from '../locks/index.js';
import { ZooKeeperError } from '../protocol/errors.js';
import { mayHaveApplied } from './paths.js';
import { priorityOf } from './queue-entries.js';

/** Where a taken entry is, and whose it is. */
export interface TakenEntryPlace {
  /** The entry's node name (`entry-<priority>-<seq>`). */
  readonly name: string;
  /** The entry's node. */
  readonly path: string;
  /** Its lock node, under `<queue>/taken`. */
  readonly lockPath: string;
  /** The entry's bytes. */
  readonly data: Uint8Array;
  /** The session that created the lock node. */
  readonly sessionId: bigint;
  /** The queue's id, the lock node's data. */
  readonly owner: Uint8Array;
}

type Held = 'held' | 'consumed' | 'released' | 'lost';

/**
 * An entry taken from a `LockingQueue`: {@link consume} it once its work is done, or
 * {@link release} it to hand it to another consumer. `await using` releases an entry that was not
 * consumed (work that threw gives its entry back). {@link signal} aborts when the entry may have
 * been given back without this consumer's say (its session ended, its lock node was deleted):
 * another consumer may then take it, so the work is done at least once, possibly twice.
 */
export class TakenEntry implements AsyncDisposable {
  /** The entry's node name (`entry-<priority>-<seq>`). */
  readonly name: string;
  /** The entry's node. */
  readonly path: string;
  /** The lock node held while the entry is taken. */
  readonly lockPath: string;
  /** The item's bytes. */
  readonly data: Uint8Array;
  /** The priority in the entry's name (kazoo's; lower is taken first). */
  readonly priority: number | undefined;
  private readonly sessionId: bigint;
  private readonly owner: Uint8Array;
  private readonly controller = new AbortController();
  private state: Held = 'held';
  private settling: Promise<void> | undefined;
  private readonly unsubscribe: Unsubscribe;

  /** @internal Made by `LockingQueue.take()`; `settled` is told when the entry is let go. */
  constructor(
    private readonly client: RecipeClient,
    place: TakenEntryPlace,
    private readonly settled: (entry: TakenEntry) => void,
  ) {
    this.name = place.name;
    this.path = place.path;
    this.lockPath = place.lockPath;
    this.data = place.data;
    this.priority = priorityOf(place.name);
    this.sessionId = place.sessionId;
    this.owner = place.owner;
    this.unsubscribe = client.on('state', (state) => {
      if (state === 'expired' || state === 'closed' || state === 'auth-failed') this.lose(state);
    });
  }

  /** The item as UTF-8 text. */
  text(): string {
    return new TextDecoder().decode(this.data);
  }

  /**
   * Aborts when the entry is no longer this consumer's: consumed or released (a
   * `LeaseReleasedError`), or lost (a `LockLostError`: the session ended, the lock was deleted).
   */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /**
   * Removes the entry from the queue, with its lock, in one transaction. Rejects with a
   * `LockLostError` when the entry was no longer held (it stays in the queue for another
   * consumer), and with a `LeaseReleasedError` after {@link release}. A transaction whose reply
   * was lost is settled by looking: the entry gone means consumed. Idempotent.
   */
  consume(): Promise<void> {
    if (this.state === 'released') return Promise.reject(this.controller.signal.reason);
    if (this.state === 'lost') return Promise.reject(this.controller.signal.reason);
    this.settling ??= this.consumeNow();
    return this.settling;
  }

  /** Gives the entry back (deletes its lock) without consuming it. Idempotent; never rejects for a lost entry. */
  release(): Promise<void> {
    if (this.state === 'held') this.settling ??= this.releaseNow();
    return (this.settling ?? Promise.resolve()).catch((error: unknown) => {
      if (!(error instanceof LockLostError)) throw error;
    });
  }

  /** What `await using` calls: {@link release} (nothing, once consumed). */
  [Symbol.asyncDispose](): Promise<void> {
    return this.release().catch(() => {});
  }

  /**
   * Whether this consumer still holds the entry, asked of the server (kazoo's `holds_lock`): the
   * lock node exists, was made by this session and names this queue.
   */
  async holds(): Promise<boolean> {
    if (this.state !== 'held' || this.client.sessionId !== this.sessionId) return false;
    try {
      await retry(() => this.client.sync(this.lockPath));
      const { data, stat } = await retry(() => this.client.getData(this.lockPath));
      return stat.ephemeralOwner === this.sessionId && sameBytes(data, this.owner);
    } catch (error) {
      if (!hasCode(error, 'NONODE')) throw error;
      this.lose('deleted');
      return false;
    }
  }

  private async consumeNow(): Promise<void> {
    const ops = [Op.delete(this.path), Op.delete(this.lockPath)];
    for (;;) {
      if (this.state === 'lost') throw this.controller.signal.reason;
      if (this.client.sessionId !== this.sessionId) this.failLost('expired');
      try {
        await this.client.multi(ops);
        return this.let('consumed');
      } catch (error) {
        if (mayHaveApplied(error)) {
          if (await this.settledByLooking()) return this.let('consumed');
          continue;
        }
        const failed = firstFailure(error);
        if (failed?.index === 1 && failed.code === 'NONODE') this.failLost('deleted');
        if (failed?.index === 0 && failed.code === 'NONODE') {
          // Removed by someone else while held (by hand, or a lock-less consumer): done either way.
          await this.deleteLock();
          return this.let('consumed');
        }
        throw error;
      }
    }
  }

  /**
   * After a consume whose reply was lost: true when the entry is gone (this transaction, or one
   * after the lock went with an ended session: consumed either way), false when it must be sent
   * again; throws a LockLostError when the lock is no longer this consumer's.
   */
  private async settledByLooking(): Promise<boolean> {
    await untilConnected(this.client, undefined);
    if (this.client.closing) this.failLost('closed');
    await retry(() => this.client.sync(this.path));
    if ((await retry(() => this.client.exists(this.path))) === null) return true;
    if (this.client.sessionId !== this.sessionId) this.failLost('expired');
    if ((await retry(() => this.client.exists(this.lockPath))) === null) this.failLost('deleted');
    return false;
  }

  private async releaseNow(): Promise<void> {
    this.let('released');
    await this.deleteLock();
  }

  /** Deletes the lock node if this session still holds it (one of an ended session is gone). */
  private async deleteLock(): Promise<void> {
    if (this.client.sessionId !== this.sessionId || this.client.closing) return;
    try {
      await retry(() => this.client.delete(this.lockPath));
    } catch (error) {
      if (!hasCode(error, 'NONODE') && !(error instanceof ZooKeeperError && error.sessionOver)) {
        throw error;
      }
    }
  }

  private let(state: 'consumed' | 'released'): void {
    if (this.state !== 'held') return;
    this.state = state;
    this.unsubscribe();
    this.controller.abort(new LeaseReleasedError(this.lockPath, `queue entry ${this.path}`));
    this.settled(this);
  }

  private lose(reason: LockLossReason): void {
    if (this.state !== 'held') return;
    this.state = 'lost';
    this.unsubscribe();
    this.controller.abort(new LockLostError(reason, this.lockPath));
    this.settled(this);
  }

  private failLost(reason: LockLossReason): never {
    this.lose(reason);
    throw this.controller.signal.reason;
  }
}

/** The first op of a failed multi that failed for its own reason, with its index. */
export function firstFailure(error: unknown): { index: number; code: string } | undefined {
  if (!(error instanceof ZooKeeperError)) return undefined;
  const results = error.results as readonly OpResult[] | undefined;
  const index = results?.findIndex(
    (result) =>
      result.type === 'error' && result.code !== 'RUNTIMEINCONSISTENCY' && result.code !== 'OK',
  );
  if (index === undefined || index < 0) return undefined;
  const result = results![index] as { code: string };
  return { index, code: result.code };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
