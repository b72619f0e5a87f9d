// The options, states and events of a SetPartitioner, and the checks of its arguments.
import type { ErrorEvents } from '../client/listeners.js';
import { InvalidArgumentError } from '../protocol/errors.js';
import { roundRobinPartition } from './partitioner-party.js';

/**
 * Where a {@link SetPartitioner} stands (kazoo's states, lower case, and `closed`):
 * `allocating` (waiting for the party to settle, locking its share), `acquired` (it owns
 * `partition`), `release` (the party changed or the connection was lost: stop working on the
 * items and call `release()`), `failure` (an error no retry fixes; it has left the party), and
 * `closed`.
 */
export type PartitionState = 'allocating' | 'acquired' | 'release' | 'failure' | 'closed';

/** Chooses a member's share: its id, every member's id, and the whole set. */
export type PartitionFunction = (
  id: string,
  members: readonly string[],
  items: readonly string[],
) => readonly string[];

/** Options of a {@link SetPartitioner}. */
export interface SetPartitionerOptions {
  /** The set to divide: distinct node names (each item's lock is `<path>/locks/<item>`). Required. */
  items: readonly string[];
  /**
   * This member's id, unique among the members (kazoo's `identifier`; its default is the host
   * name and process id). Default: a random hex UUID.
   */
  id?: string;
  /**
   * Every member's share; all members must use the same function. Default: kazoo's (the sorted
   * items dealt round-robin over the sorted member ids).
   */
  partition?: PartitionFunction;
  /** How long the party must stay unchanged before the set is divided, ms (kazoo's `time_boundary`; default 30 000). */
  settleTime?: number;
}

/** The events of a {@link SetPartitioner}. */
export interface SetPartitionerEvents extends ErrorEvents {
  /** The state changed (see {@link PartitionState}). */
  state: (state: PartitionState) => void;
}

/** The options of a SetPartitioner, checked, with their defaults. */
export interface CheckedOptions {
  readonly items: readonly string[];
  readonly id: string;
  readonly partition: PartitionFunction;
  readonly settleTime: number;
}

/** Checks a SetPartitioner's options; throws an InvalidArgumentError naming the bad one. */
export function checkOptions(options: SetPartitionerOptions, path: string): CheckedOptions {
  const { items, id, partition, settleTime = 30_000 } = options ?? ({} as SetPartitionerOptions);
  const refuse = (message: string) =>
    new InvalidArgumentError(`SetPartitioner: ${message}`, { path });
  if (!Array.isArray(items) || items.some((item) => !isNodeName(item))) {
    throw refuse('items must be an array of node names');
  }
  if (new Set(items).size !== items.length) throw refuse('items must be distinct');
  const ownId = id ?? crypto.randomUUID().replaceAll('-', '');
  if (!isNodeName(ownId)) throw refuse('id must be a non-empty node name');
  if (partition !== undefined && typeof partition !== 'function') {
    throw refuse('partition must be a function');
  }
  if (!(typeof settleTime === 'number' && settleTime >= 0 && Number.isFinite(settleTime))) {
    throw refuse('settleTime must be a non-negative number of ms');
  }
  return { items: [...items], id: ownId, partition: partition ?? roundRobinPartition, settleTime };
}

/** Resolves once `signal` aborts. */
export function ended(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener('abort', () => resolve(), { once: true }),
  );
}

/** A valid node name: non-empty, no `/`, not `.` or `..`, no NUL. */
function isNodeName(name: unknown): name is string {
  return (
    typeof name === 'string' &&
    name !== '' &&
    name !== '.' &&
    name !== '..' &&
    !name.includes('/') &&
    !name.includes('\u0000')
  );
}

/** `id`'s share by `partition`, checked against the set (a foreign item fails the partitioner). */
export function shareOf(
  partition: PartitionFunction,
  id: string,
  members: readonly string[],
  items: readonly string[],
  path: string,
): string[] {
  const share = [...partition(id, members, items)];
  const unknown = share.filter((item) => !items.includes(item));
  if (unknown.length > 0) {
    throw new InvalidArgumentError(
      `SetPartitioner: the partition function returned items not in the set: ${unknown.join(', ')}`,
      { path },
    );
  }
  return share;
}
