// Request frames are small and short-lived (written, then dropped), and a typed array with a
// buffer of its own costs V8 a backing store to allocate, track and sweep for each. Small frames
// are carved out of shared slabs instead, as Node's Buffer pool does; a slab is freed once every
// frame cut from it is gone.
import type { Writer } from './writer.js';

/**
 * 64 KiB: at 256 sessions a lock acquisition cuts about 1.5 KiB (its request frames and, on
 * Node, its reads), so a 16 KiB slab lasted some ten acquisitions, and a new slab (a backing
 * store, its pages touched for the first time) cost more than all the cuts from it together.
 */
const SLAB_SIZE = 64 * 1024;
/** Larger frames get a buffer of their own: a slab pinned by one retained frame stays small. */
const POOLED_MAX = 1024;

/** Every slab's buffer, for {@link isPooled}. */
const slabBuffers = new WeakSet<ArrayBufferLike>();

/** The part of Node's Buffer (also Bun's, and Deno's and workerd's with Node compatibility) used here. */
interface UnzeroedAllocator {
  allocUnsafeSlow(size: number): Uint8Array;
}

const unzeroed = (globalThis as { Buffer?: Partial<UnzeroedAllocator> }).Buffer?.allocUnsafeSlow;

/**
 * A slab's bytes. Where the runtime has Buffer.allocUnsafeSlow, without zeroing them: nothing is
 * read from a slab before it is written (a frame is written whole, a read copied in whole, and
 * the gaps between them are never sent), and zeroing 64 KiB costs more than the allocation. A
 * plain Uint8Array over the buffer, so frames cut from it are never Buffers.
 */
function allocateSlab(): Uint8Array {
  if (!unzeroed) return new Uint8Array(SLAB_SIZE);
  const bytes = unzeroed(SLAB_SIZE);
  return new Uint8Array(bytes.buffer, bytes.byteOffset, SLAB_SIZE);
}

let slab = allocateSlab();
slabBuffers.add(slab.buffer);
let slabView = new DataView(slab.buffer, slab.byteOffset, SLAB_SIZE);
let used = 0;

function nextSlab(): void {
  slab = allocateSlab();
  slabBuffers.add(slab.buffer);
  slabView = new DataView(slab.buffer, slab.byteOffset, SLAB_SIZE);
  used = 0;
}

/**
 * The buffer a transport reads every socket into and hands on without a copy, whose bytes are
 * valid only until the transport's next read (see transports/node.ts): set once by the transport.
 */
let transientBuffer: ArrayBufferLike | null = null;

/**
 * Declares `buffer` the transient read buffer: a value read from it that may outlive the read is
 * copied out ({@link isPooled}, {@link isTransient}). One per process; returns the one before.
 * @internal
 */
export function setTransientBuffer(buffer: ArrayBufferLike | null): ArrayBufferLike | null {
  const previous = transientBuffer;
  transientBuffer = buffer;
  return previous;
}

/**
 * Whether `bytes` lie in a shared slab or in the transient read buffer: a view of a slab keeps the
 * whole slab alive, and one of the read buffer is overwritten by the next read, so a value that may
 * outlive its frame (data handed to the caller) is copied out instead (Reader.buffer).
 */
export function isPooled(bytes: Uint8Array): boolean {
  const buffer = bytes.buffer;
  return buffer === transientBuffer || slabBuffers.has(buffer);
}

/**
 * Whether `bytes` lie in the transient read buffer: a view kept past the read that brought them
 * (a listing a lock keeps while it waits) must be a copy.
 */
export function isTransient(bytes: Uint8Array): boolean {
  return bytes.buffer === transientBuffer;
}

/** A copy of `bytes` (up to the pooled size cut from a slab, as a read is). */
export function pooledCopy(bytes: Uint8Array): Uint8Array {
  const copy = pooledBuffer(bytes.length);
  copy.set(bytes);
  return copy;
}

/** Reserves `size` bytes at the free space's start; the next one starts 8-byte aligned. */
function cut(size: number): Uint8Array {
  // The constructor rather than subarray(), which looks up the species on every call.
  const out = new Uint8Array(slab.buffer, slab.byteOffset + used, size);
  used += (size + 7) & ~7;
  return out;
}

/** `size` bytes to fill (their content is undefined); small ones are carved from a shared slab. */
export function pooledBuffer(size: number): Uint8Array {
  if (size > POOLED_MAX) return new Uint8Array(size);
  if (used + size > SLAB_SIZE) nextSlab();
  return cut(size);
}

/**
 * Points `writer` at the free space of the current slab (a new slab when less than the largest
 * pooled frame is left), to write a frame in place: {@link takeWritten} then cuts it out with no
 * copy. Nothing else may take from the slab in between.
 */
export function writeInSlab(writer: Writer): void {
  if (used + POOLED_MAX > SLAB_SIZE) nextSlab();
  writer.writeAt(slab, slabView, used);
}

/**
 * What `writer` wrote since {@link writeInSlab}, as a frame of its own: cut from the slab where
 * it lies, or, when it outgrew the pooled size (or the slab), copied out of the writer's buffer.
 */
export function takeWritten(writer: Writer): Uint8Array {
  const size = writer.length;
  if (size <= POOLED_MAX && writer.writesIn(slab)) return cut(size);
  const frame = writer.copy();
  // Back on the slab: a huge frame's buffer is not kept by the writer until its next frame.
  writer.writeAt(slab, slabView, used);
  return frame;
}
