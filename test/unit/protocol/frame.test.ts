import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../../src/protocol/errors.js';
import { DEFAULT_MAX_FRAME, FrameDecoder } from '../../../src/protocol/frame.js';
import { frame } from '../../../src/protocol/writer.js';
import { hex, prng, unhex } from './helpers.js';

function makeFrames(count: number, rand: () => number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    // Mostly small frames, some empty, a few large enough to span many chunks.
    const roll = rand();
    const size = roll < 0.1 ? 0 : roll < 0.9 ? Math.floor(rand() * 64) : Math.floor(rand() * 5000);
    const bytes = new Uint8Array(size).map(() => Math.floor(rand() * 256));
    out.push(bytes);
  }
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const encode = (bodies: Uint8Array[]): Uint8Array =>
  concat(bodies.map((b) => frame((w) => w.raw(b))));

function feed(decoder: FrameDecoder, stream: Uint8Array, cuts: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let from = 0;
  for (const cut of [...cuts, stream.length]) {
    out.push(...decoder.push(stream.subarray(from, cut)));
    from = cut;
  }
  return out;
}

const expectProtocolError = (fn: () => unknown): void => {
  expect(fn).toThrow(ProtocolError);
};

describe('FrameDecoder', () => {
  it('returns the bodies of several frames in one chunk, as views of it', () => {
    const stream = unhex('00000002abcd' + '00000000' + '00000001ef');
    const d = new FrameDecoder();
    const frames = d.push(stream);
    expect(frames.map(hex)).toEqual(['abcd', '', 'ef']);
    expect(frames[0]!.buffer).toBe(stream.buffer);
    expect(d.buffered).toBe(0);
  });

  it('decodes a stream fed one byte at a time', () => {
    const bodies = makeFrames(60, prng(1));
    const stream = encode(bodies);
    const d = new FrameDecoder();
    const cuts = Array.from({ length: stream.length - 1 }, (_, i) => i + 1);
    expect(feed(d, stream, cuts).map(hex)).toEqual(bodies.map(hex));
    expect(d.buffered).toBe(0);
  });

  it('decodes a stream cut at random points (seeded)', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const rand = prng(seed);
      const bodies = makeFrames(40, rand);
      const stream = encode(bodies);
      const cuts = new Set<number>();
      const n = Math.floor(rand() * 40);
      for (let i = 0; i < n; i++) cuts.add(1 + Math.floor(rand() * (stream.length - 1)));
      const sorted = [...cuts].sort((a, b) => a - b);
      const d = new FrameDecoder();
      expect(feed(d, stream, sorted).map(hex), `seed ${seed}`).toEqual(bodies.map(hex));
      expect(d.buffered).toBe(0);
    }
  });

  it('reports buffered bytes of a partial frame and copies them (chunks may be reused)', () => {
    const d = new FrameDecoder();
    const chunk = unhex('000000040102');
    expect(d.push(chunk)).toEqual([]);
    expect(d.buffered).toBe(6);
    chunk.fill(0xee); // the transport reuses its buffer
    expect(d.push(unhex('0304')).map(hex)).toEqual(['01020304']);
    expect(d.buffered).toBe(0);
  });

  it('handles a length prefix split across chunks, and an empty frame completing it', () => {
    const d = new FrameDecoder();
    expect(d.push(unhex('0000'))).toEqual([]);
    expect(d.buffered).toBe(2);
    expect(d.push(unhex('00')).length).toBe(0);
    expect(d.push(unhex('00' + '00000001aa')).map(hex)).toEqual(['', 'aa']);
  });

  it('ignores empty chunks', () => {
    const d = new FrameDecoder();
    expect(d.push(new Uint8Array(0))).toEqual([]);
    d.push(unhex('000000'));
    expect(d.push(new Uint8Array(0))).toEqual([]);
    expect(d.push(unhex('0199')).map(hex)).toEqual(['99']);
  });

  it('reset() drops a partial frame', () => {
    const d = new FrameDecoder();
    d.push(unhex('0000000a0102'));
    d.reset();
    expect(d.buffered).toBe(0);
    expect(d.push(unhex('00000001ff')).map(hex)).toEqual(['ff']);
  });

  it('accepts a frame of exactly the maximum size', () => {
    const d = new FrameDecoder(8);
    expect(d.push(unhex('00000008' + '11'.repeat(8))).length).toBe(1);
    expect(new FrameDecoder().push(unhex('000fffff')).length).toBe(0); // 1_048_575 is allowed
    expect(DEFAULT_MAX_FRAME).toBe(0xfffff);
  });

  it('throws ProtocolError on an oversize length, in one chunk or split', () => {
    expectProtocolError(() => new FrameDecoder().push(unhex('00100000')));
    expectProtocolError(() => new FrameDecoder(8).push(unhex('00000009')));
    const d = new FrameDecoder(8);
    d.push(unhex('00000001aa0000'));
    expectProtocolError(() => d.push(unhex('0009')));
  });

  it('throws ProtocolError on a negative length', () => {
    expectProtocolError(() => new FrameDecoder().push(unhex('ffffffff')));
    expectProtocolError(() => new FrameDecoder().push(unhex('80000000')));
    const d = new FrameDecoder();
    d.push(unhex('ff'));
    expectProtocolError(() => d.push(unhex('fffffe')));
  });

  it('rejects a bad length from its 4 bytes alone, holding nothing', () => {
    // 0x7fffffff would be a 2 GB buffer: it must fail before any body is allocated.
    const d = new FrameDecoder();
    expectProtocolError(() => d.push(unhex('7fffffff')));
    expect(d.buffered).toBe(0);
    expectProtocolError(() => d.push(unhex('7fffffff00')));
    expect(d.buffered).toBe(0);
  });
});
