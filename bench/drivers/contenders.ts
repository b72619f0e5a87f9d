// Lock contenders in one process: each loops acquire -> (empty critical section) -> release until
// the clock finishes. Latency is the acquire time; per-client counts give fairness.
import type { RoundClock, RoundRecorder } from '../stats.js';

/** One contender: resolves with its release function once it holds the lock. */
export type Acquire = () => Promise<() => Promise<void>>;

export interface ContenderTotals {
  /** Acquisitions over the whole run (warm-up included): the denominator of per-release rates. */
  acquisitions: number;
}

export async function runContenders(
  clock: RoundClock,
  recorder: RoundRecorder,
  contenders: readonly Acquire[],
): Promise<ContenderTotals> {
  const totals: ContenderTotals = { acquisitions: 0 };
  await Promise.all(
    contenders.map(async (acquire, index) => {
      while (!clock.finished()) {
        const started = performance.now();
        const release = await acquire();
        recorder.record(started, performance.now(), index);
        totals.acquisitions++;
        await release();
      }
    }),
  );
  return totals;
}
