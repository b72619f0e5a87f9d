// Reentry: a second lease on a node this process already holds, for a caller that passes the
// first lease as `reentrantFrom` (a lease of the same lock, kind and client).
import { badArguments } from './errors.js';
import { holdingOf } from './lease.js';
import type { Lease, LockClient } from './types.js';

/**
 * Reentry: a second lease on the node `lease` stands for, if `lease` is a live lease of this lock
 * (same client and lock path, accepted kind). Throws otherwise.
 */
export function reenter(
  lease: Lease,
  client: LockClient,
  lockPath: string,
  kinds: readonly string[],
): Lease {
  const holding = holdingOf(lease);
  if (
    !holding ||
    holding.spec.client !== client ||
    holding.spec.lockPath !== lockPath ||
    !kinds.includes(holding.spec.kind)
  ) {
    throw badArguments('reentrantFrom is not a lease of this lock', lockPath);
  }
  if (lease.released || holding.ended)
    throw badArguments('reentrantFrom lease was released', lockPath);
  if (holding.lostReason) throw holding.lostReason;
  return holding.lease();
}
