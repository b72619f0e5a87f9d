// A lock path's children as the server listed them, left encoded. Where a contender stands in the
// queue is read off the names' bytes, and only the name the decision hands on (the contender to
// watch) becomes a string: a queue of 1,024 contenders would otherwise cost 1,024 strings per
// listing, two listings per contended acquisition. The rare steps (past the sequence limit, a
// create whose reply was lost) ask for the names, which are then decoded once.
import { int32At, Reader } from '../protocol/reader.js';
import { decodeUtf8 } from '../protocol/utf8.js';
import { INT32_MIN, SEQUENCE_LIMIT } from './naming.js';
import {
  MINUS,
  ownSequenceOf,
  PAST_LIMIT,
  type Parsed,
  type Place,
  placeInQueue,
  type QueueRule,
  ZERO,
} from './place.js';

const encoder = new TextEncoder();

/** The lock names of a rule as bytes, encoded once per rule. */
const encodedNames = new WeakMap<readonly string[], readonly Uint8Array[]>();

/** The rule's names looked up last, and their bytes: a process nearly always has one rule. */
let lastNames: readonly string[] | undefined;
let lastBytes: readonly Uint8Array[] = [];

function namesAsBytes(names: readonly string[]): readonly Uint8Array[] {
  if (names === lastNames) return lastBytes;
  let bytes = encodedNames.get(names);
  if (bytes === undefined) {
    bytes = names.map((name) => encoder.encode(name));
    encodedNames.set(names, bytes);
  }
  lastNames = names;
  lastBytes = bytes;
  return bytes;
}

/** Whether `bytes[at..]` starts with `part` (false for a negative `at`). */
function matchAt(bytes: Uint8Array, at: number, end: number, part: Uint8Array): boolean {
  if (at < 0 || at + part.length > end) return false;
  for (let i = 0; i < part.length; i++) if (bytes[at + i] !== part[i]) return false;
  return true;
}

/** The sequence number in `bytes[from..end]`, by the rule of place.ts's `sequenceAt`; or NaN. */
function sequenceIn(bytes: Uint8Array, from: number, end: number): number {
  const length = end - from;
  let i = from;
  let negative = false;
  if (length === 11 || (length === 10 && bytes[from] === MINUS)) {
    if (bytes[from] !== MINUS) return Number.NaN;
    negative = true;
    i++;
  } else if (length !== 10) return Number.NaN;
  let value = 0;
  for (; i < end; i++) {
    const digit = bytes[i]! - ZERO;
    if (digit < 0 || digit > 9) return Number.NaN;
    value = value * 10 + digit;
  }
  if (negative) value = -value;
  return value >= INT32_MIN && value <= SEQUENCE_LIMIT ? value : Number.NaN;
}

/**
 * place.ts's `parseInto` over the name at `bytes[start..start+length]`. The sequence and the lock
 * names are compared as bytes: UTF-8 is self-synchronizing, so a lock name's bytes can only match
 * where its first character starts, and a sequence is ASCII digits in either form.
 */
function parseBytesInto(
  bytes: Uint8Array,
  start: number,
  length: number,
  names: readonly Uint8Array[],
  out: Parsed,
): boolean {
  const end = start + length;
  let bestAt = -1;
  for (let k = 0; k < names.length; k++) {
    const lockName = names[k]!;
    let at = length - 10 - lockName.length;
    if (!matchAt(bytes, start + at, end, lockName)) {
      at--;
      if (!matchAt(bytes, start + at, end, lockName)) continue;
    }
    if (at < 0 || at <= bestAt) continue;
    const sequence = sequenceIn(bytes, start + at + lockName.length, end);
    if (Number.isNaN(sequence)) continue;
    out.kind = k;
    out.sequence = sequence;
    bestAt = at;
  }
  return bestAt >= 0;
}

/**
 * Whether the name at `bytes[start..start+length]` is `name`. Compared unit by byte while the
 * units are ASCII, with no encoding (each call to the encoder would allocate a buffer outside the
 * heap) and no separate pass to check that `name` is ASCII; a name with any other unit is decoded
 * and compared. Up to the first non-ASCII unit, UTF-8 is the units themselves, so a difference
 * found there is a difference of the names.
 */
function isName(bytes: Uint8Array, start: number, length: number, name: string): boolean {
  // UTF-8 never takes fewer bytes than UTF-16 units.
  if (length < name.length) return false;
  for (let i = 0; i < name.length; i++) {
    const unit = name.charCodeAt(i);
    if (unit > 0x7f) return decodeUtf8(bytes, start, start + length) === name;
    if (bytes[start + i] !== unit) return false;
  }
  return length === name.length;
}

