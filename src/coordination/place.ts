// Where one contender stands in a lock path's queue, found in one pass over the children: the hot
// path of every wake. No sort and no per-child allocation; the reference order (order.ts) is kept
// for sets past the sequence limit, where the order needs the creation zxids.
import { type Contender, INT32_MIN, SEQUENCE_LIMIT } from './naming.js';

/** Our place: how many contenders ahead keep us waiting, and the nearest of them (to watch). */
export interface Place {
  /** Contenders ahead that must go before we hold (0: we hold). */
  readonly ahead: number;
  /** The nearest of those (the last one ahead in queue order); undefined when `ahead` is 0. */
  readonly watch: string | undefined;
}

/** Returned instead of a place when the sequence numbers no longer tell the order. */
export const PAST_LIMIT = 'past-limit';

// The sequence rule's characters, shared with the byte-level reader (children.ts).
/** Character codes of '0' and '-' (the same in UTF-16 and in UTF-8 bytes). */
export const ZERO = 48;
export const MINUS = 45;

/**
 * The sequence number at `name[start..]` (`%010d` as the server writes it: 10 digits, or a minus
 * sign and 9 or 10 digits), or NaN. The same rule as `parseSequence`, without a regex or a slice.
 */
function sequenceAt(name: string, start: number): number {
  const length = name.length - start;
  let i = start;
  let negative = false;
  if (length === 11 || (length === 10 && name.charCodeAt(start) === MINUS)) {
    if (name.charCodeAt(start) !== MINUS) return Number.NaN;
    negative = true;
    i++;
  } else if (length !== 10) return Number.NaN;
  let value = 0;
  for (; i < name.length; i++) {
    const digit = name.charCodeAt(i) - ZERO;
    if (digit < 0 || digit > 9) return Number.NaN;
    value = value * 10 + digit;
  }
  if (negative) value = -value;
  return value >= INT32_MIN && value <= SEQUENCE_LIMIT ? value : Number.NaN;
}

/** Parsed in place (one object per queue, reused): the lock name index and sequence of a child. */
export interface Parsed {
  kind: number;
  sequence: number;
}

/**
 * Parses `name` as `parseContender` does (the text after the last occurrence of a lock name must be
 * a sequence number; with several lock names, the latest occurrence wins) into `out`; false when it
 * is not a contender. A sequence is the last 10 or 11 characters and holds no letter, and every
 * lock name does, so an occurrence followed by a sequence can only end 10 or 11 characters before
 * the end: two places to look instead of a search through the name.
 */
export function parseInto(name: string, names: readonly string[], out: Parsed): boolean {
  let bestAt = -1;
  for (let k = 0; k < names.length; k++) {
    const lockName = names[k]!;
    // The later place first: when the name occurs there, that is its last occurrence.
    let at = name.length - 10 - lockName.length;
    if (!name.startsWith(lockName, at)) {
      at--;
      if (!name.startsWith(lockName, at)) continue;
    }
    if (at < 0 || at <= bestAt) continue;
    const sequence = sequenceAt(name, at + lockName.length);
    if (Number.isNaN(sequence)) continue;
    out.kind = k;
    out.sequence = sequence;
    bestAt = at;
  }
  return bestAt >= 0;
}

/** What decides a place: the contender names, and which of them keep a contender waiting. */
export interface QueueRule {
  /** Names that count as contenders; other children are ignored. */
  readonly names: readonly string[];
  /** Index in `names` of the only kind that blocks (a reader waits for writers); -1: every kind. */
  readonly blockedBy: number;
}

const scratch: Parsed = { kind: -1, sequence: 0 };

/**
 * The sequence number of our node `own` under `names` (as {@link parseInto} reads it), or NaN when
 * `own` is no contender: the lock engine reads it once per node instead of on every listing.
 */
export function ownSequenceOf(own: string, names: readonly string[]): number {
  return parseInto(own, names, scratch) ? scratch.sequence : Number.NaN;
}

/**
 * Our place among `children` (one pass, no sort), or undefined when our node `own` is not among
 * them, or {@link PAST_LIMIT} when some contender is at the sequence limit or past a wrap (then
 * only the creation order is sound: see {@link placeInOrder}). Below the limit sequence numbers
 * are the creation order, and `'numeric'` and `'interop'` order agree (ties by name), so one rule
 * serves both.
 */
export function placeInQueue(
  children: readonly string[],
  own: string,
  rule: QueueRule,
): Place | undefined | typeof PAST_LIMIT {
  const { names, blockedBy } = rule;
  if (!parseInto(own, names, scratch)) return undefined;
  const ownSequence = scratch.sequence;
  if (ownSequence === SEQUENCE_LIMIT || ownSequence < 0) return PAST_LIMIT;
  let present = false;
  let ahead = 0;
  let watch: string | undefined;
  let watchSequence = -1;
  for (const child of children) {
    if (!parseInto(child, names, scratch)) continue;
    const sequence = scratch.sequence;
    if (sequence === SEQUENCE_LIMIT || sequence < 0) return PAST_LIMIT;
    // Comparing the numbers first spares a string comparison for every other contender.
    if (sequence === ownSequence && child === own) {
      present = true;
      continue;
    }
    const isAhead = sequence < ownSequence || (sequence === ownSequence && child < own);
    if (!isAhead || (blockedBy >= 0 && scratch.kind !== blockedBy)) continue;
    ahead++;
    if (
      watch === undefined ||
      sequence > watchSequence ||
      (sequence === watchSequence && child > watch)
    ) {
      watch = child;
      watchSequence = sequence;
    }
  }
  return present ? { ahead, watch } : undefined;
}

/**
 * Our place in `sorted` (contenders already in queue order, as `queueOrder` gives them), or
 * undefined when `own` is not among them: the same decision as {@link placeInQueue}.
 */
export function placeInOrder(
  sorted: readonly Contender[],
  own: string,
  rule: QueueRule,
): Place | undefined {
  const blocker = rule.blockedBy >= 0 ? rule.names[rule.blockedBy] : undefined;
  let ahead = 0;
  let watch: string | undefined;
  for (const contender of sorted) {
    if (contender.name === own) return { ahead, watch };
    if (blocker !== undefined && contender.lockName !== blocker) continue;
    ahead++;
    watch = contender.name;
  }
  return undefined;
}
