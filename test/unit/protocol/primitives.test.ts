import { describe, expect, it } from 'vitest';
import { ProtocolError, ZooKeeperError } from '../../../src/protocol/errors.js';
import { Reader } from '../../../src/protocol/reader.js';
import { isPooled, pooledBuffer } from '../../../src/protocol/slab.js';
import { frame, Writer } from '../../../src/protocol/writer.js';
import { thrown } from '../../support/thrown.js';
import { hex, unhex, utf8 } from './helpers.js';

const bytesOf = (fn: (w: Writer) => void): string => {
  const w = new Writer(16);
  fn(w);
  return hex(w.finish());
};

describe('Writer exact bytes', () => {
  it('writes ints big-endian, two complement', () => {
    expect(bytesOf((w) => w.int(0))).toBe('00000000');
    expect(bytesOf((w) => w.int(1))).toBe('00000001');
    expect(bytesOf((w) => w.int(-1))).toBe('ffffffff');
    expect(bytesOf((w) => w.int(-101))).toBe('ffffff9b');
    expect(bytesOf((w) => w.int(0x7fffffff))).toBe('7fffffff');
    expect(bytesOf((w) => w.int(-0x80000000))).toBe('80000000');
    expect(bytesOf((w) => w.int(30000))).toBe('00007530');
  });

  it('writes longs beyond 2^53 and negative longs', () => {
    expect(bytesOf((w) => w.long(0n))).toBe('0000000000000000');
    expect(bytesOf((w) => w.long(-1n))).toBe('ffffffffffffffff');
    expect(bytesOf((w) => w.long(2n ** 53n + 1n))).toBe('0020000000000001');
    expect(bytesOf((w) => w.long(0x0100000693ec0000n))).toBe('0100000693ec0000');
    expect(bytesOf((w) => w.long(-(2n ** 63n)))).toBe('8000000000000000');
    expect(bytesOf((w) => w.long(2n ** 63n - 1n))).toBe('7fffffffffffffff');
    expect(bytesOf((w) => w.long(-0x0100000000000000n))).toBe('ff00000000000000');
  });

  it('writes booleans as one byte', () => {
    expect(bytesOf((w) => w.bool(true).bool(false))).toBe('0100');
  });

  it('distinguishes null from empty buffers, strings and vectors', () => {
    expect(bytesOf((w) => w.buffer(null))).toBe('ffffffff');
    expect(bytesOf((w) => w.buffer(new Uint8Array(0)))).toBe('00000000');
    expect(bytesOf((w) => w.buffer(unhex('00ff10')))).toBe('0000000300ff10');
    expect(bytesOf((w) => w.ustring(null))).toBe('ffffffff');
    expect(bytesOf((w) => w.ustring(''))).toBe('00000000');
    expect(bytesOf((w) => w.vector(null, (iw, v: number) => iw.int(v)))).toBe('ffffffff');
    expect(bytesOf((w) => w.vector([], (iw, v: number) => iw.int(v)))).toBe('00000000');
    expect(bytesOf((w) => w.vector([1, -2], (iw, v) => iw.int(v)))).toBe(
      '00000002' + '00000001' + 'fffffffe',
    );
  });

  it('writes ustring as a byte count plus standard UTF-8', () => {
    expect(bytesOf((w) => w.ustring('/a'))).toBe('000000022f61');
    // 'ü' is 2 bytes, '€' 3 bytes, '😀' (a surrogate pair) 4 bytes in standard UTF-8.
    expect(bytesOf((w) => w.ustring('ü€😀'))).toBe('00000009' + 'c3bc' + 'e282ac' + 'f09f9880');
  });

  it('grows by doubling past its initial capacity', () => {
    const w = new Writer(16);
    const big = new Uint8Array(5000).map((_, i) => i & 0xff);
    w.int(7).buffer(big).ustring('x'.repeat(3000));
    const out = w.finish();
    expect(out.length).toBe(4 + 4 + 5000 + 4 + 3000);
    expect(w.length).toBe(out.length);
    const r = new Reader(out);
    expect(r.int()).toBe(7);
    expect(r.buffer()).toEqual(big);
    expect(r.ustring()).toBe('x'.repeat(3000));
  });

  it('writes the ints at both ends of the range, and -0 as 0', () => {
    expect(
      bytesOf((w) =>
        w
          .int(2 ** 31 - 1)
          .int(-(2 ** 31))
          .int(-0)
          .int(-1),
      ),
    ).toBe('7fffffff8000000000000000ffffffff');
  });

  it('raw appends bytes without a length', () => {
    expect(bytesOf((w) => w.raw(unhex('0102')).raw(new Uint8Array(0)))).toBe('0102');
  });

  it('rejects ints and longs that would wrap', () => {
    const w = new Writer();
    expect(() => w.int(2 ** 31)).toThrow(ZooKeeperError);
    expect(() => w.int(-(2 ** 31) - 1)).toThrow(ZooKeeperError);
    expect(() => w.int(1.5)).toThrow(ZooKeeperError);
    expect(() => w.int(Number.NaN)).toThrow(ZooKeeperError);
    expect(() => w.int(Number.POSITIVE_INFINITY)).toThrow(ZooKeeperError);
    expect(() => w.int(2 ** 32)).toThrow(ZooKeeperError);
    // What a JavaScript caller may pass where a number belongs: refused as such, not a TypeError.
    for (const wrong of [1n, '1', undefined, null, true, Symbol('int'), {}]) {
      expect(() => w.int(wrong as unknown as number)).toThrow(ZooKeeperError);
    }
    expect(() => w.long(2n ** 63n)).toThrow(ZooKeeperError);
    expect(() => w.long(-(2n ** 63n) - 1n)).toThrow(ZooKeeperError);
    expect(w.length).toBe(0);
  });
});

