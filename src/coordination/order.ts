// The contender-order rule, written once: the queue order of the contenders under one path (who
// holds and whom to wait for follows from it). Every other reader of a queue - the one-pass place
// (place.ts), the byte-level place (children.ts), inspection, elections, semaphores - must agree
// with `sortContenders` here; test/unit/coordination/order-property.test.ts checks that they do.
import { type Contender, parseContender, SEQUENCE_LIMIT } from './naming.js';

/**
 * Queue order of contenders. Every client sharing a lock path must use the same order, or two
 * of them can each see itself first and both hold the lock.
 * - `'numeric'` (default): creation order, always. The server numbers a sequential child with
 *   the parent's signed 32-bit child counter, which counts creations under the parent, so below
 *   2^31 - 1 the sequence number is the creation order. At the limit the number stops meaning
 *   anything: ZooKeeper 3.5 and later stop the counter at 2147483647 (every later child gets that
 *   same number), older servers wrap it to -2147483648 and count on. So as soon as any contender
 *   carries 2147483647 or a negative number, contenders are ordered by their creation zxid
 *   (`czxid`, 64 bits, strictly increasing in creation order) instead, read with one `exists` per
 *   contender. Both rules give the creation order, so clients that see different sets agree on
 *   every pair, and a newcomer never sorts ahead of an older contender: no two processes of this
 *   library can both hold.
 * - `'interop'`: the sequence text compared as a string, exactly as Curator and kazoo sort. The
 *   same as `'numeric'` until the counter reaches its limit; after that a newcomer can sort ahead
 *   of an older holder (equal numbers, or negative text sorting first) and be granted the lock
 *   while the older one still holds it. Only for deployments that keep the counter far from the
 *   limit (see docs/locks.md, "Order at the limit of the sequence counter").
 */
export type SequenceOrder = 'interop' | 'numeric';

export { SEQUENCE_LIMIT } from './naming.js';

/**
 * Whether sequence numbers no longer tell the creation order of these contenders (one is at the
 * counter's limit, or past a wrap): {@link byCreation} must order them.
 */
export function pastSequenceLimit(contenders: readonly Contender[]): boolean {
  return contenders.some((c) => c.sequence === SEQUENCE_LIMIT || c.sequence < 0);
}

const byName = (a: Contender, b: Contender) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * The rule itself: negative when `a` is ahead of `b` in the queue while sequence numbers tell the
 * order (see {@link SequenceOrder}). `'numeric'`: by sequence number; `'interop'`: by the sequence
 * text, as Curator and kazoo compare it; ties (only names made by hand share a number) by name.
 */
export function compareContenders(a: Contender, b: Contender, order: SequenceOrder): number {
  if (order === 'numeric') return a.sequence - b.sequence || byName(a, b);
  return (
    (a.sequenceText < b.sequenceText ? -1 : a.sequenceText > b.sequenceText ? 1 : 0) || byName(a, b)
  );
}

/**
 * The reference queue order: the contenders among `children`, sorted by
 * {@link compareContenders}. Children that are not contenders are left out, never fatal. With
 * `'numeric'`, a set that is {@link pastSequenceLimit} must be reordered with {@link byCreation}.
 */
export function sortContenders(
  children: readonly string[],
  lockNames: readonly string[],
  order: SequenceOrder = 'numeric',
): Contender[] {
  const contenders: Contender[] = [];
  for (const child of children) {
    const contender = parseContender(child, lockNames);
    if (contender) contenders.push(contender);
  }
  return contenders.sort((a, b) => compareContenders(a, b, order));
}

/**
 * Creation order: the contenders whose creation zxid is known (`czxids`; the others are gone),
 * by that zxid. Two nodes never share a czxid.
 */
export function byCreation(
  contenders: readonly Contender[],
  czxids: ReadonlyMap<string, bigint>,
): Contender[] {
  const known = contenders.filter((c) => czxids.has(c.name));
  return known.sort((a, b) => {
    const x = czxids.get(a.name)!;
    const y = czxids.get(b.name)!;
    return x < y ? -1 : x > y ? 1 : byName(a, b);
  });
}

/** Either the lock is ours, or we wait for the node named `watch` to go. */
export type Decision =
  | { readonly acquired: true }
  | { readonly acquired: false; readonly watch: string };

/**
 * Curator's standard driver: the first `maxLeases` contenders hold; any other watches the one
 * `maxLeases` places ahead of it (its immediate predecessor for a mutex), so one release wakes
 * one waiter.
 */
export function predecessorDecision(
  sorted: readonly Contender[],
  own: number,
  maxLeases = 1,
): Decision {
  if (own < maxLeases) return { acquired: true };
  const ahead = sorted[own - maxLeases];
  if (!ahead) throw new RangeError(`contender index ${own} out of range`);
  return { acquired: false, watch: ahead.name };
}

/**
 * A reader holds when no contender that `blocks` it (a writer: `blocks` is asked with each lock
 * name) is ahead of it. Otherwise it watches the last such one ahead of it: when that one goes,
 * either the reader holds or an earlier writer remains and becomes the next to watch. (Curator
 * watches the first writer instead, which wakes readers queued behind later writers for nothing;
 * the condition for holding is the same, so the two interoperate.)
 */
export function readerDecision(
  sorted: readonly Contender[],
  own: number,
  blocks: (lockName: string) => boolean,
): Decision {
  for (let i = own - 1; i >= 0; i--) {
    const contender = sorted[i]!;
    if (blocks(contender.lockName)) return { acquired: false, watch: contender.name };
  }
  return { acquired: true };
}
