// The timer rules of a lock's wait, checked on each runtime by the smoke suite (smoke.ts): an
// acquire with a timeout that is granted leaves no pending timer holding the process, one that
// cannot be met rejects with TIMEOUT at its time (never before), and a signal aborts it at once,
// leaving no abort listener behind. Web-standard globals only: the timers are counted by wrapping
// setTimeout/clearTimeout, the listeners by wrapping the signal's add/removeEventListener.
import { type Client, ZooKeeperError } from '../../src/index.js';
import { LockTimeoutError, Mutex } from '../../src/locks/index.js';

type Check = (condition: unknown, message: string) => asserts condition;

/**
 * A timeout no other timer of the client uses: the census follows the timers armed for about
 * this long (the lock's deadline timer is armed for what is left of it, to the millisecond).
 */
const MARKED_TIMEOUT = 7_777;

/** A timer armed for the marked timeout, until it fires or is cleared. */
interface Marked {
  timer: unknown;
  done: boolean;
}

/**
 * Follows the timers armed for about MARKED_TIMEOUT until `stop()`; `holding()` counts those still
 * pending that hold the process (a runtime's number id always does; Node's and Bun's objects
 * only while ref'd).
 */
function markedTimers(): { holding(): number; armed(): number; stop(): void } {
  const realSet = globalThis.setTimeout;
  const realClear = globalThis.clearTimeout;
  const marked: Marked[] = [];
  const set = ((callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const entry: Marked = { timer: undefined, done: false };
    const timer = realSet(
      (...passed: unknown[]) => {
        entry.done = true;
        callback(...passed);
      },
      ms,
      ...args,
    );
    entry.timer = timer;
    if (typeof ms === 'number' && ms > MARKED_TIMEOUT - 1_000 && ms <= MARKED_TIMEOUT) {
      marked.push(entry);
    }
    return timer;
  }) as typeof setTimeout;
  const clear = ((timer: Parameters<typeof clearTimeout>[0]) => {
    for (const entry of marked) if (entry.timer === timer) entry.done = true;
    realClear(timer);
  }) as typeof clearTimeout;
  globalThis.setTimeout = set;
  globalThis.clearTimeout = clear;
  const holds = (timer: unknown) => {
    const hasRef = (timer as { hasRef?: () => boolean } | null)?.hasRef;
    return typeof hasRef !== 'function' || hasRef.call(timer);
  };
  return {
    holding: () => marked.filter((entry) => !entry.done && holds(entry.timer)).length,
    armed: () => marked.length,
    stop() {
      globalThis.setTimeout = realSet;
      globalThis.clearTimeout = realClear;
    },
  };
}

/** The abort listeners added to `signal` and not removed since (an abort removes `once` ones). */
function listenerCount(signal: AbortSignal): () => number {
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  let count = 0;
  signal.addEventListener = ((...args: Parameters<AbortSignal['addEventListener']>) => {
    if (args[0] === 'abort') count++;
    add(...args);
  }) as AbortSignal['addEventListener'];
  signal.removeEventListener = ((...args: Parameters<AbortSignal['removeEventListener']>) => {
    if (args[0] === 'abort') count--;
    remove(...args);
  }) as AbortSignal['removeEventListener'];
  return () => count;
}

/** Runs the three rules on `path`, `holder` and `waiter` being two sessions. */
export async function checkTimerRules(
  holder: Client,
  waiter: Client,
  path: string,
  check: Check,
): Promise<void> {
  const census = markedTimers();
  try {
    // Granted: the deadline's timer is taken off or no longer holds the process.
    const stop = new AbortController();
    const listeners = listenerCount(stop.signal);
    const lease = await new Mutex(waiter, path).acquire({
      timeout: MARKED_TIMEOUT,
      signal: stop.signal,
    });
    await lease.release();
    check(census.armed() > 0, 'the acquire armed no timer for its timeout');
    check(census.holding() === 0, `${census.holding()} timer(s) still pending after the grant`);
    check(listeners() === 0, `${listeners()} abort listener(s) left on the signal after the grant`);

    // Timed out: TIMEOUT, at its time and not before.
    const held = await new Mutex(holder, path).acquire();
    const started = performance.now();
    const error = await new Mutex(waiter, path).acquire({ timeout: 300 }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    const elapsed = performance.now() - started;
    check(
      error instanceof LockTimeoutError && error.code === 'TIMEOUT',
      `a timeout rejected with ${error instanceof ZooKeeperError ? error.code : String(error)}`,
    );
    check(elapsed >= 300, `the 300 ms timeout rejected after ${elapsed.toFixed(1)} ms`);
    check(elapsed < 10_000, `the 300 ms timeout rejected only after ${elapsed.toFixed(0)} ms`);

    // Aborted: the signal's reason, at once (before a timer armed at the abort runs).
    const abort = new AbortController();
    const left = listenerCount(abort.signal);
    let settled = false;
    const waiting = new Mutex(waiter, path)
      .acquire({ timeout: MARKED_TIMEOUT, signal: abort.signal })
      .then(
        () => 'granted',
        (thrown: unknown) => thrown,
      )
      .finally(() => {
        settled = true;
      });
    await waiter.sync(path); // the acquire's create and listing were answered before this
    const reason = new Error('the caller gave up');
    abort.abort(reason);
    await new Promise((resolve) => setTimeout(resolve, 0));
    check(settled, 'an aborted acquire had not settled by the next timer');
    check((await waiting) === reason, "an aborted acquire did not reject with the signal's reason");
    check(left() <= 1, `${left()} abort listeners were put on one acquire's signal`);
    await held.release();
    check(census.holding() === 0, `${census.holding()} timer(s) still pending after the waits`);
  } finally {
    census.stop();
  }
}