describe('frame()', () => {
  it('patches a length that excludes its own 4 bytes', () => {
    expect(hex(frame((w) => w.int(-2).int(11)))).toBe('00000008fffffffe0000000b');
    expect(hex(frame(() => {}))).toBe('00000000');
  });

  it('patches correctly after the buffer grew', () => {
    const out = frame((w) => w.buffer(new Uint8Array(1000)), 8);
    expect(new DataView(out.buffer, out.byteOffset).getInt32(0)).toBe(1004);
    expect(out.length).toBe(1008);
  });
});

describe('Writer.copyInto', () => {
  it('copies exactly the written bytes, by loop or by set, leaving the rest of the target', () => {
    for (const size of [0, 1, 255, 256, 257, 5000]) {
      const w = new Writer(8);
      for (let i = 0; i < size; i++) w.bool(i % 3 !== 0);
      const target = new Uint8Array(size + 4).fill(7);
      w.copyInto(target);
      expect([...target.subarray(0, size)]).toEqual([...w.finish()]);
      expect([...target.subarray(size)]).toEqual([7, 7, 7, 7]);
    }
  });
});

describe('Reader', () => {
  it('round-trips every primitive', () => {
    const longs = [0n, 1n, -1n, 2n ** 53n + 1n, -(2n ** 63n), 2n ** 63n - 1n, -123456789012345n];
    // Words with their top bit set, in either half (the reader assembles a long from two).
    longs.push(0x80000000n, 0xffffffffn, -0x80000000n, 0x7fffffff80000000n, -0x7fffffff7fffffffn);
    const ints = [0, 1, -1, 0x7fffffff, -0x80000000, 4000, -0x7f000001];
    const w = new Writer(8);
    for (const v of ints) w.int(v);
    for (const v of longs) w.long(v);
    w.bool(true).bool(false);
    w.buffer(null).buffer(new Uint8Array(0)).buffer(utf8('data'));
    w.ustring(null).ustring('').ustring('/zk/ñ/€/😀');
    w.vector(null, (iw, s: string) => iw.ustring(s));
    w.vector([], (iw, s: string) => iw.ustring(s));
    w.vector(['a', '', 'ccc'], (iw, s) => iw.ustring(s));
    const r = new Reader(w.finish());
    for (const v of ints) expect(r.int()).toBe(v);
    for (const v of longs) expect(r.long()).toBe(v);
    expect(r.bool()).toBe(true);
    expect(r.bool()).toBe(false);
    expect(r.buffer()).toBeNull();
    expect(r.buffer()).toEqual(new Uint8Array(0));
    expect(r.buffer()).toEqual(utf8('data'));
    expect(r.ustring()).toBeNull();
    expect(r.ustring()).toBe('');
    expect(r.ustring()).toBe('/zk/ñ/€/😀');
    expect(r.vector((ir) => ir.ustring())).toBeNull();
    expect(r.vector((ir) => ir.ustring())).toEqual([]);
    expect(r.vector((ir) => ir.ustring())).toEqual(['a', '', 'ccc']);
    expect(r.remaining).toBe(0);
  });

  it('treats any non-zero byte as true, like Java', () => {
    expect(new Reader(unhex('02')).bool()).toBe(true);
    expect(new Reader(unhex('ff')).bool()).toBe(true);
  });

  it('hands out buffers as views of the input, not copies', () => {
    const input = unhex('00000002abcd');
    const buf = new Reader(input).buffer();
    expect(buf?.buffer).toBe(input.buffer);
    expect(buf?.byteOffset).toBe(4);
  });

  it('reads from a subarray with a non-zero byteOffset', () => {
    const backing = unhex('deadbeef' + '0000002a' + '00000001' + '61');
    const r = new Reader(backing.subarray(4));
    expect(r.int()).toBe(42);
    expect(r.ustring()).toBe('a');
    expect(r.offset).toBe(9);
  });

  it('tracks offset and remaining', () => {
    const r = new Reader(unhex('0000000100000000000000020a'));
    expect(r.remaining).toBe(13);
    r.int();
    expect(r.offset).toBe(4);
    r.long();
    expect(r.remaining).toBe(1);
  });

  const malformed: [string, string, (r: Reader) => unknown][] = [
    ['short int', '000000', (r) => r.int()],
    ['short long', '00000000000000', (r) => r.long()],
    ['empty bool', '', (r) => r.bool()],
    ['short buffer length', '0000', (r) => r.buffer()],
    ['buffer length below -1', 'fffffffe', (r) => r.buffer()],
    ['buffer length past the end', '0000000561', (r) => r.buffer()],
    ['huge buffer length', '7fffffff', (r) => r.buffer()],
    ['ustring length past the end', '000000026f', (r) => r.ustring()],
    ['ustring length below -1', '80000000', (r) => r.ustring()],
    ['vector count below -1', 'fffffff0', (r) => r.vector((ir) => ir.int())],
    ['huge vector count', '7fffffff', (r) => r.vector((ir) => ir.int())],
    [
      'vector count larger than the bytes left',
      '0000000300000001',
      (r) => r.vector((ir) => ir.int()),
    ],
    ['vector item cut short', '000000010000', (r) => r.vector((ir) => ir.int())],
  ];

  for (const [name, input, read] of malformed) {
    it(`throws ProtocolError on ${name}`, () => {
      const r = new Reader(unhex(input));
      const caught = thrown(() => read(r));
      expect(caught).toBeInstanceOf(ProtocolError);
      expect((caught as ProtocolError).code).toBe('MARSHALLINGERROR');
    });
  }
});

