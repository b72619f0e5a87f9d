// The order in which a 3.8 server deletes a closing session's ephemerals: it copies the session's
// java.util.HashSet of paths (HashSet.clone re-inserts into a table sized for the current count)
// and walks the copy. A HashSet iterates by bucket (the spread String.hashCode masked by the
// table size), and within a bucket in the order the entries were inserted. Event order on the
// wire follows, so the model reproduces it.

/** java.lang.String.hashCode (UTF-16 code units, 32-bit wrap). */
function javaHash(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
  return h;
}

/** HashMap.hash: the high half folded into the low half. */
function spread(text: string): number {
  const h = javaHash(text);
  return h ^ (h >>> 16);
}

/** Capacity of a default HashSet that once held `peak` entries (16, doubled past 0.75 load). */
function grownCapacity(peak: number): number {
  let cap = 16;
  while (peak > cap * 0.75) cap *= 2;
  return cap;
}

/** Capacity HashMap.putMapEntries chooses for a copy of `size` entries. */
function copyCapacity(size: number): number {
  const wanted = Math.trunc(size / 0.75 + 1);
  let cap = 1;
  while (cap < wanted) cap *= 2;
  while (size > cap * 0.75) cap *= 2;
  return cap;
}

function byBucket(paths: readonly string[], cap: number): string[] {
  // Array.prototype.sort is stable: ties keep their order (insertion order within a bucket).
  return [...paths].sort((a, b) => (spread(a) & (cap - 1)) - (spread(b) & (cap - 1)));
}

/**
 * The iteration order of a copy of a HashSet<String> that holds `paths` (given in insertion
 * order) and once held `peak` entries.
 */
export function hashSetCopyOrder(paths: readonly string[], peak: number): string[] {
  if (paths.length === 0) return [];
  const source = byBucket(paths, grownCapacity(Math.max(peak, paths.length)));
  return byBucket(source, copyCapacity(paths.length));
}
