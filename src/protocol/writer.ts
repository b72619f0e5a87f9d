/**
 * Jute binary writer: big-endian, two's complement, `-1` length for null
 * buffers/strings/vectors (distinct from an empty one).
 *
 * One growable buffer (doubling) plus a DataView over it; `finish()` hands out a
 * view of the written bytes without copying.
 */

import { makeError } from './errors.js';
import { utf8Write } from './utf8.js';

const encoder = new TextEncoder();

/**
 * Strings up to this length are written by a plain loop when they are ASCII (paths, schemes,
 * node names: nearly every string a request carries): cheaper than a call into the runtime's
 * encoder, whose fixed cost dominates for short strings.
 */
const ASCII_LOOP_MAX = 128;

/** Writes `v` at `at` if it is all ASCII and returns its length; -1 (some bytes written) if not. */
function writeAscii(v: string, bytes: Uint8Array, at: number): number {
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c >= 0x80) return -1;
    bytes[at + i] = c;
  }
  return v.length;
}

/** Frames up to this size are copied out by a loop (see {@link Writer.copyInto}). */
const COPY_LOOP_MAX = 256;

const LONG_MIN = -(1n << 63n);
const LONG_MAX = (1n << 63n) - 1n;

export class Writer {
  private bytes: Uint8Array;
  private view: DataView;
  private pos = 0;
  /**
   * Where what is written starts in `bytes`: 0, except while writing in place into someone
   * else's buffer (see {@link writeAt}).
   */
  private start = 0;

  constructor(initialCapacity = 256) {
    this.bytes = new Uint8Array(Math.max(16, initialCapacity));
    this.view = new DataView(this.bytes.buffer);
  }

  /** Forgets what was written, keeping the buffer (for a reused scratch writer). */
  reset(): this {
    this.pos = this.start;
    return this;
  }

  /**
   * Writes from now on in place into `bytes` (whose DataView is `view`) from `start`, forgetting
   * what was written: the bytes between `start` and the end of `bytes` must be free for it. Should
   * it need more room, it moves what it wrote to a buffer of its own, as a growing writer does
   * (see {@link writesIn}). For request frames written straight into a shared slab (slab.ts)
   * instead of into a scratch buffer and copied.
   */
  writeAt(bytes: Uint8Array, view: DataView, start: number): void {
    this.bytes = bytes;
    this.view = view;
    this.start = start;
    this.pos = start;
  }

  /** Whether what was written lies in `bytes` from the start given to {@link writeAt}. */
  writesIn(bytes: Uint8Array): boolean {
    return this.bytes === bytes;
  }

  /** Size of the underlying buffer. */
  get capacity(): number {
    return this.bytes.length;
  }

  /** Replaces the buffer with a smaller empty one. */
  shrink(capacity: number): void {
    this.bytes = new Uint8Array(Math.max(16, capacity));
    this.view = new DataView(this.bytes.buffer);
    this.start = 0;
    this.pos = 0;
  }

  /** A copy of the written bytes, exactly sized (the buffer stays reusable). */
  copy(): Uint8Array {
    return this.bytes.slice(this.start, this.pos);
  }

  /**
   * Copies the written bytes to the start of `target` (at least {@link length} long). Unlike
   * `target.set(finish())`, a short frame (every request a lock makes) costs no view: it is copied
   * by a plain loop.
   */
  copyInto(target: Uint8Array): void {
    const start = this.start;
    const n = this.pos - start;
    if (n > COPY_LOOP_MAX) {
      target.set(this.bytes.subarray(start, this.pos));
      return;
    }
    const bytes = this.bytes;
    for (let i = 0; i < n; i++) target[i] = bytes[start + i]!;
  }

  /** Bytes written so far. */
  get length(): number {
    return this.pos - this.start;
  }

  /** jute `int`: 4 bytes, signed. Rejects values that would silently wrap. */
  int(v: number): this {
    // `(v | 0) === v` holds exactly for the integers in int32 range (and -0, written as 0).
    if (typeof v !== 'number' || (v | 0) !== v) {
      throw makeError('BADARGUMENTS', `int out of range: ${String(v)}`);
    }
    this.ensure(4);
    this.view.setInt32(this.pos, v);
    this.pos += 4;
    return this;
  }

