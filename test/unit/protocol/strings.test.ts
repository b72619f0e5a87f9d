// Reader.strings decodes a short vector of names in one call and cuts it apart; whatever the bytes,
// it must give exactly what decoding each name alone gives, and refuse what ustring refuses.
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../../src/protocol/errors.js';
import { Reader } from '../../../src/protocol/reader.js';

const decoder = new TextDecoder('utf-8');

/** A vector<ustring> on the wire; null items are written with length -1. */
function vector(items: readonly (Uint8Array | null)[], count = items.length): Uint8Array {
  const size = 4 + items.reduce((sum, item) => sum + 4 + (item?.length ?? 0), 0);
  const bytes = new Uint8Array(size);
  const view = new DataView(bytes.buffer);
  view.setInt32(0, count);
  let at = 4;
  for (const item of items) {
    view.setInt32(at, item === null ? -1 : item.length);
    at += 4;
    if (item) {
      bytes.set(item, at);
      at += item.length;
    }
  }
  return bytes;
}

/** What decoding each name on its own gives: the reference. */
const oneByOne = (items: readonly (Uint8Array | null)[]): string[] =>
  items.map((item) => (item === null ? '' : decoder.decode(item)));

const ascii = (text: string): Uint8Array => new TextEncoder().encode(text);

/** A seeded xorshift, so a failure names a reproducible case. */
function random(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2 ** 32;
  };
}

describe('Reader.strings', () => {
  it('reads lock names as one decode would, in order, and moves past the vector', () => {
    const names = Array.from(
      { length: 16 },
      (_, i) => `_c_${crypto.randomUUID()}-lock-${String(i).padStart(10, '0')}`,
    );
    const wire = new Uint8Array([...vector(names.map(ascii)), 0xaa, 0xbb]);
    const reader = new Reader(wire);
    expect(reader.strings()).toEqual(names);
    expect(reader.remaining).toBe(2);
  });

  it('reads null and empty vectors and items as empty', () => {
    const nullVector = new Uint8Array([0xff, 0xff, 0xff, 0xff]);
    expect(new Reader(nullVector).strings()).toEqual([]);
    expect(new Reader(vector([])).strings()).toEqual([]);
    const items = [null, new Uint8Array(0), ascii('a'), null];
    expect(new Reader(vector(items)).strings()).toEqual(['', '', 'a', '']);
  });

  it('gives what one decode per name gives for non-ASCII, invalid bytes, BOMs and long names', () => {
    const cases: (Uint8Array | null)[][] = [
      [ascii('naïve'), ascii('lock-0000000001')],
      [ascii('😀-lock-0000000002'), ascii('b')],
      [new Uint8Array([0xef, 0xbb, 0xbf, 0x61]), ascii('x')], // a BOM: stripped per name
      [ascii('a'), new Uint8Array([0xef, 0xbb, 0xbf, 0x62])],
      [new Uint8Array([0x61, 0xff, 0x62]), ascii('c')], // a lone invalid byte: U+FFFD
      [new Uint8Array([0x61, 0xe2, 0x82]), ascii('d')], // a sequence cut at the name's end
      [new Uint8Array([0xc8]), new Uint8Array([0x80, 0x41])], // halves of a pair, split
      [ascii('x'.repeat(200)), ascii('y'.repeat(300))], // length bytes >= 0x80
    ];
    for (const items of cases) {
      expect(new Reader(vector(items)).strings()).toEqual(oneByOne(items));
    }
  });

  it('agrees with one decode per name on random bytes, below and above the one-decode bound', () => {
    const next = random(20261124);
    for (let round = 0; round < 400; round++) {
      const count = Math.floor(next() * (round % 2 === 0 ? 20 : 120));
      const items: (Uint8Array | null)[] = [];
      for (let i = 0; i < count; i++) {
        if (next() < 0.05) {
          items.push(null);
          continue;
        }
        const length = Math.floor(next() * 70);
        const item = new Uint8Array(length);
        const wide = next() < 0.3; // some names with bytes of any value
        for (let j = 0; j < length; j++) item[j] = Math.floor(next() * (wide ? 256 : 128));
        items.push(item);
      }
      const reader = new Reader(vector(items));
      expect(reader.strings(), `round ${round}`).toEqual(oneByOne(items));
      expect(reader.remaining).toBe(0);
    }
  });

  it('refuses a length past the end or below -1 before decoding anything', () => {
    const short = vector([ascii('abc'), ascii('def')]).subarray(0, 12);
    expect(() => new Reader(short).strings()).toThrow(ProtocolError);
    const negative = vector([ascii('abc')]);
    new DataView(negative.buffer).setInt32(4, -2);
    expect(() => new Reader(negative).strings()).toThrow(ProtocolError);
    const tooMany = vector([ascii('abc')], 1000);
    expect(() => new Reader(tooMany).strings()).toThrow(ProtocolError);
  });
});
