// ChunkQueue.feed: the callback reader the session uses for node:net, Bun and the simulator.
import { describe, expect, it } from 'vitest';
import { type ChunkConsumer, ChunkQueue } from '../../../src/session/transports/chunk-queue.js';

/** A consumer that records what it is told; `stopAt`/`throwAt` act on that chunk's first byte. */
function recorder(options: { stopAt?: number; throwAt?: number } = {}) {
  const seen: number[] = [];
  const ends: unknown[] = [];
  const consumer: ChunkConsumer = {
    chunk(chunk) {
      const byte = chunk[0]!;
      if (byte === options.throwAt) throw new Error(`bad ${byte}`);
      seen.push(byte);
      return byte !== options.stopAt;
    },
    ended(error) {
      ends.push(error);
    },
  };
  return { consumer, seen, ends };
}

const bytes = (n: number) => new Uint8Array([n]);

describe('ChunkQueue.feed', () => {
  it('hands over what was pushed before, then each chunk as pushed, and ends once', () => {
    const queue = new ChunkQueue();
    queue.push(bytes(1));
    queue.push(bytes(2));
    const { consumer, seen, ends } = recorder();
    queue.feed(consumer);
    expect(seen).toEqual([1, 2]);
    queue.push(bytes(3));
    expect(seen).toEqual([1, 2, 3]);
    queue.end();
    queue.end();
    queue.push(bytes(4));
    expect(seen).toEqual([1, 2, 3]);
    expect(ends).toEqual([undefined]);
  });

  it('a stream that ended before feed is told at once, after its buffered chunks', () => {
    const queue = new ChunkQueue();
    queue.push(bytes(1));
    queue.end();
    const { consumer, seen, ends } = recorder();
    queue.feed(consumer);
    expect(seen).toEqual([1]);
    expect(ends).toEqual([undefined]);
  });

  it('a reader that returns false stops: the queue ends and drops the rest', () => {
    const queue = new ChunkQueue();
    queue.push(bytes(1));
    queue.push(bytes(2));
    queue.push(bytes(3));
    const { consumer, seen, ends } = recorder({ stopAt: 2 });
    queue.feed(consumer);
    queue.push(bytes(4));
    queue.end();
    expect(seen).toEqual([1, 2]);
    expect(ends).toEqual([undefined]);
  });

  it('a reader that throws is told what it threw, once, and the queue ends', () => {
    const queue = new ChunkQueue();
    const { consumer, seen, ends } = recorder({ throwAt: 2 });
    queue.feed(consumer);
    queue.push(bytes(1));
    queue.push(bytes(2));
    queue.push(bytes(3));
    queue.end();
    expect(seen).toEqual([1]);
    expect(ends).toHaveLength(1);
    expect((ends[0] as Error).message).toBe('bad 2');
  });
});
