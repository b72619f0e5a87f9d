// Who holds the lock and whom to wait for: pure functions over the children of a lock path.
import { type Contender, parseContender } from './naming.js';

/**
 * The contenders among `children`, in queue order: by sequence number compared numerically,
 * then by name. Children that are not contenders are left out, never fatal.
 *
 * Sequence numbers are signed 32-bit per parent and wrap to -2147483648 after 2^31 - 1 creations
 * under one lock path; contenders that straddle the wrap are misordered (as in Curator and kazoo).
 */
export function sortContenders(
  children: readonly string[],
  lockNames: readonly string[],
): Contender[] {
  const contenders: Contender[] = [];
  for (const child of children) {
    const contender = parseContender(child, lockNames);
    if (contender) contenders.push(contender);
  }
  return contenders.sort(
    (a, b) => a.sequence - b.sequence || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
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
