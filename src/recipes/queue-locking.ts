// kazoo's LockingQueue, in its layout: entries `<path>/entries/entry-<priority>-<seq>` (raw
// bytes), and while one is taken, an ephemeral lock node of the same name under `<path>/taken`
// holding the consumer's id. A take locks an entry and reads it; the entry is deleted only when
// consumed, so an entry whose consumer died goes back to the queue with the consumer's session.
//
// A put whose reply was lost is found out, not guessed: each put's transaction also creates an
// ephemeral marker `<path>/puts/<uuid>` (a directory kazoo never reads), so after a lost reply
// the marker's presence says whether the entries were created. The markers of puts that
// succeeded are deleted by the next put's transaction (and at close): one transaction per put.
import { toBytes } from '../client/bytes.js';
import type { ErrorEvents } from '../client/listeners.js';
import { Op } from '../client/multi.js';
import type { RecipeClient } from '../client/recipe-client.js';
import { CreateMode, type Data } from '../client/types.js';
import { stopping } from '../coordination/bound-signal.js';
import { hasCode } from '../coordination/codes.js';
import { untilConnected } from '../coordination/connection-wait.js';
import { childPath } from '../coordination/naming.js';
import { retry } from '../coordination/retry.js';
import { InvalidArgumentError, ZooKeeperError } from '../protocol/errors.js';
import type { StopSignal } from '../session/signal-waiters.js';
import { mayHaveApplied } from './paths.js';
import { type PutOptions, QueueBase } from './queue-base.js';
import { checkPriority, entryPrefix } from './queue-entries.js';
import { firstFailure, TakenEntry } from './queue-taken.js';

/** kazoo's names of a LockingQueue's directories, and ours for the put markers. */
export const LOCKING_QUEUE_NODES = {
  /** The entries, `entry-<priority>-<seq>` (kazoo's). */
  entries: 'entries',
  /** The lock nodes of taken entries, each named as its entry (kazoo's). */
  taken: 'taken',
  /** This library's ephemeral put markers (kazoo never reads them). */
  puts: 'puts',
} as const;

/** Options of a {@link LockingQueue}. */
export interface LockingQueueOptions {
  /**
   * This consumer's id, written into the lock node of each entry it takes (kazoo writes a
   * random hex UUID per queue object: the default here too).
   */
  id?: string;
}

/** The events of a {@link LockingQueue}. */
export interface LockingQueueEvents extends ErrorEvents {}

/**
 * A queue whose entries are taken under a lock and deleted only when consumed (kazoo's
 * `LockingQueue`, in its layout: kazoo processes and ours share a queue). An entry taken by a
 * consumer that dies (its session ends) goes back to the queue: each item is processed at least
 * once. Puts carry kazoo's priority (0 to 999, lower first; default 100).
 *
 * At a reconnect the requests are retried: a put whose reply was lost is looked up (never put
 * twice), a take's lock whose reply was lost is recognised by its session, and a consume whose
 * reply was lost is settled by looking. At a renewal the entries taken on the old session are
 * lost (their `signal` aborts with a `LockLostError`; another consumer may take them), and
 * waiting takes go on on the new session. Nothing runs in the background; {@link close} gives
 * back every entry taken and not consumed, and ends the takes still waiting.
 */
export class LockingQueue extends QueueBase<TakenEntry, LockingQueueEvents> {
  /** This consumer's id (the data of its lock nodes). */
  readonly id: string;
  private readonly idBytes: Uint8Array;
  private readonly entriesPath: string;
  private readonly takenPath: string;
  private readonly putsPath: string;
  private readonly held = new Set<TakenEntry>();
  protected readonly layout = 'kazoo';
  protected readonly listed: readonly string[];
  protected readonly needed: readonly string[];
  /** Markers of puts that succeeded, to delete; made by session `markersSession`. */
  private markers: string[] = [];
  private markersSession = -1n;

  /**
   * @param client The client to work through (a `RecipeClient`).
   * @param path The queue's path (kazoo's queue path).
   */
  constructor(client: RecipeClient, path: string, options: LockingQueueOptions = {}) {
    super(client, path, 'LockingQueue');
    const id = options?.id ?? crypto.randomUUID().replaceAll('-', '');
    if (typeof id !== 'string' || id === '') {
      throw new InvalidArgumentError('LockingQueue: id must be a non-empty string', { path });
    }
    this.id = id;
    this.idBytes = new TextEncoder().encode(id);
    this.entriesPath = childPath(path, LOCKING_QUEUE_NODES.entries);
    this.takenPath = childPath(path, LOCKING_QUEUE_NODES.taken);
    this.putsPath = childPath(path, LOCKING_QUEUE_NODES.puts);
    this.listed = [this.entriesPath, this.takenPath];
    this.needed = [this.entriesPath, this.takenPath, this.putsPath];
  }

