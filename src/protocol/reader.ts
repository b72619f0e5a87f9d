/**
 * Jute binary reader: a cursor over a Uint8Array. Buffers come back as
 * `subarray` views (no copies). Every malformed input (short read, length < -1,
 * length beyond the remaining bytes, vector count that cannot fit) throws a
 * ProtocolError before anything is allocated, never a RangeError.
 */

import { ProtocolError } from './errors.js';

const decoder = new TextDecoder('utf-8');

export class Reader {
  private readonly bytes: Uint8Array;
  private readonly view: DataView;
  private pos = 0;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get offset(): number {
    return this.pos;
  }

  get remaining(): number {
    return this.bytes.length - this.pos;
  }

  int(): number {
    this.need(4, 'int');
    const v = this.view.getInt32(this.pos);
    this.pos += 4;
    return v;
  }

  long(): bigint {
    this.need(8, 'long');
    const v = this.view.getBigInt64(this.pos);
    this.pos += 8;
    return v;
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

  /** A view into the input (not a copy); null for length -1. */
  buffer(): Uint8Array | null {
    const len = this.length('buffer');
    if (len < 0) return null;
    const out = this.bytes.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }

  ustring(): string | null {
    const bytes = this.buffer();
    return bytes === null ? null : decoder.decode(bytes);
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
    const at = this.pos;
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
    if (this.pos + n > this.bytes.length) {
      throw new ProtocolError(
        `short read: ${what} needs ${n} bytes at offset ${this.pos}, ${this.remaining} left`,
      );
    }
  }
}
