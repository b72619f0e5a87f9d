// The one listening mechanism (src/client/listeners.ts): typed events, unsubscribe, streams, and
// the rule for a listener that throws.
import { afterEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { type ErrorEvents, ListenerError, Listeners } from '../../../src/client/listeners.js';
import { InvalidArgumentError, type StateChange, type ZooKeeperError } from '../../../src/index.js';

interface Events extends ErrorEvents {
  change: (value: number, previous: number) => void;
  done: () => void;
}

const make = () => new Listeners<Events>(['change', 'done', 'error']);

afterEach(() => {
  vi.restoreAllMocks();
});

describe('Listeners', () => {
  it('calls listeners in order with typed arguments; unsubscribe removes one registration', () => {
    const listeners = make();
    const seen: string[] = [];
    const listener = (value: number, previous: number) => seen.push(`${previous}->${value}`);
    const off = listeners.on('change', listener);
    listeners.on('change', listener);
    listeners.emit('change', 2, 1);
    off();
    off();
    listeners.emit('change', 3, 2);
    expect(seen).toEqual(['1->2', '1->2', '2->3']);
    expectTypeOf(listeners.on).toBeCallableWith('change', (_v: number, _p: number) => {});
  });

  it('refuses an unknown event or a listener that is not a function with InvalidArgumentError', () => {
    const listeners = make();
    expect(() => listeners.on('nope' as 'done', () => {})).toThrow(InvalidArgumentError);
    expect(() => listeners.on('done', 'x' as unknown as () => void)).toThrow(InvalidArgumentError);
    expect(() => listeners.on('done', () => {})).not.toThrow();
  });

  it('a listener that throws or rejects goes to the error listeners; the others still run', async () => {
    const listeners = make();
    const reported: Error[] = [];
    const seen: number[] = [];
    listeners.on('change', () => {
      throw new Error('sync bug');
    });
    listeners.on('change', async () => {
      throw new Error('async bug');
    });
    listeners.on('change', (value) => seen.push(value));
    listeners.on('error', (error) => reported.push(error));
    expect(() => listeners.emit('change', 1, 0)).not.toThrow();
    expect(seen).toEqual([1]);
    await Promise.resolve();
    await Promise.resolve();
    expect(reported).toHaveLength(2);
    expect(reported[0]).toBeInstanceOf(ListenerError);
    expect(reported[0]).toMatchObject({ event: 'change', cause: new Error('sync bug') });
    expect(reported[1]).toMatchObject({ event: 'change', cause: new Error('async bug') });
  });

  it('with no error listener (or a throwing one) the failure is written to console.error, never thrown', () => {
    const console_ = vi.spyOn(console, 'error').mockImplementation(() => {});
    const listeners = make();
    listeners.on('done', () => {
      throw new Error('bug');
    });
    listeners.emit('done');
    expect(console_).toHaveBeenCalledTimes(1);
    listeners.on('error', () => {
      throw new Error('error listener bug');
    });
    listeners.emit('done');
    expect(console_).toHaveBeenCalledTimes(2);
    // A background failure with no error listener is dropped; with one it is delivered.
    const quiet = make();
    quiet.report(new Error('retrying'));
    expect(console_).toHaveBeenCalledTimes(2);
  });

  it('streams buffer until read and finish after end(); return() detaches', async () => {
    const listeners = make();
    const stream = listeners.stream('change');
    listeners.emit('change', 1, 0);
    listeners.emit('change', 2, 1);
    expect(await stream.next()).toEqual({ value: 1, done: false });
    const detached = listeners.stream('change');
    await detached.return?.();
    expect(listeners.has('change')).toBe(true);
    listeners.end();
    expect(await stream.next()).toEqual({ value: 2, done: false });
    expect(await stream.next()).toEqual({ value: undefined, done: true });
    expect(listeners.has('change')).toBe(false);
    // After end(), on() is a no-op and a new stream is done at once.
    listeners.on('change', () => {});
    expect(listeners.has('change')).toBe(false);
    expect(await listeners.stream('change').next()).toEqual({ value: undefined, done: true });
  });

  it("the client's state listener is told its cause as a ZooKeeperError", () => {
    expectTypeOf<NonNullable<StateChange['cause']>>().toEqualTypeOf<ZooKeeperError>();
    expectTypeOf<NonNullable<StateChange['cause']>['code']>().toBeString();
  });
});