const childScratch: Parsed = { kind: -1, sequence: 0 };

/**
 * The children of a lock path as the server sent them: a view of the reply's jute vector of
 * strings (frames are never reused, as the data views getData hands out rely on too).
 */
export class EncodedChildren {
  private decoded: string[] | undefined;

  /** @param bytes the vector's bytes: its count, then each name's length and UTF-8 bytes */
  constructor(private readonly bytes: Uint8Array) {}

  /** The big-endian int32 at `at` (read by hand: a DataView per listing costs an object). */
  private int(at: number): number {
    return int32At(this.bytes, at);
  }

  /** Reads a getChildren reply's names, checked as `Reader.strings` checks them, not decoded. */
  static read(r: Reader): EncodedChildren {
    return new EncodedChildren(r.encodedStrings());
  }

  /** The names, decoded on the first call. */
  names(): readonly string[] {
    this.decoded ??= new Reader(this.bytes).strings();
    return this.decoded;
  }

  private name(start: number, length: number): string {
    // Decoded as the protocol reader decodes a string (Reader.ustring), so a name is the same
    // string whichever way the listing was read; with no view made for it (on Node).
    return decodeUtf8(this.bytes, start, start + length);
  }

  /** Whether `name` is among the children. */
  includes(name: string): boolean {
    if (this.decoded) return this.decoded.includes(name);
    const count = Math.max(0, this.int(0));
    for (let at = 4, i = 0; i < count; i++) {
      const length = Math.max(0, this.int(at));
      at += 4;
      if (isName(this.bytes, at, length, name)) return true;
      at += length;
    }
    return false;
  }

  /**
   * The same answer as `placeInQueue(this.names(), own, rule)`, decoding at most the contender to
   * watch (and, for two contenders with one sequence number, which only names made by hand can
   * be, the names to compare).
   * @param ownSequence `ownSequenceOf(own, rule.names)`, when the caller keeps it
   */
  place(
    own: string,
    rule: QueueRule,
    ownSequence = ownSequenceOf(own, rule.names),
  ): Place | undefined | typeof PAST_LIMIT {
    if (this.decoded) return placeInQueue(this.decoded, own, rule);
    const { names, blockedBy } = rule;
    if (Number.isNaN(ownSequence)) return undefined;
    if (ownSequence === SEQUENCE_LIMIT || ownSequence < 0) return PAST_LIMIT;
    const lockNames = namesAsBytes(names);
    const bytes = this.bytes;
    let present = false;
    let ahead = 0;
    let watchAt = -1;
    let watchLength = 0;
    let watchSequence = -1;
    const count = Math.max(0, this.int(0));
    for (let at = 4, i = 0; i < count; i++) {
      const length = Math.max(0, this.int(at));
      const start = at + 4;
      at = start + length;
      if (!parseBytesInto(bytes, start, length, lockNames, childScratch)) continue;
      const sequence = childScratch.sequence;
      if (sequence === SEQUENCE_LIMIT || sequence < 0) return PAST_LIMIT;
      if (sequence === ownSequence && isName(bytes, start, length, own)) {
        present = true;
        continue;
      }
      const isAhead =
        sequence < ownSequence || (sequence === ownSequence && this.name(start, length) < own);
      if (!isAhead || (blockedBy >= 0 && childScratch.kind !== blockedBy)) continue;
      ahead++;
      if (
        watchAt < 0 ||
        sequence > watchSequence ||
        (sequence === watchSequence && this.name(start, length) > this.name(watchAt, watchLength))
      ) {
        watchAt = start;
        watchLength = length;
        watchSequence = sequence;
      }
    }
    if (!present) return undefined;
    return { ahead, watch: watchAt < 0 ? undefined : this.name(watchAt, watchLength) };
  }
}

/** A listing as the lock engine gets it: names from the public calls, or left encoded. */
export type Children = readonly string[] | EncodedChildren;

/**
 * Our place among `children` (see {@link placeInQueue}); `ownSequence` is
 * `ownSequenceOf(own, rule.names)`, when the caller keeps it (once per node).
 */
export function placeAmong(
  children: Children,
  own: string,
  rule: QueueRule,
  ownSequence = ownSequenceOf(own, rule.names),
): Place | undefined | typeof PAST_LIMIT {
  return children instanceof EncodedChildren
    ? children.place(own, rule, ownSequence)
    : placeInQueue(children, own, rule);
}

/** The children's names. */
export function namesOf(children: Children): readonly string[] {
  return children instanceof EncodedChildren ? children.names() : children;
}
