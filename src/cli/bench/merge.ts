// Figures of all processes combined exactly: counts summed, histograms merged bucket by bucket,
// handoffs computed from every process's grant and release times on the shared clock.
import type { BenchConfig } from './config.js';
import { Histogram } from './histogram.js';
import type { CaseResult, PartResult } from './part.js';

/** One row of the report: a lock scenario, or one raw operation and mode. */
export interface CaseFigures {
  name: string;
  /** Operations completed in the measured rounds. */
  ops: number;
  /** Operations per second, per round (NaN for a round an interruption kept from running). */
  roundThroughput: number[];
  /** Operations per second over the time measured. */
  throughput: number;
  /** The time measured, ms (all rounds, unless interrupted). */
  measuredMs: number;
  /** Acquire latency (locks) or request latency (raw), µs. */
  latency: Histogram;
  /** Locks: time from a release to the grant it let in (for acquirers already waiting), µs. */
  handoff: Histogram | undefined;
  /** Locks: how evenly the sessions got the lock. */
  fairness: Fairness | undefined;
  errors: Record<string, number>;
}

export interface Fairness {
  /** Jain's index, (Σx)² / (n Σx²): 1 when every session got the same share, 1/n when one got all. */
  jain: number;
  /** Fewest and most acquisitions of one session. */
  min: number;
  max: number;
}

/** The measured time, on the shared clock: from the end of the warm-up to the end of the last round. */
export interface Window {
  from: number;
  to: number;
}

export function mergeParts(
  config: BenchConfig,
  parts: readonly PartResult[],
  window: Window,
): CaseFigures[] {
  const byName = new Map<string, CaseResult[]>();
  for (const part of parts) {
    for (const result of part.cases) {
      byName.set(result.name, [...(byName.get(result.name) ?? []), result]);
    }
  }
  return [...byName.entries()].map(([name, results]) => {
    const roundOps = new Array<number>(config.rounds).fill(0);
    // The parts share one clock and plan: a round lasted as long as its longest-running part.
    const roundMs = new Array<number>(config.rounds).fill(0);
    const latency = new Histogram();
    const errors: Record<string, number> = {};
    const perSession: number[] = [];
    const events: number[] = [];
    for (const result of results) {
      result.roundOps.forEach((ops, round) => {
        roundOps[round]! += ops;
        roundMs[round] = Math.max(roundMs[round]!, result.roundMs[round] ?? 0);
      });
      latency.merge(result.latency);
      for (const [code, count] of Object.entries(result.errors)) {
        errors[code] = (errors[code] ?? 0) + count;
      }
      perSession.push(...result.perSession);
      for (const value of result.events) events.push(value);
    }
    const ops = roundOps.reduce((a, b) => a + b, 0);
    const measuredMs = roundMs.reduce((a, b) => a + b, 0);
    const lock = config.scenario !== 'raw';
    return {
      name,
      ops,
      roundThroughput: roundOps.map((n, round) =>
        roundMs[round]! > 0 ? (n * 1000) / roundMs[round]! : Number.NaN,
      ),
      throughput: measuredMs > 0 ? (ops * 1000) / measuredMs : Number.NaN,
      measuredMs,
      latency,
      handoff: lock ? handoffs(events, window) : undefined,
      fairness: lock ? fairness(perSession) : undefined,
      errors,
    };
  });
}

export function fairness(perSession: readonly number[]): Fairness | undefined {
  if (perSession.length === 0) return undefined;
  const sum = perSession.reduce((a, b) => a + b, 0);
  const squares = perSession.reduce((a, b) => a + b * b, 0);
  return {
    jain: squares === 0 ? Number.NaN : (sum * sum) / (perSession.length * squares),
    min: Math.min(...perSession),
    max: Math.max(...perSession),
  };
}

/**
 * For each grant in a measured round whose acquirer was already waiting when the lock was last
 * released: the time from that release to the grant. Per lock path.
 */
function handoffs(events: readonly number[], window: Window): Histogram {
  const histogram = new Histogram();
  const byPath = new Map<number, { requested: number; granted: number; released: number }[]>();
  for (let i = 0; i + 3 < events.length; i += 4) {
    const path = events[i]!;
    const list = byPath.get(path) ?? [];
    list.push({ requested: events[i + 1]!, granted: events[i + 2]!, released: events[i + 3]! });
    byPath.set(path, list);
  }
  for (const list of byPath.values()) {
    const releases = list.map((e) => e.released).sort((a, b) => a - b);
    for (const event of list) {
      if (event.granted < window.from || event.granted >= window.to) continue;
      const release = latestAtOrBefore(releases, event.granted);
      if (release === undefined || event.requested >= release) continue;
      histogram.record((event.granted - release) * 1000);
    }
  }
  return histogram;
}

/** The largest value <= `time` in an ascending array. */
function latestAtOrBefore(sorted: readonly number[], time: number): number | undefined {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (sorted[mid]! <= time) low = mid + 1;
    else high = mid;
  }
  return low === 0 ? undefined : sorted[low - 1];
}
