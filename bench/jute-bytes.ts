// Big-endian jute fields written by hand, for the bench's own wire code: the floor baseline and
// the in-memory server. Independent of src/protocol on purpose: the floor must not borrow our
// client's codec, and the in-memory server's cost (part of every bench/lock-cost.ts figure) must
// not change with it.

const utf8 = new TextEncoder();

/** Builds one frame field by field, then hands out a copy with its int32 length in front. */
export class JuteFrame {
  /** Shared by every frame under construction: frames are built one at a time. */
  private static scratch = new Uint8Array(64 * 1024);
  private bytes = JuteFrame.scratch;
  private view = new DataView(this.bytes.buffer);
  private at = 4;

  private room(n: number): void {
    if (this.at + n <= this.bytes.length) return;
    const next = new Uint8Array(Math.max(this.bytes.length * 2, this.at + n));
    next.set(this.bytes);
    this.bytes = next;
    this.view = new DataView(next.buffer);
    JuteFrame.scratch = next;
  }

  int(v: number): this {
    this.room(4);
    this.view.setInt32(this.at, v);
    this.at += 4;
    return this;
  }

  long(v: bigint): this {
    this.room(8);
    this.view.setBigInt64(this.at, v);
    this.at += 8;
    return this;
  }

  bool(v: boolean): this {
    this.room(1);
    this.bytes[this.at++] = v ? 1 : 0;
    return this;
  }

  /** A jute buffer (or ustring already encoded): its length, then the bytes. */
  bytesField(value: Uint8Array): this {
    this.int(value.length);
    this.room(value.length);
    this.bytes.set(value, this.at);
    this.at += value.length;
    return this;
  }

  string(v: string): this {
    return this.bytesField(utf8.encode(v));
  }

  /** The frame: its length, then the fields (a copy; the builder is done). */
  frame(): Uint8Array {
    this.view.setInt32(0, this.at - 4);
    return this.bytes.slice(0, this.at);
  }
}
