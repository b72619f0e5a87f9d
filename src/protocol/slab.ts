// Request frames are small and short-lived (written, then dropped), and a typed array with a
// buffer of its own costs V8 a backing store to allocate, track and sweep for each. Small frames
// are carved out of shared slabs instead, as Node's Buffer pool does; a slab is freed once every
// frame cut from it is gone.

const SLAB_SIZE = 16 * 1024;
/** Larger frames get a buffer of their own: a slab pinned by one retained frame stays small. */
const POOLED_MAX = 1024;

let slab = new Uint8Array(SLAB_SIZE);
let used = 0;

/** `size` bytes to fill (their content is undefined); small ones are carved from a shared slab. */
export function pooledBuffer(size: number): Uint8Array {
  if (size > POOLED_MAX) return new Uint8Array(size);
  if (used + size > SLAB_SIZE) {
    slab = new Uint8Array(SLAB_SIZE);
    used = 0;
  }
  // The constructor rather than subarray(), which looks up the species on every call.
  const out = new Uint8Array(slab.buffer, used, size);
  // The next one starts 8-byte aligned.
  used += (size + 7) & ~7;
  return out;
}
