// Lock contenders in one process: each loops acquire -> (empty critical section) -> release until
// the clock finishes. Latency is the acquire time; per-client counts give fairness.
import type { RoundClock, RoundRecorder } from '../stats.js';

/** One contender: resolves with its release function once it holds the lock. */
export type Acquire = () => Promise<() => Promise<void>>;

export interface ContenderTotals {
  /** Acquisitions over the whole run (warm-up included): the denominator of per-release rates. */
  acquisitions: number;
}

/**
 * Runs the contenders until the clock finishes. With `handoffs` (one lock, one holder at a time),
 * each grant that follows a release also records the handoff: from the moment the previous holder
 * called release to the moment the next holder's acquire resolved.
 */
export async function runContenders(
  clock: RoundClock,
  recorder: RoundRecorder,
  contenders: readonly Acquire[],
  handoffs = false,
): Promise<ContenderTotals> {
  const totals: ContenderTotals = { acquisitions: 0 };
  // When the last holder called release (undefined once a grant has consumed it).
  let releasedAt: number | undefined;
  await Promise.all(
    contenders.map(async (acquire, index) => {
      while (!clock.finished()) {
        const started = performance.now();
        const release = await acquire();
        const granted = performance.now();
        recorder.record(started, granted, index);
        if (handoffs && releasedAt !== undefined) recorder.recordHandoff(releasedAt, granted);
        releasedAt = undefined;
        totals.acquisitions++;
        if (handoffs) releasedAt = performance.now();
        await release();
      }
    }),
  );
  return totals;
}
