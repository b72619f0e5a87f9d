// Curator's DistributedAtomicLong: a 64-bit integer in one node's data (8 bytes, big-endian, as
// Curator writes it; an empty or missing node reads as 0), changed by compare-and-set with retries.
import type { Client } from '../client/client.js';
import { hasCode } from '../locks/errors.js';
import { makeError } from '../protocol/errors.js';
import { createWithParents } from './paths.js';
import { backoffDelay, pause, type RetryPolicy, retry } from './retry.js';

/** The part of the client {@link DistributedAtomicLong} uses (a `Client` is one). */
export type AtomicLongClient = Pick<
  Client,
  'create2' | 'delete' | 'getChildren' | 'getData' | 'setData'
>;

/** The outcome of one change (Curator's `AtomicValue`). */
export interface AtomicResult {
  /** Whether the change was made. False when every compare-and-set lost to another writer. */
  readonly succeeded: boolean;
  /** The value before the change (the last value read, when it did not succeed). */
  readonly preValue: bigint;
  /** The value after the change (equal to `preValue` when it did not succeed). */
  readonly postValue: bigint;
}

/** Options of {@link DistributedAtomicLong}. */
export interface AtomicLongOptions {
  /**
   * How many compare-and-set rounds a change gets, and the pauses between them when another
   * writer won the round. Default: 10 attempts, backoff from 10 ms up to 1 s. Lost connections
   * within a round are retried with the same policy.
   */
  retry?: Omit<RetryPolicy, 'retryOn'>;
}

/** Encodes `value` as Curator's DistributedAtomicLong does: 8 bytes, big-endian, two's complement. */
export function encodeLong(value: bigint): Uint8Array {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigInt64(0, BigInt.asIntN(64, value), false);
  return bytes;
}

/** Decodes a DistributedAtomicLong node's data: empty is 0 (as Curator), 8 bytes a value; else BADARGUMENTS. */
export function decodeLong(data: Uint8Array, path?: string): bigint {
  if (data.length === 0) return 0n;
  if (data.length !== 8) {
    throw makeError(
      'BADARGUMENTS',
      `an atomic long is 8 bytes, the node holds ${data.length}`,
      path === undefined ? {} : { path },
    );
  }
  return new DataView(data.buffer, data.byteOffset, 8).getBigInt64(0, false);
}

/** The value read and the version to compare against (-1: the node does not exist). */
interface Snapshot {
  value: bigint;
  version: number;
}

/**
 * A distributed 64-bit counter, interoperable with Curator's `DistributedAtomicLong` (and the
 * same idea as kazoo's `Counter`, whose node holds the value as text instead: the two do not share
 * a node). Each change reads the value and writes the new one only if the node is still at the
 * version read (or creates the node, parents as containers, if it did not exist); a lost round
 * is tried again per the retry policy, and when the rounds run out the result says
 * `succeeded: false`. Values wrap around at 64 bits as Java's `long` does.
 *
 * At a reconnect, reads are retried per the policy. A session renewal changes nothing (the node
 * is persistent and no watch is kept). A compare-and-set whose reply was lost is never sent again:
 * it may have applied, and a second round would count twice, so the change rejects with
 * CONNECTIONLOSS and {@link get} tells the value now. No sequential nodes are created.
 */
export class DistributedAtomicLong {
  private readonly policy: RetryPolicy;

  /**
   * @param client The client to use.
   * @param path The node holding the value.
   * @param options The retry policy.
   */
  constructor(
    private readonly client: AtomicLongClient,
    readonly path: string,
    options: AtomicLongOptions = {},
  ) {
    this.policy = { maxAttempts: 10, baseDelay: 10, maxDelay: 1_000, ...options.retry };
  }

  /** The current value (0 when the node does not exist). */
  async get(): Promise<bigint> {
    return (await this.read()).value;
  }

  /** Adds 1. */
  increment(): Promise<AtomicResult> {
    return this.add(1n);
  }

