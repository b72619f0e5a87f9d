/**
 * Jute binary reader: a cursor over a Uint8Array. Buffers come back as
 * `subarray` views (no copies). Every malformed input (short read, length < -1,
 * length beyond the remaining bytes, vector count that cannot fit) throws a
 * ProtocolError before anything is allocated, never a RangeError.
 */

import { ProtocolError } from './errors.js';
import { isPooled, isTransient, pooledCopy } from './slab.js';
import { decodeUtf8 } from './utf8.js';

/**
 * A vector of strings up to this many bytes is decoded in one call and cut apart. The names are
 * slices of one string, and a slice keeps its whole source string alive: the bound keeps what one
 * retained name can hold on to small.
 */
const BULK_STRINGS_MAX = 4096;

/**
 * The big-endian int32 at `at` (the caller checked that four bytes are there). Shared with the
 * lock engine's listing view; not part of the package's API.
 * @internal
 */
export function int32At(bytes: Uint8Array, at: number): number {
  return (bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!;
}

const longScratch = new Uint8Array(8);
const longView = new DataView(longScratch.buffer);

// Integers are read off the bytes rather than through a DataView: a reader is made for every
// frame, and a DataView's construction is a call into the runtime that cost about as much as
// reading the whole reply header.
export class Reader {
  private bytes: Uint8Array;
  private pos: number;
  /** Where the input starts and ends in `bytes` (a frame inside a chunk: see {@link reset}). */
  private start: number;
  private end: number;

  constructor(bytes: Uint8Array, start = 0, end = bytes.length) {
    this.bytes = bytes;
    this.pos = start;
    this.start = start;
    this.end = end;
  }

  /**
   * Reads `bytes[start..end)` from the start: one reader reused for frame after frame (the reply
   * path), and no view made per frame. Whatever is read from it must be done with first: a
   * buffer or encoded list read earlier is a view of its own, unaffected.
   * @internal
   */
  reset(bytes: Uint8Array, start: number, end: number): this {
    this.bytes = bytes;
    this.pos = start;
    this.start = start;
    this.end = end;
    return this;
  }

  /** How many bytes were read. */
  get offset(): number {
    return this.pos - this.start;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  int(): number {
    this.need(4, 'int');
    const v = int32At(this.bytes, this.pos);
    this.pos += 4;
    return v;
  }

  long(): bigint {
    this.need(8, 'long');
    // Through one module-wide 8-byte scratch and its DataView: one bigint made per long, where
    // putting it together from two words would make four.
    const bytes = this.bytes;
    const at = this.pos;
    for (let i = 0; i < 8; i++) longScratch[i] = bytes[at + i]!;
    this.pos += 8;
    return longView.getBigInt64(0);
  }

  /** Any non-zero byte is true, as in Java's BinaryInputArchive. */
  bool(): boolean {
    this.need(1, 'boolean');
    return this.bytes[this.pos++] !== 0;
  }

  /** jute `ustring` that the protocol never sends as null: a null reads as ''. */
  string(): string {
    return this.ustring() ?? '';
  }

  /** A value of any jute type (a nested record, a vector): `f.of` of a record declaration. */
  of<T>(type: { read(r: Reader): T }): T {
    return type.read(this);
  }

  /**
   * jute `buffer`: a view into the input (not a copy), or, when the input lies in a shared slab (a
   * small socket read, see slab.ts), a copy, as a view would keep the whole slab alive for as long
   * as the caller keeps the value; null for length -1.
   */
  buffer(): Uint8Array | null {
    const bytes = this.bytesField();
    return bytes !== null && isPooled(bytes) ? bytes.slice() : bytes;
  }

  /** jute `ustring`, decoded where it lies (no view of its bytes); null for length -1. */
  ustring(): string | null {
    const len = this.length('buffer');
    if (len < 0) return null;
    const start = this.pos;
    this.pos += len;
    return decodeUtf8(this.bytes, start, this.pos);
  }

  /** A length-prefixed field as a view into the input; null for length -1. */
  private bytesField(): Uint8Array | null {
    const len = this.length('buffer');
    if (len < 0) return null;
    const out = this.view(this.pos, len);
    this.pos += len;
    return out;
  }

  /**
   * jute `vector<ustring>`: null reads as [], null elements as ''. Child lists are the largest
   * replies a lock reads, and one decode per name costs a view and a call into the decoder each.
   * A short list is decoded in one call instead, length prefixes and all, and cut apart: when the
   * text has exactly as many UTF-16 units as the bytes had, every byte became one unit (no
   * sequence decodes to more units than bytes, and every multi-byte one, a BOM included, to
   * fewer), so byte offsets are text offsets and each slice is what decoding the name alone gives.
   */
  strings(): string[] {
    const count = this.count();
    const items: string[] = [];
    const start = this.pos;
    // The lengths first: a malformed one throws before anything is decoded.
    for (let i = 0; i < count; i++) {
      const len = this.length('buffer');
      if (len > 0) this.pos += len;
    }
    const end = this.pos;
    if (end - start <= BULK_STRINGS_MAX) {
      const text = decodeUtf8(this.bytes, start, end);
      if (text.length === end - start) {
        for (let at = start, i = 0; i < count; i++) {
          const len = int32At(this.bytes, at);
          at += 4;
          if (len <= 0) {
            items.push('');
            continue;
          }
          items.push(text.slice(at - start, at - start + len));
          at += len;
        }
        return items;
      }
    }
    this.pos = start;
    for (let i = 0; i < count; i++) items.push(this.ustring() ?? '');
    return items;
  }

  /**
   * jute `vector<ustring>` left encoded: a view of its bytes (the count, then each length and
   * name; not a copy, as {@link buffer}, unless they lie in the transient read buffer), checked
   * as {@link strings} checks them. For a reader that looks at a few names of a long list (a
   * lock's queue) without a string per name; `new Reader(view).strings()` decodes it. A copy
   * would cost a new backing store per listing, which V8 counts as external memory: at hundreds
   * of contenders its growth alone set off a full garbage collection every few hundred
   * milliseconds.
   */
  encodedStrings(): Uint8Array {
    const start = this.pos;
    const count = this.count();
    for (let i = 0; i < count; i++) {
      const len = this.length('buffer');
      if (len > 0) this.pos += len;
    }
    const encoded = this.view(start, this.pos - start);
    // Kept past the read (a lock keeps its listing while it waits): the transient read buffer is
    // overwritten by the next read, so copy out of it (into a slab, as a small read would be).
    return isTransient(encoded) ? pooledCopy(encoded) : encoded;
  }

  /**
   * `length` bytes of the input from `at`, as a plain Uint8Array view: made with the constructor,
   * since `subarray` asks for the species on every call and, on a Node Buffer (a socket's chunk),
   * would hand out a Buffer.
   */
  private view(at: number, length: number): Uint8Array {
    const bytes = this.bytes;
    return new Uint8Array(bytes.buffer, bytes.byteOffset + at, length);
  }

  /**
   * `count` items read with `readItem`; null for count -1. Every jute item takes
   * at least one byte, so a count above `remaining` is malformed: refuse it before
   * looping (a corrupt count must not drive a huge allocation or a long loop).
   */
  vector<T>(readItem: (r: Reader) => T): T[] | null {
    const count = this.length('vector');
    if (count < 0) return null;
    const items: T[] = [];
    for (let i = 0; i < count; i++) items.push(readItem(this));
    return items;
  }

  /**
   * A vector's item count, with null (-1) as 0: for readers that loop themselves
   * (jute `list`), with the same refusal of counts that cannot fit as `vector`.
   */
  count(): number {
    const count = this.length('vector');
    return count < 0 ? 0 : count;
  }

  /** Reads a length/count field: -1 (null) or 0..remaining; anything else is malformed. */
  private length(what: string): number {
    const at = this.offset;
    const len = this.int();
    if (len < -1) throw new ProtocolError(`negative ${what} length ${len} at offset ${at}`);
    if (len > this.remaining) {
      throw new ProtocolError(
        `${what} length ${len} at offset ${at} exceeds the ${this.remaining} remaining bytes`,
      );
    }
    return len;
  }

  private need(n: number, what: string): void {
    if (this.pos + n > this.end) {
      throw new ProtocolError(
        `short read: ${what} needs ${n} bytes at offset ${this.offset}, ${this.remaining} left`,
      );
    }
  }
}
