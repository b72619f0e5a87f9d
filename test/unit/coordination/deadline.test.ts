// The one deadline mechanism (src/coordination/deadline.ts): timeouts fire at their time, a
// caller's signal ends a wait at once, the waits of a client share one timer, a wait that ends
// leaves no timer and no listener behind, and the AbortSignal is made only when someone reads it.
import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  Bound,
  type BoundWaiter,
  Deadlines,
  deadlinesOf,
  startBound,
} from '../../../src/coordination/deadline.js';
import { LockTimeoutError, Mutex } from '../../../src/locks/index.js';
import { ScriptedServer, scriptedSessions } from '../locks/scripted-client.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
});

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

const timeoutError = () => new Error('timed out');

/** A signal and the number of abort listeners it has now (as the runtime sees them). */
function countedSignal(): { controller: AbortController; listeners: () => number } {
  const controller = new AbortController();
  return { controller, listeners: () => getEventListeners(controller.signal, 'abort').length };
}

function waiter(): BoundWaiter & { reasons: unknown[] } {
  const reasons: unknown[] = [];
  return { reasons, boundEnded: (reason) => reasons.push(reason) };
}

describe('Bound and the shared timer', () => {
  it('a timeout ends the wait at its time, not before', () => {
    const deadlines = new Deadlines();
    const bound = startBound(deadlines, 100, undefined, timeoutError);
    const told = waiter();
    bound.listen(told);
    vi.advanceTimersByTime(99);
    expect(bound.ended).toBe(false);
    vi.advanceTimersByTime(1);
    expect(bound.ended).toBe(true);
    expect(told.reasons).toEqual([new Error('timed out')]);
    expect(deadlines.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('the waits of a client share one timer, whatever their number and durations', () => {
    const deadlines = new Deadlines();
    const bounds = Array.from({ length: 100 }, (_, i) =>
      startBound(deadlines, 1000 + (i % 7) * 10, undefined, timeoutError),
    );
    expect(vi.getTimerCount()).toBe(1);
    expect(deadlines.size).toBe(100);
    // A shorter deadline arrives: the one timer moves earlier, still one.
    const short = startBound(deadlines, 5, undefined, timeoutError);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(5);
    expect(short.ended).toBe(true);
    expect(bounds.some((b) => b.ended)).toBe(false);
    expect(vi.getTimerCount()).toBe(1);
    // Each ends at its own time, in the order of its deadline.
    vi.advanceTimersByTime(995);
    expect(bounds.filter((b) => b.ended).length).toBe(15); // the 1000 ms ones (i % 7 === 0)
    vi.advanceTimersByTime(60);
    expect(bounds.every((b) => b.ended)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a wait that ends leaves no timer and no listener behind; waits on one signal share one listener', () => {
    const deadlines = new Deadlines();
    const { controller, listeners } = countedSignal();
    const bounds = Array.from({ length: 10 }, () =>
      startBound(deadlines, 30_000, controller.signal, timeoutError),
    );
    // One listener for the 10 (Node warns past 10 listeners on a signal).
    expect(listeners()).toBe(1);
    expect(vi.getTimerCount()).toBe(1);
    for (const bound of bounds.slice(0, 5)) bound.end();
    expect(vi.getTimerCount()).toBe(1);
    expect(listeners()).toBe(1);
    for (const bound of bounds.slice(5)) bound.end();
    expect(listeners()).toBe(0);
    expect(deadlines.size).toBe(0);
    // The timer stays for the next wait without holding the process; at its time it goes.
    expect(deadlines.holdsProcess).toBe(false);
    vi.advanceTimersByTime(30_000);
    expect(vi.getTimerCount()).toBe(0);
    // Ending twice is harmless, and a later abort reaches none of them.
    bounds[0]!.end();
    controller.abort(new Error('late'));
    expect(bounds.some((b) => b.ended)).toBe(false);
  });

  it("the caller's signal ends the wait at once, with its reason, and leaves the timer", () => {
    const deadlines = new Deadlines();
    const { controller, listeners } = countedSignal();
    const bound = startBound(deadlines, 30_000, controller.signal, timeoutError);
    const told = waiter();
    bound.listen(told);
    const reason = new Error('stop');
    controller.abort(reason);
    expect(bound.ended).toBe(true);
    expect(told.reasons).toEqual([reason]);
    expect(listeners()).toBe(0);
    expect(deadlines.size).toBe(0);
    expect(deadlines.holdsProcess).toBe(false);
    vi.advanceTimersByTime(30_000);
    expect(vi.getTimerCount()).toBe(0);
    expect(told.reasons).toEqual([reason]);
  });

  it('an aborted signal ends the bound before it starts; a late listener hears at once', () => {
    const deadlines = new Deadlines();
    const reason = new Error('already');
    const bound = startBound(deadlines, 100, AbortSignal.abort(reason), timeoutError);
    expect(bound.ended).toBe(true);
    expect(deadlines.size).toBe(0);
    const told = waiter();
    bound.listen(told);
    expect(told.reasons).toEqual([reason]);
    expect(bound.signal.aborted).toBe(true);
    expect(bound.signal.reason).toBe(reason);
  });

  it('makes the AbortSignal only when it is read, and aborts it with the reason', () => {
    let made = 0;
    const Original = globalThis.AbortController;
    vi.stubGlobal(
      'AbortController',
      class extends Original {
        constructor() {
          super();
          made++;
        }
      },
    );
    const deadlines = new Deadlines();
    const unread = startBound(deadlines, 100, undefined, timeoutError);
    const read = startBound(deadlines, 100, undefined, timeoutError);
    expect(made).toBe(0);
    const signal = read.signal;
    expect(made).toBe(1);
    expect(read.signal).toBe(signal);
    vi.advanceTimersByTime(100);
    expect(unread.ended).toBe(true);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toEqual(new Error('timed out'));
    expect(made).toBe(1);
  });

  it("a bound with only the caller's signal hands out that signal itself", () => {
    const controller = new AbortController();
    const bound = new Bound(controller.signal, undefined);
    expect(bound.signal).toBe(controller.signal);
    bound.end();
  });

  it("the object's stop signal ends the bound as the caller's does, and end() leaves both", () => {
    const caller = countedSignal();
    const stop = countedSignal();
    const ended = new Bound(caller.controller.signal, undefined, stop.controller.signal);
    const told = waiter();
    ended.listen(told);
    expect([caller.listeners(), stop.listeners()]).toEqual([1, 1]);
    const reason = new Error('closed');
    stop.controller.abort(reason);
    expect(told.reasons).toEqual([reason]);
    expect([caller.listeners(), stop.listeners()]).toEqual([0, 0]);

    const other = countedSignal();
    const finished = new Bound(caller.controller.signal, undefined, other.controller.signal);
    finished.end();
    expect([caller.listeners(), other.listeners()]).toEqual([0, 0]);
  });

  it('a bound of only a stop signal hands it out; an aborted one ends the bound at once', () => {
    const stop = new AbortController();
    expect(new Bound(undefined, undefined, stop.signal).signal).toBe(stop.signal);
    stop.abort('gone');
    const late = new Bound(undefined, undefined, stop.signal);
    expect([late.ended, late.reason]).toEqual([true, 'gone']);
  });

  it('a waiter that stops listening is not told', () => {
    const bound = startBound(new Deadlines(), 10, undefined, timeoutError);
    const kept = waiter();
    const gone = waiter();
    bound.listen(kept);
    bound.listen(gone);
    bound.unlisten(gone);
    vi.advanceTimersByTime(10);
    expect(kept.reasons).toHaveLength(1);
    expect(gone.reasons).toHaveLength(0);
  });
});

describe('lock acquires on the shared timer', () => {
  it('a granted acquire with a timeout and a signal leaves no timer and no listener', async () => {
    const client = new ScriptedServer().connect();
    const { controller, listeners } = countedSignal();
    const lock = new Mutex(client, '/bounded');
    for (let i = 0; i < 5; i++) {
      const lease = await lock.acquire({ timeout: 60_000, signal: controller.signal });
      await lease.release();
    }
    expect(listeners()).toBe(0);
    expect(deadlinesOf(client).size).toBe(0);
    expect(deadlinesOf(client).holdsProcess).toBe(false);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('waiting acquires share their client’s one timer; each times out at its time', async () => {
    const [server, holder] = scriptedSessions(1);
    const client = server.connect();
    const held = await new Mutex(holder, '/shared').acquire();
    const waits = [300, 100, 200].map((timeout) =>
      new Mutex(client, '/shared').acquire({ timeout }).then(
        () => 'granted',
        (error: unknown) => (error instanceof LockTimeoutError ? error.timeout : error),
      ),
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(deadlinesOf(client).size).toBe(3);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(99);
    expect(deadlinesOf(client).size).toBe(3);
    await vi.advanceTimersByTimeAsync(1);
    expect(deadlinesOf(client).size).toBe(2);
    await vi.advanceTimersByTimeAsync(200);
    expect(await Promise.all(waits)).toEqual([300, 100, 200]);
    expect(deadlinesOf(client).size).toBe(0);
    await held.release();
  });
});
