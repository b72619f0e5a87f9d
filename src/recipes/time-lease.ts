// A lease held until a time, not while a session lives (kazoo's NonBlockingLease and
// MultiNonBlockingLease, in their layout): "run this at most once an hour across the fleet". The
// holder and the end are kept in a persistent node, `<path>/lease_holder`, as kazoo writes it
// (JSON `{"version": 1, "holder": <id>, "end": "YYYY-MM-DDTHH:MM:SS"}`, UTC, whole seconds); a
// kazoo-layout mutex on `<path>` makes each look-and-write one at a time, and the write is guarded
// by it (one multi with a check of the mutex node), so a process that lost the mutex meanwhile
// writes nothing. Ends are compared with the clocks of the processes: they must roughly agree.
import { Op } from '../client/multi.js';
import type { RecipeClient } from '../client/recipe-client.js';
import { acquireInside, type InnerWait, stopping } from '../coordination/bound-signal.js';
import { hasCode } from '../coordination/codes.js';
import { retry } from '../coordination/retry.js';
import { Mutex } from '../locks/index.js';
import { InvalidArgumentError } from '../protocol/errors.js';
import { pathProblem } from '../protocol/paths.js';
import type { StopSignal } from '../session/signal-waiters.js';
import { ensurePathUntil } from './paths.js';
import { startWait, type WaitOptions } from './wait.js';

/** The node that holds the lease's holder and end, under the lease's path (kazoo's name). */
export const LEASE_HOLDER_NODE = 'lease_holder';

/** Options of a {@link TimeLease}. */
export interface TimeLeaseOptions {
  /** How long an obtained lease runs, ms (kept to whole seconds, as kazoo writes it). Required. */
  duration: number;
  /**
   * This holder's identity: obtaining again with the same id renews the lease before its end
   * (kazoo's `identifier`; kazoo's default is the host name). Required.
   */
  id: string;
  /**
   * Up to this many holders at once, each on its own slot `<path>/0` … `<path>/<slots - 1>`
   * (kazoo's `MultiNonBlockingLease(count)`). Unset: one holder, on `<path>` itself (kazoo's
   * `NonBlockingLease`).
   */
  slots?: number;
  /** The clock, ms since the epoch (default `Date.now`): for tests. */
  now?: () => number;
}

/** Who holds one slot of a time lease now, as {@link TimeLease.holders} reports it. */
export interface TimeLeaseHolder {
  /** The holder's id, as it wrote it. */
  readonly holder: string;
  /** When its lease ends. */
  readonly end: Date;
}

/** A lease obtained: who holds it, until when, and the node that says so. */
export interface TimeLeaseGrant {
  /** The holder's id (this one's). */
  readonly holder: string;
  /** When the lease ends (whole seconds, UTC). */
  readonly end: Date;
  /** The `lease_holder` node written. */
  readonly path: string;
}

/** The holder found in a `lease_holder` node. */
interface HolderRecord {
  readonly version: unknown;
  readonly holder: unknown;
  readonly end: unknown;
}

/**
 * A time lease: at most one holder (or `slots` holders) until the lease's end, whatever happens
 * to their sessions. {@link TimeLease.obtain} never waits for another holder's time to pass:
 * it resolves null at once. Nothing runs in the background, so there is no `start()`/`close()`.
 */
export class TimeLease {
  private readonly duration: number;
  private readonly id: string;
  private readonly slotPaths: readonly string[];
  private readonly now: () => number;

  /**
   * @param client The client to work through (a `RecipeClient`).
   * @param path The lease's path (kazoo's lease path).
   */
  constructor(
    readonly client: RecipeClient,
    readonly path: string,
    options: TimeLeaseOptions,
  ) {
    const { duration, id, slots, now } = options ?? ({} as TimeLeaseOptions);
    if (!(typeof duration === 'number' && Number.isFinite(duration) && duration > 0)) {
      throw new InvalidArgumentError(`TimeLease: duration must be a positive number of ms`, {
        path,
      });
    }
    if (typeof id !== 'string' || id === '') {
      throw new InvalidArgumentError('TimeLease: id must be a non-empty string', { path });
    }
    if (slots !== undefined && !(Number.isInteger(slots) && slots > 0)) {
      throw new InvalidArgumentError('TimeLease: slots must be a positive integer', { path });
    }
    this.duration = duration;
    this.id = id;
    this.now = now ?? Date.now;
    this.slotPaths =
      slots === undefined ? [path] : Array.from({ length: slots }, (_, i) => `${path}/${i}`);
    const problem = pathProblem(path);
    if (problem !== null) {
      throw new InvalidArgumentError(`TimeLease: invalid path "${path}": ${problem}`, { path });
    }
  }