  /** jute `long`: 8 bytes, signed. bigint because zxids and session ids exceed 2^53. */
  long(v: bigint): this {
    if (typeof v !== 'bigint' || v < LONG_MIN || v > LONG_MAX) {
      throw makeError('BADARGUMENTS', `long out of range: ${String(v)}`);
    }
    this.ensure(8);
    this.view.setBigInt64(this.pos, v);
    this.pos += 8;
    return this;
  }

  /** jute `boolean`: one byte, 1 or 0. */
  bool(v: boolean): this {
    this.ensure(1);
    this.bytes[this.pos++] = v ? 1 : 0;
    return this;
  }

  /** jute `buffer`: int length + bytes; null is length -1. */
  buffer(v: Uint8Array | null): this {
    if (v === null) return this.int(-1);
    this.int(v.length);
    return this.raw(v);
  }

  /** jute `ustring`: int byte length + standard UTF-8; null is length -1. */
  ustring(v: string | null): this {
    if (v === null) return this.int(-1);
    // Worst case is 3 bytes per UTF-16 unit; reserve that so encodeInto never truncates.
    const max = v.length * 3;
    this.ensure(4 + max);
    const start = this.pos + 4;
    let written: number;
    // On Node, its native write (see utf8.ts); elsewhere the loop, or the encoder past ASCII.
    if (utf8Write !== undefined) written = utf8Write.call(this.bytes, v, start, max);
    else {
      written = v.length <= ASCII_LOOP_MAX ? writeAscii(v, this.bytes, start) : -1;
      if (written < 0) {
        written = encoder.encodeInto(v, this.bytes.subarray(start, start + max)).written;
      }
    }
    this.view.setInt32(this.pos, written);
    this.pos = start + written;
    return this;
  }

  /** jute `vector<T>`: int count + each item inline; null is count -1. */
  vector<T>(items: readonly T[] | null, writeItem: (w: Writer, item: T) => void): this {
    if (items === null) return this.int(-1);
    this.int(items.length);
    for (const item of items) writeItem(this, item);
    return this;
  }

  /** Raw bytes with no length prefix. */
  raw(bytes: Uint8Array): this {
    this.ensure(bytes.length);
    this.bytes.set(bytes, this.pos);
    this.pos += bytes.length;
    return this;
  }

  /** Overwrites an int at an earlier offset (used to patch frame lengths). */
  patchInt(offset: number, v: number): this {
    if (offset < 0 || offset + 4 > this.length) {
      throw makeError('BADARGUMENTS', `patch offset ${offset} outside written bytes`);
    }
    this.view.setInt32(this.start + offset, v);
    return this;
  }

  /** The written bytes (a view, not a copy). The writer should not be reused afterwards. */
  finish(): Uint8Array {
    return this.bytes.subarray(this.start, this.pos);
  }

  private ensure(extra: number): void {
    if (this.pos + extra <= this.bytes.length) return;
    // Out of room (in place, too: the written bytes move to a buffer of the writer's own).
    const written = this.length;
    const needed = written + extra;
    let capacity = Math.max(16, this.bytes.length - this.start) * 2;
    while (capacity < needed) capacity *= 2;
    const next = new Uint8Array(capacity);
    next.set(this.bytes.subarray(this.start, this.pos));
    this.bytes = next;
    this.view = new DataView(next.buffer);
    this.start = 0;
    this.pos = written;
  }
}

/**
 * Builds one length-prefixed frame: reserves 4 bytes, runs `body`, then patches
 * the length (which excludes its own 4 bytes).
 */
export function frame(body: (w: Writer) => void, initialCapacity?: number): Uint8Array {
  const w = new Writer(initialCapacity);
  w.int(0);
  body(w);
  w.patchInt(0, w.length - 4);
  return w.finish();
}
