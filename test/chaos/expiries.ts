// Progress after expiries: a pure verdict over the log. Every session that expired during the run
// belongs to a client that must renew it and go on taking locks: a slot with no acquisition after
// its expiry is stuck (a client that gave up, or a recipe that never came back). Also the figures:
// how long from the expiry the client reported to its renewal, and to the slot's next acquisition.
import type { AcquiredRecord, ChaosRecord, RunRecord, SessionRecord } from './records.js';

export interface StuckSlot {
  proc: string;
  slot: string;
  /** The expired session. */
  session: string;
  at: number;
  renewed: boolean;
}

export interface ExpiryVerdict {
  /** Sessions reported expired within the workload window. */
  expiries: number;
  /** Of those, renewed by their client. */
  renewals: number;
  /** Expiries followed by no acquisition of the same slot (judged if at least `graceMs` before the stop). */
  stuck: StuckSlot[];
  /** Expiries too close to the stop to judge. */
  unjudged: number;
  /** ms from each expiry to the renewed session. */
  toRenewalMs: number[];
  /** ms from each expiry to the slot's next acquisition. */
  toAcquisitionMs: number[];
}

/** `graceMs`: an expiry later than this before the workload stopped is not judged. */
export function checkExpiries(records: readonly ChaosRecord[], graceMs: number): ExpiryVerdict {
  const run = (phase: RunRecord['phase']) =>
    records.find((r): r is RunRecord => r.t === 'run' && r.phase === phase);
  const start = run('start')?.at ?? Number.NEGATIVE_INFINITY;
  const stop = run('stop')?.at ?? Number.POSITIVE_INFINITY;
  const sessions = records.filter((r): r is SessionRecord => r.t === 'session');
  const acquired = records.filter((r): r is AcquiredRecord => r.t === 'acquired');
  const verdict: ExpiryVerdict = {
    expiries: 0,
    renewals: 0,
    stuck: [],
    unjudged: 0,
    toRenewalMs: [],
    toAcquisitionMs: [],
  };
  for (const expiry of sessions) {
    if (expiry.event !== 'final' || expiry.state !== 'expired') continue;
    if (expiry.at < start || expiry.at > stop) continue;
    verdict.expiries++;
    const sameSlot = (r: { proc: string; slot: string }) =>
      r.proc === expiry.proc && r.slot === expiry.slot;
    const renewal = sessions.find(
      (r) => r.event === 'open' && r.previous === expiry.session && sameSlot(r),
    );
    if (renewal) {
      verdict.renewals++;
      verdict.toRenewalMs.push(renewal.at - expiry.at);
    }
    const next = acquired.find((r) => sameSlot(r) && r.at > expiry.at);
    if (next && next.at <= stop) verdict.toAcquisitionMs.push(next.at - expiry.at);
    else if (expiry.at > stop - graceMs) verdict.unjudged++;
    else
      verdict.stuck.push({
        proc: expiry.proc,
        slot: expiry.slot,
        session: expiry.session,
        at: expiry.at,
        renewed: renewal !== undefined,
      });
  }
  return verdict;
}

/** The q-quantile (0..1) of `values`, nearest rank; NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
