// Counts the timers the library arms, for the tests that check that a wait which ended leaves no
// timer behind: globalThis.setTimeout and clearTimeout are wrapped while a census runs, and each
// timer armed from the library's own code (src/, apart from the session's heartbeat and the
// in-process server, which run for as long as a client or server is open) is followed until it
// fires or is cleared.

/** A timer armed while the census ran, until it fired or was cleared. */
interface Followed {
  readonly timer: ReturnType<typeof setTimeout>;
  /** Where it was armed (the first library frame), for a failure's message. */
  readonly where: string;
}

/** Frames of code whose timers live as long as a client or server does, not as long as a wait. */
const LONG_LIVED = /[\\/]src[\\/](session|testing)[\\/]/;
const LIBRARY = /[\\/]src[\\/]/;

/** Whether a pending timer keeps Node running (an unref'd one, or a runtime's number, does not). */
function holds(timer: ReturnType<typeof setTimeout>): boolean {
  const ref = timer as unknown as { hasRef?: () => boolean };
  return typeof ref.hasRef !== 'function' || ref.hasRef();
}

/**
 * Starts a census: `holding()` lists the library's pending timers that hold the process,
 * `pending()` all of its pending timers; `stop()` puts the real functions back.
 */
export function timerCensus(): {
  holding(): string[];
  pending(): string[];
  stop(): void;
} {
  const realSet = globalThis.setTimeout;
  const realClear = globalThis.clearTimeout;
  const live = new Set<Followed>();
  const byTimer = new Map<unknown, Followed>();
  const census = ((callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const stack = new Error().stack ?? '';
    const frames = stack.split('\n').slice(2);
    const first = frames.find((frame) => LIBRARY.test(frame));
    const followed = first !== undefined && !frames.some((frame) => LONG_LIVED.test(frame));
    const timer = realSet(() => {
      const entry = byTimer.get(timer);
      if (entry) {
        live.delete(entry);
        byTimer.delete(timer);
      }
      callback(...args);
    }, ms);
    if (followed) {
      const entry = { timer, where: first.trim() };
      live.add(entry);
      byTimer.set(timer, entry);
    }
    return timer;
  }) as typeof setTimeout;
  const clear = ((timer?: ReturnType<typeof setTimeout>) => {
    const entry = byTimer.get(timer);
    if (entry) {
      live.delete(entry);
      byTimer.delete(timer);
    }
    realClear(timer);
  }) as typeof clearTimeout;
  globalThis.setTimeout = census;
  globalThis.clearTimeout = clear;
  return {
    holding: () => [...live].filter((entry) => holds(entry.timer)).map((entry) => entry.where),
    pending: () => [...live].map((entry) => entry.where),
    stop() {
      if (globalThis.setTimeout === census) globalThis.setTimeout = realSet;
      if (globalThis.clearTimeout === clear) globalThis.clearTimeout = realClear;
    },
  };
}