describe('Reader.buffer and shared slabs', () => {
  /** A jute buffer field (length, then bytes 1..n) laid out in `into`. */
  function field(into: Uint8Array, n: number): Uint8Array {
    new DataView(into.buffer, into.byteOffset, into.byteLength).setInt32(0, n);
    for (let i = 0; i < n; i++) into[4 + i] = i + 1;
    return into;
  }

  it('copies a value that lies in a shared slab, so that keeping it keeps no slab alive', () => {
    const input = field(pooledBuffer(4 + 40), 40);
    expect(isPooled(input)).toBe(true);
    const value = new Reader(input).buffer()!;
    expect([...value]).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(value.buffer).not.toBe(input.buffer);
    expect(value.buffer.byteLength).toBe(40);
    expect(isPooled(value)).toBe(false);
  });

  it('hands out a view of input that has a buffer of its own (no copy)', () => {
    const input = field(new Uint8Array(4 + 40), 40);
    const value = new Reader(input).buffer()!;
    expect(value.buffer).toBe(input.buffer);
    expect(value.byteOffset).toBe(4);
  });

  it('reads a string out of a slab without copying it first', () => {
    const w = new Writer(16);
    w.ustring('lock-0000000001');
    const written = w.finish();
    const input = pooledBuffer(written.length);
    input.set(written);
    expect(new Reader(input).ustring()).toBe('lock-0000000001');
  });
});
