/// <reference path="../disposable.ts" preserve="true" />
// Curator's SharedCount: a 32-bit integer in one node's data (4 bytes, big-endian, as Curator
// writes it): a SharedValue whose bytes are read as a count.
import { Listenable } from '../client/listenable.js';
import type { ErrorEvents } from '../client/listeners.js';
import type { RecipeClient } from '../client/recipe-client.js';
import type { BoundOptions } from '../coordination/bounded.js';
import { ClosedError, makeError } from '../protocol/errors.js';
import { SharedValue, type VersionedValue } from './shared-value.js';

/** A count and the node version it was read at: the version {@link SharedCount.trySet} checks. */
export interface VersionedCount {
  /** The count. */
  readonly count: number;
  /** The node's data version when the count was read. */
  readonly version: number;
}

/** Options of a {@link SharedCount}. */
export interface SharedCountOptions {
  /** The count the node is created with when it does not exist (a 32-bit integer). Default 0. */
  seed?: number;
}

/** The events of a {@link SharedCount} (see `on()`). */
export interface SharedCountEvents extends ErrorEvents {
  /** A new count this client saw (never the one `start()` read first). */
  change: (value: VersionedCount) => void;
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

function checkCount(count: number, path?: string): void {
  if (!Number.isInteger(count) || count < -(2 ** 31) || count > 2 ** 31 - 1) {
    throw makeError(
      'BADARGUMENTS',
      `a shared count is a 32-bit integer, got ${String(count)}`,
      path === undefined ? {} : { path },
    );
  }
}

/**
 * A shared integer (Curator's `SharedCount`, same node layout), a {@link SharedValue} read as a
 * count: `start()` creates the node with `seed` if it is missing (its parents as containers) and
 * reads it; from then on {@link count} and {@link versioned} answer from memory and `change`
 * listeners hear every count this client sees. Use {@link trySet} with the version read for a
 * compare-and-set. It follows the node through reconnects, renewals, deletes and re-creates as a
 * SharedValue does, and a version names a state only within one life of the node (see there).
 * A value in the node that is not 4 bytes is not a count: `start()` rejects with BADARGUMENTS,
 * later ones go to the `error` listeners and the count keeps its last value.
 */
export class SharedCount extends Listenable<SharedCountEvents> {
  /** The node holding the count. */
  readonly path: string;
  private readonly seed: number;
  private readonly shared: SharedValue;
  private last: VersionedCount | undefined;
  private closed: Promise<void> | undefined;

  /**
   * @param client The client to use.
   * @param path The node holding the count.
   * @param options `seed`: the count the node is created with when missing.
   */
  constructor(client: RecipeClient, path: string, options: SharedCountOptions = {}) {
    super(['change', 'error']);
    const seed = options.seed ?? 0;
    checkCount(seed, path);
    this.shared = new SharedValue(client, path, { seed: encodeCount(seed) });
    this.path = path;
    this.seed = seed;
    this.shared.on('change', (value) => {
      try {
        this.take(value);
      } catch (error) {
        this.listeners.report(error);
        return;
      }
      this.listeners.emit('change', this.last as VersionedCount);
    });
    this.shared.on('error', (error) => this.listeners.report(error));
  }

  /**
   * Creates the node with the seed if it is missing and reads the count; resolves once the first
   * count has been read. Rejects as {@link SharedValue.start} does, and with BADARGUMENTS when the
   * node does not hold 4 bytes. A second call waits for the same outcome.
   */
  async start(options: BoundOptions = {}): Promise<void> {
    if (this.closed) throw this.closedError();
    try {
      await this.shared.start(options);
    } catch (error) {
      throw this.closed ? this.closedError() : error;
    }
    if (!this.last) this.take(this.shared.versioned);
  }

  /** The count as last read (the seed before the first read). */
  get count(): number {
    return this.last?.count ?? this.seed;
  }

  /** The count and its version as last read. Throws an `InvalidArgumentError` before the first read. */
  get versioned(): VersionedCount {
    // The shared value throws before its first read.
    if (!this.last) this.take(this.shared.versioned);
    return this.last as VersionedCount;
  }

  /** Sets the count whatever it is now; rejects with a `ClosedError` once closed. */
  async set(count: number): Promise<void> {
    checkCount(count, this.path);
    if (this.closed) throw this.closedError();
    await this.shared.set(encodeCount(count));
  }

  /**
   * Sets the count only if the node is still at `version` (from {@link versioned}): resolves true
   * when it was set, false when someone changed it first (BADVERSION). Curator's `trySetCount`.
   * After a lost connection the outcome is unknown and the call rejects with CONNECTIONLOSS: read
   * again before deciding. Rejects with a `ClosedError` once closed.
   */
  async trySet(count: number, version: number): Promise<boolean> {
    checkCount(count, this.path);
    if (this.closed) throw this.closedError();
    return this.shared.trySet(encodeCount(count), version);
  }

  /** Each new count from now on, as an async iterator (buffered until read, done at `close()`). */
  events(): AsyncIterableIterator<VersionedCount> {
    return this.listeners.stream('change');
  }

  /**
   * Stops following the node: listeners are dropped, iterators end, a `start()` still waiting
   * rejects with a `ClosedError`, and so do later calls. The node stays, and so does the last
   * count read. Idempotent: every call returns the same promise.
   */
  close(): Promise<void> {
    this.closed ??= (async () => {
      this.listeners.end();
      await this.shared.close();
    })();
    return this.closed;
  }

  private closedError(): ClosedError {
    return new ClosedError(`the shared count ${this.path}`, { path: this.path });
  }

  /** Decodes `value` into the count known; throws BADARGUMENTS (and keeps the last) if not 4 bytes. */
  private take(value: VersionedValue): void {
    this.last = { count: decodeCount(value.value, this.path), version: value.version };
  }
}
