import { describe, expect, it } from 'vitest';
import { Deque } from '../../../src/session/queue.js';

describe('Deque', () => {
  it('behaves as a FIFO through growth, wrap-around, unshift and remove; peek sees what shift will', () => {
    const dq = new Deque<number>();
    const model: number[] = [];
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    for (let i = 0; i < 20_000; i++) {
      const r = rand() % 10;
      if (r < 5) {
        dq.push(i);
        model.push(i);
      } else if (r < 6) {
        dq.unshift(i);
        model.unshift(i);
      } else if (r < 9) {
        expect(dq.shift()).toBe(model.shift());
      } else if (model.length > 0) {
        const victim = model[rand() % model.length]!;
        expect(dq.remove(victim)).toBe(true);
        model.splice(model.indexOf(victim), 1);
      }
      expect(dq.length).toBe(model.length);
      const at = rand() % (model.length + 2);
      expect(dq.peek(at)).toBe(model[at]);
    }
    expect(dq.peek(-1)).toBeUndefined();
    expect(dq.remove(-1)).toBe(false);
    expect(dq.drain()).toEqual(model);
    expect(dq.length).toBe(0);
    expect(dq.shift()).toBeUndefined();
  });

  it('removes in place, calling no method a subclass may override (the outbox schedules writes in push)', () => {
    const pushed: string[] = [];
    class Counting extends Deque<string> {
      override push(item: string): void {
        pushed.push(item);
        super.push(item);
      }
      override drain(): string[] {
        throw new Error('remove must not drain');
      }
    }
    const dq = new Counting();
    for (const item of ['a', 'b', 'c', 'd']) dq.push(item);
    dq.shift();
    dq.push('e'); // wraps nothing yet, but the head has moved
    pushed.length = 0;
    expect(dq.remove('c')).toBe(true);
    expect(dq.remove('x')).toBe(false);
    expect(pushed).toEqual([]);
    expect([dq.shift(), dq.shift(), dq.shift(), dq.shift()]).toEqual(['b', 'd', 'e', undefined]);
  });
});