  /** Puts several items in one transaction: all of them or none (kazoo's `put_all`). */
  async putAll(items: readonly Data[], options: PutOptions = {}): Promise<void> {
    this.checkOpen();
    const { signal } = options;
    const priority = checkPriority(options.priority, this.path);
    if (!Array.isArray(items)) {
      throw new InvalidArgumentError('putAll takes an array of items', { path: this.path });
    }
    const prefix = childPath(this.entriesPath, entryPrefix('kazoo', priority));
    const creates = items.map((item) =>
      Op.create(prefix, toBytes(item, this.path, 'put'), {
        mode: CreateMode.PERSISTENT_SEQUENTIAL,
      }),
    );
    if (creates.length === 0) return;
    await this.ensure(signal);
    for (;;) {
      if (this.markersSession !== this.client.sessionId) {
        // The markers of an ended session went with it.
        this.markers = [];
        this.markersSession = this.client.sessionId;
      }
      const session = this.client.sessionId;
      const marker = childPath(this.putsPath, crypto.randomUUID());
      const cleanup = this.markers.splice(0);
      const ops = [
        ...creates,
        Op.create(marker, undefined, { mode: CreateMode.EPHEMERAL }),
        ...cleanup.map((done) => Op.delete(done)),
      ];
      try {
        await this.client.multi(ops, { signal });
        this.markers.push(marker);
        return;
      } catch (error) {
        if (signal?.aborted) {
          // Deleted or not: a marker already gone fails the next put's delete, which drops it.
          this.markers.push(...cleanup);
          throw signal.reason;
        }
        if (mayHaveApplied(error)) {
          await untilConnected(this.client, signal);
          if (!this.client.state.startsWith('connected') || this.client.closing) throw error;
          if (this.client.sessionId !== session) continue; // unknown: sent again (at least once)
          await retry(() => this.client.sync(marker), { signal });
          if ((await retry(() => this.client.exists(marker), { signal })) !== null) {
            this.markers.push(marker);
            return;
          }
          this.markers.push(...cleanup);
          continue;
        }
        const failed = firstFailure(error);
        if (failed?.code === 'NONODE' && failed.index > creates.length) continue; // markers gone
        this.markers.push(...cleanup);
        if (failed?.code === 'NONODE') {
          this.forgetEnsured();
          await this.ensure(signal);
          continue;
        }
        throw error;
      }
    }
  }

  /** The entries this queue object holds now (taken, not yet consumed or released). */
  taken(): readonly TakenEntry[] {
    return [...this.held];
  }

  /** At close: gives back every entry taken and not consumed, deletes this queue's put markers. */
  protected override async giveBack(): Promise<void> {
    const releases = [...this.held].map((entry) =>
      entry.release().catch((error: unknown) => this.listeners.report(error)),
    );
    await Promise.all(releases);
    const markers = this.markers.splice(0);
    if (markers.length > 0 && this.markersSession === this.client.sessionId) {
      await this.client
        .multi(markers.map((marker) => Op.delete(marker)))
        .catch((error: unknown) => this.listeners.report(error));
    }
  }

  /** A taken entry handed to the caller, or given back at once when the queue closed meanwhile. */
  protected override async handOut(entry: TakenEntry): Promise<TakenEntry> {
    if (this.closing) {
      await entry.release();
      throw this.closedError();
    }
    this.held.add(entry);
    return entry;
  }

  /** The entries in order, but for those another consumer holds (their lock node is in `taken`). */
  protected override candidates([entries, taken]: readonly string[][]): string[] {
    const held = new Set(taken);
    return super.candidates([entries!]).filter((name) => !held.has(name));
  }

  /**
   * Creates the entry's lock node and reads the entry. Null when another consumer holds it or it
   * was consumed meanwhile. The create is never cut off by `signal` (the node would be held with
   * nobody to give it back); a create whose reply was lost is this session's if the node's
   * owner says so.
   */
  protected async takeEntry(
    name: string,
    signal: StopSignal | undefined,
  ): Promise<TakenEntry | null> {
    const lockPath = childPath(this.takenPath, name);
    const path = childPath(this.entriesPath, name);
    const session = this.client.sessionId;
    let lost = false;
    try {
      await retry(
        () => this.client.create2(lockPath, this.idBytes, { mode: CreateMode.EPHEMERAL }),
        {
          signal,
          recover: (error) => {
            if (mayHaveApplied(error)) lost = true;
            return false;
          },
        },
      );
    } catch (error) {
      if (lost && !hasCode(error, 'NODEEXISTS')) this.giveBackIfOurs(lockPath, session);
      if (!hasCode(error, 'NODEEXISTS')) throw error;
      if (!lost || !(await this.ownedBy(lockPath, session))) return null;
    }
    try {
      const { data } = await retry(() => this.client.getData(path, stopping({}, signal)), {
        signal,
      });
      return new TakenEntry(
        this.client,
        { name, path, lockPath, data, sessionId: session, owner: this.idBytes },
        (entry) => this.held.delete(entry),
      );
    } catch (error) {
      this.giveBackIfOurs(lockPath, session);
      // Consumed between the listing and the lock: look at the next entry.
      if (hasCode(error, 'NONODE')) return null;
      throw error;
    }
  }

  /** Whether the lock node at `lockPath` was created by `session`, which is still this client's. */
  private async ownedBy(lockPath: string, session: bigint): Promise<boolean> {
    if (this.client.sessionId !== session) return false;
    const stat = await retry(() => this.client.exists(lockPath));
    return stat !== null && stat.ephemeralOwner === session;
  }

  /** Deletes a lock node of this session in the background (the entry is not handed out). */
  private giveBackIfOurs(lockPath: string, session: bigint): void {
    void (async () => {
      if (!(await this.ownedBy(lockPath, session))) return;
      await retry(() => this.client.delete(lockPath));
    })().catch((error: unknown) => {
      if (hasCode(error, 'NONODE') || (error instanceof ZooKeeperError && error.sessionOver))
        return;
      this.listeners.report(error);
    });
  }
}
