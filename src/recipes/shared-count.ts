// Curator's SharedCount: a 32-bit integer in one node's data (4 bytes, big-endian, as Curator
// writes it), kept current in memory by a data watch, with change events and a versioned set.
import type { Client } from '../client/client.js';
import type { WatchedEvent } from '../client/types.js';
import { hasCode } from '../coordination/codes.js';
import { renewedAfter } from '../coordination/renewal.js';
import { makeError } from '../protocol/errors.js';
import { createWithParents } from './paths.js';
import { retry } from './retry.js';

/** The part of the client {@link SharedCount} uses (a `Client` is one). */
export type SharedCountClient = Pick<
  Client,
  'create2' | 'delete' | 'getChildren' | 'getData' | 'exists' | 'setData' | 'state' | 'closing'
>;

/** A count and the node version it was read at: the version {@link SharedCount.trySetCount} checks. */
export interface VersionedCount {
  /** The count. */
  readonly count: number;
  /** The node's data version when the count was read. */
  readonly version: number;
}

/** Encodes `count` as Curator's SharedCount does: 4 bytes, big-endian, two's complement. */
export function encodeCount(count: number): Uint8Array {
  checkCount(count);
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setInt32(0, count, false);
  return bytes;
}

/** Decodes a SharedCount node's data; rejects anything but 4 bytes with BADARGUMENTS. */
export function decodeCount(data: Uint8Array, path?: string): number {
  if (data.length !== 4) {
    throw makeError(
      'BADARGUMENTS',
      `a shared count is 4 bytes, the node holds ${data.length}`,
      path === undefined ? {} : { path },
    );
  }
  return new DataView(data.buffer, data.byteOffset, 4).getInt32(0, false);
}

function checkCount(count: number): void {
  if (!Number.isInteger(count) || count < -(2 ** 31) || count > 2 ** 31 - 1) {
    throw makeError('BADARGUMENTS', `a shared count is a 32-bit integer, got ${String(count)}`);
  }
}

/**
 * A shared integer (Curator's `SharedCount`, same node layout): `start()` creates the node with
 * the seed if it is missing (its parents as containers) and reads it; from then on
 * {@link getCount} answers from memory and listeners hear every value this client sees. Changes
 * made in quick succession by others may reach it as one (ZooKeeper's watches report the latest
 * state, not every step). Use {@link trySetCount} with the version read for a compare-and-set.
 *
 * At a reconnect the client re-arms the watch itself, and a change made meanwhile fires it. At a
 * session renewal the old session's watch ends; the count re-reads the node and watches again,
 * so listeners hear any value that changed meanwhile; a re-read that the renewal rejected is sent
 * again on the new session. If the node is deleted, the count keeps its last value and watches
 * for the node to come back; a node deleted and created again (in one `multi` too) is followed,
 * although its version starts over at 0. A version names a state only within one life of the
 * node: a compare-and-set at a version read before the node was replaced succeeds if the new node
 * has reached that same version (ZooKeeper has no check on a node's life). No sequential nodes
 * are created.
 */
export class SharedCount {
  private current: VersionedCount | undefined;
  private readonly listeners = new Set<(value: VersionedCount) => void>();
  private closed = false;
  private reading: Promise<void> | undefined;
  private rereadWanted = false;
  /**
   * The newest node state known: its life (czxid) and its version within that life. A version is
   * only comparable within one life: a node deleted and created again starts over at version 0,
   * and its czxid is higher than the one it replaced (zxids only grow). An answer carrying an
   * older state (a read overtaken by our own set) changes nothing.
   */
  private floor: { czxid: bigint; version: number } | undefined;

  /**
   * @param client The client to use.
   * @param path The node holding the count.
   * @param seed The count the node is created with when it does not exist.
   */
  constructor(
    private readonly client: SharedCountClient,
    readonly path: string,
    private readonly seed: number,
  ) {
    checkCount(seed);
  }

  /** Creates the node with the seed if missing, reads the count and starts watching it. */
  async start(): Promise<void> {
    if (this.closed)
      throw makeError('BADARGUMENTS', 'this SharedCount is closed', { path: this.path });
    try {
      await retry(() =>
        createWithParents(this.client, this.path, encodeCount(this.seed)).then(() => undefined),
      );
    } catch (error) {
      // NODEEXISTS: someone else made it first (or our create's lost reply did).
      if (!hasCode(error, 'NODEEXISTS')) throw error;
    }
    await this.read();
  }

