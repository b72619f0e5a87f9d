// The decoder hands out the frames ahead of a bad length before it throws, so the session can
// deliver replies already received before the stream is declared lost.
import { describe, expect, it } from 'vitest';
import { FrameDecoder, FrameSizeError } from '../../../src/protocol/frame.js';
import { setWatchBatches } from '../../../src/session/restore.js';
import { CONFIG_WATCH_KEY } from '../../../src/session/watches.js';

function framed(...bodies: number[][]): Uint8Array {
  const out: number[] = [];
  for (const body of bodies) {
    const n = body.length;
    out.push((n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff, ...body);
  }
  return new Uint8Array(out);
}

describe('FrameDecoder.decode', () => {
  it('delivers every frame ahead of an oversized length, then throws FrameSizeError', () => {
    const decoder = new FrameDecoder(8);
    const chunk = new Uint8Array([...framed([1, 2], [3]), 0, 0, 0, 9, 0, 0]);
    const seen: number[][] = [];
    let thrown: unknown;
    try {
      decoder.decode(chunk, (frame) => seen.push([...frame]));
    } catch (error) {
      thrown = error;
    }
    expect(seen).toEqual([[1, 2], [3]]);
    expect(thrown).toBeInstanceOf(FrameSizeError);
    expect(thrown).toMatchObject({ length: 9, limit: 8, code: 'MARSHALLINGERROR' });
  });

  it('delivers a frame completed from an earlier chunk before a bad length in the same chunk', () => {
    const decoder = new FrameDecoder(8);
    const whole = framed([7, 7, 7]);
    decoder.decode(whole.subarray(0, 5), () => expect.unreachable());
    const seen: number[][] = [];
    const rest = new Uint8Array([...whole.subarray(5), 0x7f, 0, 0, 0]);
    expect(() => decoder.decode(rest, (frame) => seen.push([...frame]))).toThrow(FrameSizeError);
    expect(seen).toEqual([[7, 7, 7]]);
  });
});

describe('watch restore', () => {
  it("sends getConfig's watch on the configuration node itself, never under the chroot", () => {
    const [batch] = setWatchBatches(
      {
        data: [CONFIG_WATCH_KEY, '/zookeeper/config'],
        exist: [],
        child: [],
        persistent: [],
        persistentRecursive: [],
      },
      '/app',
    );
    expect(batch?.data).toEqual(['/zookeeper/config', '/app/zookeeper/config']);
  });
});
