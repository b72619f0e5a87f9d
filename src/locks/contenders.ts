// Who holds the lock and whom to wait for: pure functions over the children of a lock path.
import { type Contender, parseContender } from './naming.js';

/**
 * Queue order of contenders. Every client sharing a lock path must use the same order, or two
 * of them can each see itself first and both hold the lock.
 * - `'interop'` (default): the sequence text compared as a string, as Curator (Java
 *   `String.compareTo` on the text after the lock name) and kazoo (its regex group) do. Identical
 *   to numeric order for the ten-digit sequences of the first 2^31 - 1 creations under a path.
 *   Once the server's signed 32-bit counter has wrapped, negative sequences (`-2147483648`, ...)
 *   sort before positive ones but in reverse creation order among themselves: still one total
 *   order shared by every client (so still mutual exclusion), only not FIFO.
 * - `'numeric'`: the sequence compared as a signed 32-bit integer: FIFO also after the wrap
 *   (except across the wrap itself), but it disagrees with Curator and kazoo there, so use it only
 *   where no Curator or kazoo process contends on the same path.
 */
export type SequenceOrder = 'interop' | 'numeric';

/**
 * The contenders among `children`, in queue order (see {@link SequenceOrder}), ties by name.
 * Children that are not contenders are left out, never fatal.
 */
export function sortContenders(
  children: readonly string[],
  lockNames: readonly string[],
  order: SequenceOrder = 'interop',
): Contender[] {
  const contenders: Contender[] = [];
  for (const child of children) {
    const contender = parseContender(child, lockNames);
    if (contender) contenders.push(contender);
  }
  const byName = (a: Contender, b: Contender) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  if (order === 'numeric') {
    return contenders.sort((a, b) => a.sequence - b.sequence || byName(a, b));
  }
  return contenders.sort(
    (a, b) =>
      (a.sequenceText < b.sequenceText ? -1 : a.sequenceText > b.sequenceText ? 1 : 0) ||
      byName(a, b),
  );
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
 * A reader holds when no writer is ahead of it. Otherwise it watches the last writer ahead of it:
 * when that one goes, either the reader holds or an earlier writer remains and becomes the next
 * to watch. (Curator watches the first writer instead, which wakes readers queued behind later
 * writers for nothing; the condition for holding is the same, so the two interoperate.)
 */
export function readerDecision(
  sorted: readonly Contender[],
  own: number,
  writeLockName: string,
): Decision {
  for (let i = own - 1; i >= 0; i--) {
    const contender = sorted[i]!;
    if (contender.lockName === writeLockName) return { acquired: false, watch: contender.name };
  }
  return { acquired: true };
}
