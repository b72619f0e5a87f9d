// Keeps `window` operations in flight until the clock finishes: window 1 is sequential, 1000 is
// pipelined. Callback style, so each client pays only for its own API (no adapter promises).
import type { RoundClock, RoundRecorder } from '../stats.js';

/** Issues operation number `seq` of `slot`; calls `done` exactly once when it completes. */
export type Issue = (slot: number, seq: number, done: (error?: unknown) => void) => void;

export function runWindow(
  clock: RoundClock,
  recorder: RoundRecorder,
  window: number,
  issue: Issue,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let active = window;
    let failure: unknown;
    const seqs = new Array<number>(window).fill(0);
    const next = (slot: number): void => {
      if (failure !== undefined || clock.finished()) {
        if (--active === 0) failure === undefined ? resolve() : reject(failure);
        return;
      }
      const issued = performance.now();
      let called = false;
      issue(slot, seqs[slot]!++, (error) => {
        if (called) return;
        called = true;
        if (error !== undefined && error !== null) failure ??= error;
        else recorder.record(issued, performance.now());
        next(slot);
      });
    };
    for (let slot = 0; slot < window; slot++) next(slot);
  });
}
