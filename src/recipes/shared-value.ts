/// <reference path="../disposable.ts" preserve="true" />
// Curator's SharedValue: bytes in one node, kept current in memory by a data watch, with change
// events and a versioned compare-and-set. SharedCount is one of these holding 4-byte integers, so
// the rule that a version names a state only within one life of the node lives here alone.
import { Listenable } from '../client/listenable.js';
import type { ErrorEvents } from '../client/listeners.js';
import type { RecipeClient } from '../client/recipe-client.js';
import type { Stat, WatchedEvent } from '../client/types.js';
import { type BoundOptions, waitBounded } from '../coordination/bounded.js';
import { hasCode } from '../coordination/codes.js';
import { renewedAfter } from '../coordination/renewal.js';
import { ClosedError, InvalidArgumentError } from '../protocol/errors.js';
import { checkRecipePath, createWithParents } from './paths.js';
import { retry } from './retry.js';
import { checkWaitOptions } from './wait.js';

/** A value and the node version it was read (or written) at: the version a compare-and-set checks. */
export interface VersionedValue {
  /** The node's data. Treat it as read-only: it is the value the object holds. */
  readonly value: Uint8Array;
  /** The node's data version when the value was read. */
  readonly version: number;
}

/** Options of a {@link SharedValue}. */
export interface SharedValueOptions {
  /** The data the node is created with when it does not exist. Default: empty. */
  seed?: Uint8Array;
}

/** The events of a {@link SharedValue} (see `on()`). */
export interface SharedValueEvents extends ErrorEvents {
  /** A new value this client saw (never the one `start()` read first). */
  change: (value: VersionedValue) => void;
}

const FOREVER = { maxAttempts: Number.POSITIVE_INFINITY };

/**
 * A value shared through one node (Curator's `SharedValue`, same node: the bytes as they are).
 * `start()` creates the node with `seed` if it is missing (its parents as containers) and reads
 * it; from then on {@link value} and {@link versioned} answer from memory and `change` listeners
 * hear every value this client sees. Changes made in quick succession by others may reach it as
 * one (ZooKeeper's watches report the latest state, not every step). Use {@link trySet} with the
 * version read for a compare-and-set.
 *
 * At a reconnect the client re-arms the watch itself, and a change made meanwhile fires it. At a
 * session renewal the old session's watch ends; the value re-reads the node and watches again,
 * so listeners hear any value that changed meanwhile; a re-read that the renewal rejected is sent
 * again on the new session. If the node is deleted, the value keeps its last state and watches
 * for the node to come back; a node deleted and created again (in one `multi` too) is followed,
 * although its version starts over at 0. A version names a state only within one life of the
 * node: a compare-and-set at a version read before the node was replaced succeeds if the new node
 * has reached that same version (ZooKeeper has no check on a node's life). No sequential nodes
 * are created. Failures it keeps going through (a read it gave up) go to the `error` listeners.
 */
export class SharedValue extends Listenable<SharedValueEvents> {
  /** The node holding the value. */
  readonly path: string;
  private readonly seed: Uint8Array;
  private current: VersionedValue | undefined;
  private readonly closing = new AbortController();
  private first: Promise<void> | undefined;
  private closed: Promise<void> | undefined;
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
   * @param path The node holding the value.
   * @param options `seed`: the data the node is created with when missing.
   */
  constructor(
    private readonly client: RecipeClient,
    path: string,
    options: SharedValueOptions = {},
  ) {
    super(['change', 'error']);
    checkRecipePath(path, 'SharedValue');
    const seed = options.seed ?? new Uint8Array(0);
    if (!(seed instanceof Uint8Array)) {
      throw new InvalidArgumentError('SharedValue: seed must be a Uint8Array', { path });
    }
    this.path = path;
    this.seed = seed.slice();
  }

  /**
   * Creates the node with the seed if it is missing, reads it and watches it; resolves once the
   * first value has been read. Rejects with a `TimeoutError` after `timeout` ms and with the
   * signal's reason on abort (the object keeps trying: `close()` it), with the error that stopped
   * the first read (a refused ACL, the session over), and with a `ClosedError` after `close()`.
   * A second call waits for the same outcome.
   */
  start(options: BoundOptions = {}): Promise<void> {
    try {
      checkWaitOptions(options, this.path);
    } catch (error) {
      return Promise.reject(error);
    }
    if (this.closing.signal.aborted) return Promise.reject(this.closing.signal.reason);
    if (!this.first) {
      this.first = this.readFirst();
      this.first.catch(() => {});
    }
    return waitBounded(this.first, options, `the first read of ${this.path}`, this.client);
  }

  /** The value as last read (the seed before the first read). */
  get value(): Uint8Array {
    return this.current?.value ?? this.seed;
  }

  /** The value and its version as last read. Throws an `InvalidArgumentError` before the first read. */
  get versioned(): VersionedValue {
    if (!this.current) {
      throw new InvalidArgumentError(`start() the shared value ${this.path} first`, {
        path: this.path,
      });
    }
    return this.current;
  }

  /** Sets the value whatever it is now; rejects with a `ClosedError` once closed. */
  async set(value: Uint8Array): Promise<void> {
    const bytes = this.checkValue(value);
    this.checkOpen();
    const stat = await this.client.setData(this.path, bytes, -1);
    this.update({ value: bytes, version: stat.version }, stat);
  }

