// Node names of the lock recipes, exactly as Curator and kazoo spell them, so a TypeScript process
// and a Java or Python one exclude each other on the same path.
import type { Stat } from '../client/types.js';

/** Whose node names to use: Curator's (`_c_<uuid>-lock-<seq>`) or kazoo's (`<hex>__lock__<seq>`). */
export type NamingStyle = 'curator' | 'kazoo';

/** The part of a node name between the owner prefix and the sequence number. */
export const LockName = {
  /** Curator InterProcessMutex. */
  mutex: 'lock-',
  /** Curator InterProcessReadWriteLock: the two names have the same length on purpose. */
  read: '__READ__',
  /** Curator InterProcessReadWriteLock, write side. */
  write: '__WRIT__',
  /** Curator InterProcessSemaphoreV2 leases. */
  lease: 'lease-',
  /** kazoo Lock / WriteLock. */
  kazooMutex: '__lock__',
  /** kazoo ReadLock. */
  kazooRead: '__rlock__',
  /** Curator LeaderLatch candidates. */
  latch: 'latch-',
} as const;
export type LockName = (typeof LockName)[keyof typeof LockName];

/**
 * A fresh owner prefix. Curator's "protected" prefix is `_c_` + a canonical UUID + `-` (40 chars);
 * kazoo's is the UUID as 32 hex digits. The prefix lets a contender find its own node after a
 * connection loss instead of creating a second one.
 */
export function newOwnerPrefix(style: NamingStyle): string {
  // randomUUID, not random bytes of our own: Node draws it from a pool (about 0.5 µs, where a
  // crypto.getRandomValues call per prefix costs about 4 µs), and the simulator seeds it per world
  // (test/sim/env.ts), which a pool of our own kept across calls would defeat.
  const uuid = crypto.randomUUID();
  return style === 'curator' ? `_c_${uuid}-` : uuid.replaceAll('-', '');
}

/**
 * The attempts {@link OwnerPrefixes} counts on one drawn UUID: below 2^30 a count is a small
 * integer to V8, which spells it in hex with a fast builtin; a count past that (2^48 + count, say)
 * is a double, spelled by a runtime call that cost as much CPU as the UUID per attempt it replaces.
 */
const COUNT_LIMIT = 2 ** 30;
/** The count fills the last 12 hex digits of the UUID, zero-padded. */
const ZEROS = '000000000000';

/**
 * Owner prefixes for the attempts of one lock object, each as {@link newOwnerPrefix} spells it
 * (a canonical version 4 UUID, so Curator still reads the name as protected) and unique: one
 * random UUID is drawn per object, and the last 12 hex digits of each prefix count its attempts.
 * Uniqueness is all a prefix is for (an attempt finds its own node by it): across objects and
 * processes the 74 random bits drawn per object keep prefixes apart, within one object the count
 * does. A UUID per attempt cost about 0.5 KiB of garbage to spell (its 16 bytes concatenated one
 * by one) on every acquisition.
 */
export class OwnerPrefixes {
  /** The prefix up to the counted digits; drawn on the first attempt. */
  private base: string | undefined = undefined;
  private count = 0;

  constructor(private readonly style: NamingStyle) {}

  /** A prefix no attempt of any object has had. */
  next(): string {
    if (this.base === undefined || this.count === COUNT_LIMIT) {
      const uuid = crypto.randomUUID();
      // The first four groups: `xxxxxxxx-xxxx-4xxx-yxxx-` (kazoo's form without the dashes).
      this.base =
        this.style === 'curator'
          ? `_c_${uuid.slice(0, 24)}`
          : uuid.slice(0, 23).replaceAll('-', '');
      this.count = 0;
    }
    const hex = (this.count++).toString(16);
    const digits = ZEROS.slice(hex.length) + hex;
    return this.style === 'curator' ? `${this.base}${digits}-` : this.base + digits;
  }
}

/** A node this process created and owns. */
export interface OwnNode {
  readonly path: string;
  readonly name: string;
  readonly stat: Stat;
}

/** A contender node, parsed from its name. */
export interface Contender {
  /** The node name (last path segment). */
  readonly name: string;
  /** Which lock name it carries (e.g. `lock-`, `__READ__`). */
  readonly lockName: string;
  /** The server-assigned sequence number, as the signed 32-bit integer it is. */
  readonly sequence: number;
  /** The sequence as the server wrote it (`%010d`): what Curator and kazoo sort by. */
  readonly sequenceText: string;
}

// ZooKeeper appends String.format("%010d", parentCversion): 10 digits, or a minus sign and 9 or 10
// digits once the signed 32-bit counter has wrapped.
const SEQUENCE_TEXT = /^(?:\d{10}|-\d{9,10})$/;
/** The smallest sequence: where an older server's counter lands after it wraps. */
export const INT32_MIN = -2_147_483_648;
/** The largest sequence: ZooKeeper 3.5+ stops the counter here; older servers wrap after it. */
export const SEQUENCE_LIMIT = 2_147_483_647;
const INT32_MAX = SEQUENCE_LIMIT;

/** The sequence suffix as a signed 32-bit integer, or undefined when it is not one. */
export function parseSequence(text: string): number | undefined {
  if (!SEQUENCE_TEXT.test(text)) return undefined;
  const value = Number(text);
  return value >= INT32_MIN && value <= INT32_MAX ? value : undefined;
}

/**
 * Parses `name` as a contender carrying one of `lockNames` followed by a sequence number, as
 * Curator does (the text after the last occurrence of the lock name). Anything else — a foreign
 * node, a node of another recipe — is not a contender: undefined.
 */
export function parseContender(name: string, lockNames: readonly string[]): Contender | undefined {
  let best: Contender | undefined;
  let bestAt = -1;
  for (const lockName of lockNames) {
    const at = name.lastIndexOf(lockName);
    if (at < 0 || at <= bestAt) continue;
    const sequenceText = name.slice(at + lockName.length);
    const sequence = parseSequence(sequenceText);
    if (sequence === undefined) continue;
    best = { name, lockName, sequence, sequenceText };
    bestAt = at;
  }
  return best;
}

// A node's name and its parent: the public path helpers (one implementation for the library).
export { nodeName as baseName, parentPath as parentOf } from '../protocol/paths.js';

/**
 * `dir` + `/` + `name`, without doubling the slash at the root: `joinPath(dir, name)` for a
 * normalized `dir` and a plain `name`, without its trimming (the lock engine's hot path).
 */
export function childPath(dir: string, name: string): string {
  return dir === '/' ? `/${name}` : `${dir}/${name}`;
}