  /** The count as last read (the seed before {@link start}). */
  getCount(): number {
    return this.current?.count ?? this.seed;
  }

  /** The count and its version as last read. Throws BADARGUMENTS before {@link start}. */
  getVersionedCount(): VersionedCount {
    if (!this.current)
      throw makeError('BADARGUMENTS', 'start() the SharedCount first', { path: this.path });
    return this.current;
  }

  /** Sets the count whatever it is now. */
  async setCount(count: number): Promise<void> {
    const stat = await this.client.setData(this.path, encodeCount(count), -1);
    this.update({ count, version: stat.version }, stat.czxid);
  }

  /**
   * Sets the count only if the node is still at `version` (from {@link getVersionedCount}):
   * resolves true when it was set, false when someone changed it first (BADVERSION). Curator's
   * `trySetCount`. After a lost connection the outcome is unknown and the call rejects with
   * CONNECTIONLOSS: read again before deciding.
   */
  async trySetCount(count: number, version: number): Promise<boolean> {
    try {
      const stat = await this.client.setData(this.path, encodeCount(count), version);
      this.update({ count, version: stat.version }, stat.czxid);
      return true;
    } catch (error) {
      if (hasCode(error, 'BADVERSION')) return false;
      throw error;
    }
  }

  /**
   * Calls `listener` with every new count this client sees (not the current one). Returns the
   * unsubscribe function. A throwing listener is reported out of band.
   */
  onChange(listener: (value: VersionedCount) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops watching and forgets the listeners. The node stays. */
  close(): void {
    this.closed = true;
    this.listeners.clear();
  }

  /** Reads the node with a watch; one read at a time, one more if a watch fired meanwhile. */
  private read(): Promise<void> {
    if (this.reading) {
      this.rereadWanted = true;
      return this.reading;
    }
    const run = async () => {
      for (;;) {
        this.rereadWanted = false;
        try {
          await this.readOnce();
        } catch (error) {
          if (this.closed) throw error;
          // A read that failed with the old session (SESSIONEXPIRED) while the client renews it:
          // read again on the new session. No watch may be left to ask for it (the one that
          // fired is used up, and a failed read arms none), so this read is the count's only
          // way back to following the node.
          if (!this.rereadWanted && !renewedAfter(this.client, error)) throw error;
          continue;
        }
        if (!this.rereadWanted || this.closed) return;
      }
    };
    this.reading = run().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async readOnce(): Promise<void> {
    if (this.closed) return;
    const watch = (event: WatchedEvent) => this.onWatch(event);
    try {
      const { data, stat } = await retry(() => this.client.getData(this.path, { watch }), {
        maxAttempts: Number.POSITIVE_INFINITY,
      });
      this.update({ count: decodeCount(data, this.path), version: stat.version }, stat.czxid);
    } catch (error) {
      // A deleted node: wait for it to come back (an exists watch fires on its creation).
      if (hasCode(error, 'NONODE')) {
        // Without this watch nothing would ever read the node again: try it through lost links,
        // and after a renewal read again on the new session.
        let stat: Awaited<ReturnType<SharedCountClient['exists']>>;
        try {
          stat = await retry(() => this.client.exists(this.path, { watch }), {
            maxAttempts: Number.POSITIVE_INFINITY,
          });
        } catch (existsError) {
          if (renewedAfter(this.client, existsError)) this.rereadWanted = true;
          else throw existsError;
          return;
        }
        // Back already: read it (its exists watch stays armed, and re-reads once more at most).
        if (stat) this.rereadWanted = true;
        return;
      }
      throw error;
    }
  }

  /** Any event re-reads: a change, a deletion, a creation, or the end of the old session's watch. */
  private onWatch(_event: WatchedEvent): void {
    if (this.closed) return;
    this.read().catch(() => {
      // The client is closed, or its session is over without renewal: nothing left to read.
    });
  }

  /** Takes `next`, read from the node whose life began at `czxid`, unless it is older than known. */
  private update(next: VersionedCount, czxid: bigint): void {
    const previous = this.current;
    const floor = this.floor;
    if (floor && (czxid < floor.czxid || (czxid === floor.czxid && next.version < floor.version)))
      return;
    this.floor = { czxid, version: next.version };
    this.current = next;
    // The same count at the same version (a state seen twice, or a new node equal to the old
    // one as far as a compare-and-set can tell) is no news.
    if (previous === undefined) return;
    if (next.version === previous.version && next.count === previous.count) return;
    for (const listener of [...this.listeners]) {
      try {
        listener(next);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }
}
