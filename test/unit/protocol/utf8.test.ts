import { describe, expect, it } from 'vitest';
import { codecs, encodeRequest } from '../../../src/protocol/codecs.js';
import { Reader } from '../../../src/protocol/reader.js';
import { decodeUtf8 } from '../../../src/protocol/utf8.js';
import { Writer } from '../../../src/protocol/writer.js';

const decoder = new TextDecoder('utf-8');

/** A seeded generator, so that a failure names bytes that can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state;
  };
}

describe('decodeUtf8', () => {
  it('decodes any bytes, valid or not, at any offset, as TextDecoder does', () => {
    const next = random(41);
    // Bytes drawn to hit every lead and continuation range, and the BOM's bytes, often.
    const pool = [0x00, 0x2f, 0x61, 0x7f, 0x80, 0xbb, 0xbf, 0xc0, 0xc3, 0xdf, 0xe0, 0xe2, 0xed];
    pool.push(0xef, 0xf0, 0xf4, 0xf5, 0xfe, 0xff, 0x82, 0x9f, 0xa0, 0xa9);
    for (let round = 0; round < 20_000; round++) {
      const bytes = new Uint8Array(2 + (next() % 24));
      for (let i = 0; i < bytes.length; i++) {
        bytes[i] = next() % 3 === 0 ? next() % 256 : pool[next() % pool.length]!;
      }
      const start = next() % bytes.length;
      // Often a BOM (or the start of one) where the decoding starts: the decoder drops a whole one.
      if (next() % 6 === 0) bytes.set([0xef, 0xbb, 0xbf].slice(0, bytes.length - start), start);
      const end = start + (next() % (bytes.length - start + 1));
      const expected = decoder.decode(bytes.subarray(start, end));
      const got = decodeUtf8(bytes, start, end);
      if (got !== expected) {
        expect({ bytes: [...bytes], start, end, got }).toEqual({
          bytes: [...bytes],
          start,
          end,
          got: expected,
        });
      }
    }
  });

  it('drops a leading BOM and keeps one inside, in a field read off a Node Buffer or a plain view', () => {
    const w = new Writer();
    w.raw(new Uint8Array([0, 0, 0, 7, 0xef, 0xbb, 0xbf, 0x2f, 0x61, 0xc3, 0xa9]));
    w.raw(new Uint8Array([0, 0, 0, 5, 0x2f, 0xef, 0xbb, 0xbf, 0x62]));
    const frame = w.copy();
    const padded = new Uint8Array(frame.length + 3);
    padded.set(frame, 3);
    for (const reader of [
      new Reader(frame),
      new Reader(Buffer.from(frame)),
      new Reader(padded, 3, padded.length),
      new Reader(padded.subarray(3)),
    ]) {
      expect(reader.ustring()).toBe('/aé');
      expect(reader.ustring()).toBe('/\ufeffb');
      expect(reader.remaining).toBe(0);
    }
  });
});

describe('Writer.ustring', () => {
  const encoder = new TextEncoder();
  /** Units drawn to cover ASCII, two-, three- and four-byte characters and lone surrogates. */
  const units = [
    '/',
    'a',
    'Z',
    '-',
    '0',
    'é',
    'ß',
    '€',
    '中',
    '😀',
    '\ud800',
    '\udfff',
    '\u0000',
    '\u007f',
  ];

  function text(next: () => number): string {
    let out = '';
    const n = next() % 40;
    // Built by concatenation, as a lock's paths are (a rope until something flattens it).
    for (let i = 0; i < n; i++) out += units[next() % units.length];
    return out;
  }

  it('writes any string, lone surrogates included, as TextEncoder encodes it, wherever it lands', () => {
    const next = random(17);
    for (let round = 0; round < 5_000; round++) {
      const value = text(next);
      const expected = encoder.encode(value);
      // A small writer, so that some strings land at the very end of its buffer and some grow it.
      const w = new Writer(16);
      w.raw(new Uint8Array(next() % 13));
      const before = w.length;
      w.ustring(value);
      const bytes = w.finish().subarray(before);
      expect(new Reader(bytes).int()).toBe(expected.length);
      expect([...bytes.subarray(4)]).toEqual([...expected]);
      expect(new Reader(bytes).ustring()).toBe(decoder.decode(expected));
    }
  });

  it('writes a request frame in place in the shared slab with the path as TextEncoder encodes it', () => {
    const next = random(5);
    for (let round = 0; round < 2_000; round++) {
      const path = `/${text(next)}`;
      const frame = encodeRequest(7, codecs.getData, { path, watch: true });
      const r = new Reader(frame);
      expect([r.int(), r.int(), r.int()]).toEqual([frame.length - 4, 7, codecs.getData.code]);
      expect(r.int()).toBe(encoder.encode(path).length);
      expect([...frame.subarray(16, frame.length - 1)]).toEqual([...encoder.encode(path)]);
      expect(frame[frame.length - 1]).toBe(1);
    }
  });
});