  /** Subtracts 1. */
  decrement(): Promise<AtomicResult> {
    return this.add(-1n);
  }

  /** Adds `delta` (a bigint, or a safe integer). */
  add(delta: bigint | number): Promise<AtomicResult> {
    const amount = toBigInt(delta, this.path);
    return this.change((value) => value + amount);
  }

  /** Subtracts `delta`. */
  subtract(delta: bigint | number): Promise<AtomicResult> {
    const amount = toBigInt(delta, this.path);
    return this.change((value) => value - amount);
  }

  /** Sets the value whatever it is now (still through compare-and-set rounds). */
  trySet(value: bigint | number): Promise<AtomicResult> {
    const next = toBigInt(value, this.path);
    return this.change(() => next);
  }

  /** Sets the value only if it is `expected` now: one round, `succeeded: false` if not. */
  async compareAndSet(expected: bigint | number, value: bigint | number): Promise<AtomicResult> {
    const want = BigInt.asIntN(64, toBigInt(expected, this.path));
    const next = toBigInt(value, this.path);
    const snapshot = await this.read();
    if (snapshot.value !== want) {
      return { succeeded: false, preValue: snapshot.value, postValue: snapshot.value };
    }
    const written = await this.write(snapshot, BigInt.asIntN(64, next));
    return written
      ? { succeeded: true, preValue: snapshot.value, postValue: BigInt.asIntN(64, next) }
      : { succeeded: false, preValue: snapshot.value, postValue: snapshot.value };
  }

  /** Writes `value` unconditionally (Curator's `forceSet`), creating the node if needed. */
  async forceSet(value: bigint | number): Promise<void> {
    const bytes = encodeLong(toBigInt(value, this.path));
    // Both writes are safe to repeat: an unconditional set, and a create that a lost reply
    // turns into NODEEXISTS (then set again).
    for (;;) {
      try {
        await retry(() => this.client.setData(this.path, bytes, -1), this.policy);
        return;
      } catch (error) {
        if (!hasCode(error, 'NONODE')) throw error;
      }
      try {
        await retry(() => createWithParents(this.client, this.path, bytes), this.policy);
        return;
      } catch (error) {
        if (!hasCode(error, 'NODEEXISTS')) throw error;
      }
    }
  }

  private async change(next: (value: bigint) => bigint): Promise<AtomicResult> {
    const { maxAttempts = 10 } = this.policy;
    let last: Snapshot = { value: 0n, version: -1 };
    for (let round = 1; ; round++) {
      last = await this.read();
      const value = BigInt.asIntN(64, next(last.value));
      if (await this.write(last, value)) {
        return { succeeded: true, preValue: last.value, postValue: value };
      }
      if (round >= maxAttempts)
        return { succeeded: false, preValue: last.value, postValue: last.value };
      await pause(backoffDelay(round, this.policy), this.policy.signal);
    }
  }

  private async read(): Promise<Snapshot> {
    try {
      const { data, stat } = await retry(() => this.client.getData(this.path), this.policy);
      return { value: decodeLong(data, this.path), version: stat.version };
    } catch (error) {
      if (hasCode(error, 'NONODE')) return { value: 0n, version: -1 };
      throw error;
    }
  }

  /**
   * One compare-and-set: true when written, false when another writer changed the node first.
   * A lost reply is not retried here (the write may have applied): it rejects with CONNECTIONLOSS.
   */
  private async write(snapshot: Snapshot, value: bigint): Promise<boolean> {
    const bytes = encodeLong(value);
    try {
      if (snapshot.version === -1) {
        await createWithParents(this.client, this.path, bytes);
      } else {
        await this.client.setData(this.path, bytes, snapshot.version);
      }
      return true;
    } catch (error) {
      if (hasCode(error, 'BADVERSION', 'NODEEXISTS', 'NONODE')) return false;
      throw error;
    }
  }
}

function toBigInt(value: bigint | number, path: string): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  throw makeError('BADARGUMENTS', `expected a bigint or a safe integer, got ${String(value)}`, {
    path,
  });
}
