// Request frames written in place into shared slabs (slab.ts): each frame is its own bytes,
// whatever is encoded after it, across slabs, over the pooled size, or after an encoding that
// failed half-way; and a Writer writing in place behaves as one writing into its own buffer.
import { describe, expect, it } from 'vitest';
import { codecs, encodeRequest } from '../../../src/protocol/codecs.js';
import { Reader } from '../../../src/protocol/reader.js';
import { Writer } from '../../../src/protocol/writer.js';
import { readRequestHeader } from '../../../src/testing/wire/server-codecs.js';
import { hex } from './helpers.js';

/** A create frame's xid and path, read back from its bytes. */
function readCreate(frame: Uint8Array): { length: number; xid: number; path: string } {
  const length = new DataView(frame.buffer, frame.byteOffset).getInt32(0);
  const reader = new Reader(frame.subarray(4));
  const { xid } = readRequestHeader(reader);
  return { length, xid, path: reader.string() };
}

const create = (xid: number, path: string, size = 0) =>
  encodeRequest(xid, codecs.create, {
    path,
    data: new Uint8Array(size).fill(xid & 0xff),
    acl: [{ perms: 31, id: { scheme: 'world', id: 'anyone' } }],
    flags: 0,
  });

describe('encodeRequest', () => {
  it('gives every frame bytes of its own, across slabs and pooled sizes', () => {
    const frames: { frame: Uint8Array; copy: string; xid: number; path: string }[] = [];
    // Sizes around the pooled limit (1,024) and enough frames to fill several 16 KiB slabs.
    const sizes = [0, 10, 900, 980, 1_000, 1_100, 5_000, 0, 300];
    for (let xid = 1; xid <= 400; xid++) {
      const path = `/lock/_c_${xid}-lock-`;
      const frame = create(xid, path, sizes[xid % sizes.length]!);
      frames.push({ frame, copy: hex(frame), xid, path });
    }
    for (const { frame, copy, xid, path } of frames) {
      expect(hex(frame)).toBe(copy);
      const read = readCreate(frame);
      expect(read).toEqual({ length: frame.length - 4, xid, path });
      expect(Object.getPrototypeOf(frame)).toBe(Uint8Array.prototype);
    }
  });

  it('is unharmed by an encoding that failed half-way', () => {
    const before = create(1, '/a');
    const copy = hex(before);
    // An ACL's perms out of the int range fails after the path was written.
    expect(() =>
      encodeRequest(2, codecs.create, {
        path: '/b/'.padEnd(2_000, 'x'),
        data: new Uint8Array(0),
        acl: [{ perms: 2 ** 40, id: { scheme: 'world', id: 'anyone' } }],
        flags: 0,
      }),
    ).toThrow(/int out of range/);
    const after = create(3, '/c');
    expect(hex(before)).toBe(copy);
    expect(readCreate(after)).toMatchObject({ xid: 3, path: '/c' });
    expect(readCreate(before)).toMatchObject({ xid: 1, path: '/a' });
  });
});

describe('Writer.writeAt', () => {
  it('writes in place from the start given, as a writer of its own buffer would', () => {
    const target = new Uint8Array(64).fill(0xee);
    const w = new Writer(16);
    w.writeAt(target, new DataView(target.buffer), 8);
    w.int(0).int(7).ustring('/x').long(-2n).bool(true);
    w.patchInt(0, w.length - 4);
    const own = new Writer(16);
    own.int(0).int(7).ustring('/x').long(-2n).bool(true);
    own.patchInt(0, own.length - 4);
    expect(w.length).toBe(own.length);
    expect(w.writesIn(target)).toBe(true);
    expect(hex(w.finish())).toBe(hex(own.finish()));
    expect(hex(w.copy())).toBe(hex(own.finish()));
    expect(hex(target.subarray(8, 8 + w.length))).toBe(hex(own.finish()));
    // Before the start and after the end, untouched.
    expect([...target.subarray(0, 8)]).toEqual(new Array(8).fill(0xee));
    expect(target[8 + w.length]).toBe(0xee);
    expect(() => w.patchInt(w.length - 3, 1)).toThrow(/outside written bytes/);
  });

  it('moves what it wrote to a buffer of its own when the room runs out', () => {
    const target = new Uint8Array(32).fill(0xee);
    const w = new Writer(16);
    w.writeAt(target, new DataView(target.buffer), 20);
    w.int(0).int(1).raw(new Uint8Array(40).fill(5));
    w.patchInt(0, w.length - 4);
    expect(w.writesIn(target)).toBe(false);
    expect(w.length).toBe(48);
    const out = w.finish();
    expect(new DataView(out.buffer, out.byteOffset).getInt32(0)).toBe(44);
    expect([...out.subarray(8)]).toEqual(new Array(40).fill(5));
    // It wrote nothing past the end of the target, and the target's start is as it was.
    expect([...target.subarray(0, 20)]).toEqual(new Array(20).fill(0xee));
  });
});