  /**
   * Sets the value only if the node is still at `version` (from {@link versioned}): resolves true
   * when it was set, false when someone changed it first (BADVERSION). Curator's `trySetValue`.
   * After a lost connection the outcome is unknown and the call rejects with CONNECTIONLOSS: read
   * again before deciding. Rejects with a `ClosedError` once closed.
   */
  async trySet(value: Uint8Array, version: number): Promise<boolean> {
    const bytes = this.checkValue(value);
    if (!Number.isInteger(version) || version < 0) {
      throw new InvalidArgumentError(`version must be a non-negative integer, got ${version}`, {
        path: this.path,
      });
    }
    this.checkOpen();
    try {
      const stat = await this.client.setData(this.path, bytes, version);
      this.update({ value: bytes, version: stat.version }, stat);
      return true;
    } catch (error) {
      if (hasCode(error, 'BADVERSION')) return false;
      throw error;
    }
  }

  /** Each new value from now on, as an async iterator (buffered until read, done at `close()`). */
  events(): AsyncIterableIterator<VersionedValue> {
    return this.listeners.stream('change');
  }

  /**
   * Stops following the node: listeners are dropped, iterators end, a `start()` still waiting
   * rejects with a `ClosedError`, and so do later calls. The node stays, and so does the last
   * value read. Idempotent: every call returns the same promise.
   */
  close(): Promise<void> {
    this.closed ??= (async () => {
      this.closing.abort(new ClosedError(`the shared value ${this.path}`, { path: this.path }));
      this.listeners.end();
      await this.reading?.catch(() => {});
    })();
    return this.closed;
  }

  private checkValue(value: Uint8Array): Uint8Array {
    if (!(value instanceof Uint8Array)) {
      throw new InvalidArgumentError('a shared value is a Uint8Array', { path: this.path });
    }
    return value.slice();
  }

  private checkOpen(): void {
    if (this.closing.signal.aborted) throw this.closing.signal.reason;
  }

  /** The background work of `start()`: the node made when missing, then the first read. */
  private async readFirst(): Promise<void> {
    const signal = this.closing.signal;
    for (;;) {
      try {
        await retry(() => createWithParents(this.client, this.path, this.seed, { signal }), {
          ...FOREVER,
          signal,
        });
        break;
      } catch (error) {
        // NODEEXISTS: someone else made it first (or our create's lost reply did).
        if (hasCode(error, 'NODEEXISTS')) break;
        if (signal.aborted) throw signal.reason;
        if (!renewedAfter(this.client, error)) throw error;
      }
    }
    await this.read();
    if (!this.current) throw signal.reason;
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
          if (this.closing.signal.aborted) throw error;
          // A read that failed with the old session (SESSIONEXPIRED) while the client renews it:
          // read again on the new session. No watch may be left to ask for it (the one that
          // fired is used up, and a failed read arms none), so this read is the value's only
          // way back to following the node.
          if (!this.rereadWanted && !renewedAfter(this.client, error)) throw error;
          continue;
        }
        if (!this.rereadWanted || this.closing.signal.aborted) return;
      }
    };
    this.reading = run().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async readOnce(): Promise<void> {
    const signal = this.closing.signal;
    if (signal.aborted) return;
    const watch = (event: WatchedEvent) => this.onWatch(event);
    try {
      const { data, stat } = await retry(() => this.client.getData(this.path, { watch, signal }), {
        ...FOREVER,
        signal,
      });
      this.update({ value: data, version: stat.version }, stat);
    } catch (error) {
      if (!hasCode(error, 'NONODE')) throw error;
      // A deleted node: wait for it to come back (an exists watch fires on its creation).
      // Without this watch nothing would ever read the node again: try it through lost links,
      // and after a renewal read again on the new session.
      let stat: Stat | null;
      try {
        stat = await retry(() => this.client.exists(this.path, { watch, signal }), {
          ...FOREVER,
          signal,
        });
      } catch (existsError) {
        if (!signal.aborted && renewedAfter(this.client, existsError)) this.rereadWanted = true;
        else throw existsError;
        return;
      }
      // Back already: read it (its exists watch stays armed, and re-reads once more at most).
      if (stat) this.rereadWanted = true;
    }
  }

  /** Any event re-reads: a change, a deletion, a creation, or the end of the old session's watch. */
  private onWatch(_event: WatchedEvent): void {
    if (this.closing.signal.aborted) return;
    this.read().catch((error: unknown) => {
      // Closed, or the session is over without renewal: nothing left to read.
      if (!this.closing.signal.aborted) this.listeners.report(error);
    });
  }

  /** Takes `next`, read from the node state `stat`, unless it is older than the state known. */
  private update(next: VersionedValue, stat: Pick<Stat, 'czxid'>): void {
    const { czxid } = stat;
    const previous = this.current;
    const floor = this.floor;
    if (floor && (czxid < floor.czxid || (czxid === floor.czxid && next.version < floor.version)))
      return;
    this.floor = { czxid, version: next.version };
    this.current = next;
    // The same value at the same version (a state seen twice, or a new node equal to the old
    // one as far as a compare-and-set can tell) is no news.
    if (previous === undefined) return;
    if (next.version === previous.version && sameBytes(next.value, previous.value)) return;
    this.listeners.emit('change', next);
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
