// The timer behind an acquire's timeout (src/coordination/deadline.ts), as the hot path uses it:
// back-to-back acquires share one timer that holds the process only while one of them waits,
// waits reject in the order of their deadlines, a signal ends a wait at once, and a timeout due in
// the same timer turn as the grant gives the caller exactly one outcome.
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  boundsWaiting,
  Deadlines,
  deadlinesOf,
  startBound,
} from '../../../src/coordination/deadline.js';
import { LockTimeoutError, Mutex } from '../../../src/locks/index.js';
import { until } from '../../support/wait.js';
import { holdCreates, ScriptedServer } from './scripted-client.js';

afterEach(() => {
  vi.restoreAllMocks(); // first: a spy on a fake setTimeout would put the fake back
  vi.useRealTimers();
});

/** As `until`, on fake timers: advances them a millisecond a turn until `check()` is true. */
async function untilFaked(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await vi.advanceTimersByTimeAsync(1);
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

/** The Timeouts that keep Node's event loop alive (unref'd ones are not listed). */
function heldTimeouts(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
}

/** Settles with 'granted' or the error, and counts how many outcomes the caller heard. */
function outcomeOf(acquiring: Promise<{ release(): Promise<void> }>) {
  let heard = 0;
  const outcome = acquiring.then(
    async (lease) => {
      heard++;
      await lease.release();
      return 'granted' as const;
    },
    (error: unknown) => {
      heard++;
      return error;
    },
  );
  return { outcome, heard: () => heard };
}

describe('one timer per client for the timeouts of its acquires', () => {
  it('back-to-back acquires arm one timer between them; it holds the process only while one waits', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const armed = vi.spyOn(globalThis, 'setTimeout');
    const client = new ScriptedServer().connect();
    const mutex = new Mutex(client, '/back-to-back');
    for (let i = 0; i < 20; i++) {
      const acquiring = mutex.acquire({ timeout: 30_000 });
      expect(deadlinesOf(client).holdsProcess).toBe(true);
      await (await acquiring).release();
      expect(deadlinesOf(client).holdsProcess).toBe(false);
    }
    expect(armed.mock.calls.filter(([, ms]) => ms === 30_000)).toHaveLength(1);
    expect(boundsWaiting()).toBe(0);
    // Nothing came for it: at its time it fires once, finds nothing due, and is gone.
    await vi.advanceTimersByTimeAsync(30_000);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("an idle client's timer does not keep Node running; a waiting acquire does", async () => {
    const server = new ScriptedServer();
    const [holder, client] = [server.connect(), server.connect()];
    const before = heldTimeouts();
    const held = await new Mutex(holder, '/held').acquire();
    const waiting = new Mutex(client, '/held').acquire({ timeout: 60_000 });
    await until(() => server.children('/held').length === 2);
    expect(heldTimeouts()).toBe(before + 1);
    await held.release();
    await (await waiting).release();
    expect(deadlinesOf(client).armed).toBe(true);
    expect(heldTimeouts()).toBe(before);
  });

  it('a timer armed under other timer functions is not taken up again: the next timeout still fires', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const deadlines = new Deadlines();
    // Idle, armed on the fake clock for a moment before the next deadline: that fake timer
    // never fires once the fakes are gone, so taking it up would leave the next wait unbounded.
    startBound(deadlines, 10, undefined, () => new Error('unused')).end();
    expect(deadlines.armed).toBe(true);
    vi.useRealTimers();
    const bound = startBound(deadlines, 50, undefined, () => new Error('timed out'));
    const ended = new Promise((resolve) => bound.listen({ boundEnded: resolve }));
    expect(await ended).toEqual(new Error('timed out'));
    expect(deadlines.size).toBe(0);
  });
});

describe('timeouts racing other outcomes', () => {
  it('waits with different timeouts reject in the order of their deadlines, each with its own timeout', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const server = new ScriptedServer();
    const held = await new Mutex(server.connect(), '/order').acquire();
    const client = server.connect();
    const timeouts = [70, 10, 50, 30, 90, 20, 80, 40, 60];
    const heard: number[] = [];
    const waits = timeouts.map((timeout) =>
      new Mutex(client, '/order').acquire({ timeout }).catch((error: unknown) => {
        if (error instanceof LockTimeoutError) heard.push(error.timeout);
      }),
    );
    await vi.advanceTimersByTimeAsync(100);
    await Promise.all(waits);
    expect(heard).toEqual([...timeouts].sort((a, b) => a - b));
    expect(deadlinesOf(client).size).toBe(0);
    await untilFaked(() => server.children('/order').length === 1, "the waiters' nodes to go");
    await held.release();
  });

  it('a signal ends a waiting acquire at once, before any timer runs', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const server = new ScriptedServer();
    const held = await new Mutex(server.connect(), '/abort').acquire();
    const client = server.connect();
    const abort = new AbortController();
    const waiting = new Mutex(client, '/abort').acquire({ timeout: 60_000, signal: abort.signal });
    await vi.advanceTimersByTimeAsync(0);
    const reason = new Error('stop');
    abort.abort(reason);
    // No timer is advanced from here on: the rejection comes through promise jobs alone.
    await expect(waiting).rejects.toBe(reason);
    expect(deadlinesOf(client).size).toBe(0);
    await held.release();
  });

  it('a timeout due in the same timer turn as the grant, the timeout first: one outcome, no node left', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const server = new ScriptedServer();
    const client = server.connect();
    const open = holdCreates(client);
    const { outcome, heard } = outcomeOf(new Mutex(client, '/same').acquire({ timeout: 100 }));
    setTimeout(open, 100); // armed after the deadline's timer: runs right after it
    vi.advanceTimersByTime(100); // both timers in one turn, no promise job between them
    expect(await outcome).toBeInstanceOf(LockTimeoutError);
    await untilFaked(() => server.requests({ op: 'create2' }).length === 1, 'the late create');
    await untilFaked(() => server.children('/same').length === 0, 'the late node to go');
    expect(heard()).toBe(1);
    expect(boundsWaiting()).toBe(0);
  });

  it('a timeout due in the same timer turn as the grant, the grant first: one outcome, the lease valid', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const server = new ScriptedServer();
    const client = server.connect();
    const open = holdCreates(client);
    setTimeout(open, 100); // armed before the deadline's timer: the grant goes through first
    const acquiring = new Mutex(client, '/same').acquire({ timeout: 100 });
    let lease: Awaited<typeof acquiring> | undefined;
    let error: unknown;
    acquiring.then(
      (granted) => {
        lease = granted;
      },
      (thrown: unknown) => {
        error = thrown;
      },
    );
    await vi.advanceTimersByTimeAsync(100); // promise jobs run between the two timers
    await vi.advanceTimersByTimeAsync(1_000);
    expect(error).toBeUndefined();
    expect(lease?.signal.aborted).toBe(false);
    expect(server.children('/same')).toHaveLength(1);
    expect(boundsWaiting()).toBe(0);
    await lease!.release();
  });
});