  /**
   * Obtains the lease (or renews it, if this id holds it) when no other holder's lease runs now,
   * trying each slot in turn. Resolves with the grant, or null when every slot is held by
   * another id until a later time (or was written by a newer layout version). `timeout` and
   * `signal` bound the wait for the short mutex a look-and-write holds: a `TimeoutError`, or the
   * signal's reason. A lost connection is retried; a write whose outcome was lost is harmless to
   * repeat, since it renews this id's own lease.
   */
  async obtain(options: WaitOptions = {}): Promise<TimeLeaseGrant | null> {
    const bound = startWait(options, this.path, { client: this.client });
    const stop = bound.signal;
    // A slot's Mutex is waited for with the caller's signal and the time left of this wait's
    // deadline (see innerWait): no AbortController per obtain.
    const mutexWait = () => bound.innerWait(options.signal);
    try {
      for (const slot of this.slotPaths) {
        // Not raced against the bound: the obtain settles once the mutex's wait is over, so it
        // leaves nothing on the caller's signal (the mutex's deadline is never after the bound's).
        const grant = await retry(() => this.obtainAt(slot, stop, mutexWait), { signal: stop });
        if (grant) return grant;
      }
      return null;
    } catch (error) {
      throw bound.signal.aborted ? bound.signal.reason : error;
    } finally {
      bound.dispose();
    }
  }

  /** The holder of each slot now (null for a free or ended slot), without taking any lock. */
  async holders(): Promise<(TimeLeaseHolder | null)[]> {
    return Promise.all(
      this.slotPaths.map(async (slot) => {
        const record = await this.read(slot);
        if (!record) return null;
        const end = endOf(record.record);
        if (end === undefined || end <= this.now()) return null;
        return { holder: String(record.record.holder), end: new Date(end) };
      }),
    );
  }

  /**
   * One look-and-write at `slot` under its Mutex. `stop` ends the work (the obtain's bound: a
   * write never goes out once it has); `mutexWait` says how long to wait for the Mutex.
   */
  private async obtainAt(
    slot: string,
    stop: StopSignal,
    mutexWait: () => InnerWait | undefined,
  ): Promise<TimeLeaseGrant | null> {
    await ensurePathUntil(this.client, slot, false, stop);
    const mutex = new Mutex(this.client, slot, { naming: 'kazoo', data: this.id });
    // A timeout of the mutex's own (a moment before this wait's) waits for this wait's end.
    const lease = await acquireInside(mutexWait(), stop, (wait) => mutex.acquire(wait));
    try {
      const holderPath = `${slot}/${LEASE_HOLDER_NODE}`;
      const found = await this.read(slot);
      const now = this.now();
      const ops: Op[] = [];
      if (found) {
        if (found.record.version !== 1) return null;
        const end = endOf(found.record);
        // Another holder's lease that runs (or whose end cannot be read) is left alone.
        if (found.record.holder !== this.id && (end === undefined || now < end)) return null;
        ops.push(Op.delete(holderPath, found.version));
      }
      const end = formatEnd(now + this.duration);
      ops.push(Op.create(holderPath, encodeHolder(this.id, end)));
      await lease.multi(ops, stopping({}, stop));
      return { holder: this.id, end: new Date(`${end}Z`), path: holderPath };
    } finally {
      await lease.release();
    }
  }

  private async read(slot: string): Promise<{ record: HolderRecord; version: number } | null> {
    try {
      const { data, stat } = await retry(() => this.client.getData(`${slot}/${LEASE_HOLDER_NODE}`));
      return { record: decodeHolder(data), version: stat.version };
    } catch (error) {
      if (hasCode(error, 'NONODE')) return null;
      throw error;
    }
  }
}

/** `ms` as kazoo writes an end: UTC `YYYY-MM-DDTHH:MM:SS`, the fraction of a second dropped. */
export function formatEnd(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}

/** The end of a record in ms since the epoch, or undefined when it is not kazoo's format. */
function endOf(record: HolderRecord): number | undefined {
  if (typeof record.end !== 'string' || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/.test(record.end)) {
    return undefined;
  }
  const ms = Date.parse(`${record.end}Z`);
  return Number.isNaN(ms) ? undefined : ms;
}

/** kazoo's bytes: Python's `json.dumps` (`", "` and `": "` separators, non-ASCII escaped). */
export function encodeHolder(holder: string, end: string): Uint8Array {
  const ascii = (text: string) =>
    JSON.stringify(text).replace(
      /[\u0080-\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  return new TextEncoder().encode(
    `{"version": 1, "holder": ${ascii(holder)}, "end": ${ascii(end)}}`,
  );
}

/** A `lease_holder` node's record; a node that is not JSON counts as a newer layout (version 0). */
function decodeHolder(data: Uint8Array): HolderRecord {
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(data));
    if (typeof parsed === 'object' && parsed !== null) return parsed as HolderRecord;
  } catch {
    // Not kazoo's JSON: left alone below.
  }
  return { version: 0, holder: undefined, end: undefined };
}
