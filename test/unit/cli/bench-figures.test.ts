// The figures of `zkts bench`: the log-linear histogram and the exact merge across processes.
import { describe, expect, it } from 'vitest';
import type { BenchConfig } from '../../../src/cli/bench/config.js';
import { bucketOf, bucketRange, Histogram } from '../../../src/cli/bench/histogram.js';
import { fairness, mergeParts } from '../../../src/cli/bench/merge.js';
import type { CaseResult } from '../../../src/cli/bench/part.js';

function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('Histogram', () => {
  it('puts every value in a bucket that holds it, within 1/128 relative width', () => {
    let previous = -1;
    for (let v = 0; v < 1e10; v = v < 1000 ? v + 1 : Math.ceil(v * 1.013)) {
      const bucket = bucketOf(v);
      const [low, high] = bucketRange(bucket);
      expect(v).toBeGreaterThanOrEqual(low);
      expect(v).toBeLessThanOrEqual(high);
      expect(bucket).toBeGreaterThanOrEqual(previous); // monotonic
      if (v >= 256) expect((high + 1 - low) / low).toBeLessThanOrEqual(1 / 128);
      else expect(high).toBe(low); // exact below 256 µs
      previous = bucket;
    }
  });

  it('quantiles stay within the bucket error of the exact percentiles', () => {
    const next = random(7);
    const values = Array.from({ length: 20_000 }, () => Math.floor(50 + next() ** 4 * 2_000_000));
    const histogram = new Histogram();
    for (const v of values) histogram.record(v);
    const sorted = [...values].sort((a, b) => a - b);
    for (const q of [0.5, 0.9, 0.99, 0.999]) {
      const exact = sorted[Math.ceil(q * sorted.length) - 1]!;
      expect(Math.abs(histogram.quantile(q) - exact) / exact).toBeLessThan(1 / 128);
    }
    expect(histogram.quantile(1)).toBe(sorted.at(-1));
  });

  it('merging bucket by bucket equals recording everything in one histogram', () => {
    const next = random(11);
    const whole = new Histogram();
    const parts = [new Histogram(), new Histogram(), new Histogram()];
    for (let i = 0; i < 9_000; i++) {
      // Different distributions per part: averaging their percentiles would be wrong.
      const part = i % 3;
      const v = Math.floor((part + 1) ** 3 * 100 + next() * 10_000 * (part + 1));
      whole.record(v);
      parts[part]!.record(v);
    }
    const merged = new Histogram();
    for (const part of parts)
      merged.merge(Histogram.from(JSON.parse(JSON.stringify(part.toData()))));
    expect(merged.toData()).toEqual(whole.toData());
    for (const q of [0.5, 0.99, 0.999]) expect(merged.quantile(q)).toBe(whole.quantile(q));
  });
});

describe('mergeParts', () => {
  const config = { scenario: 'mutex', rounds: 2, durationMs: 1000 } as BenchConfig;
  const part = (result: Partial<CaseResult>): { cases: CaseResult[] } => ({
    cases: [
      {
        name: 'mutex',
        roundOps: [0, 0],
        roundMs: [1000, 1000],
        latency: new Histogram().toData(),
        perSession: [],
        errors: {},
        events: [],
        ...result,
      },
    ],
  });

  it('sums counts, merges histograms and finds handoffs across processes', () => {
    const a = new Histogram();
    a.record(1000);
    const b = new Histogram();
    b.record(3000);
    b.record(5000);
    // Path 0: A holds 10..12 ms, B was waiting since 11 ms and gets it at 12.5 ms (handoff 0.5
    // ms); A asks again at 13 ms, after B's release at 14 ms it is granted at 14.25 ms.
    const figures = mergeParts(
      config,
      [
        part({
          roundOps: [1, 1],
          latency: a.toData(),
          perSession: [2],
          errors: { X: 1 },
          events: [0, 9, 10, 12, 0, 13, 14.25, 15],
        }),
        part({
          roundOps: [2, 0],
          latency: b.toData(),
          perSession: [2, 0],
          errors: { X: 2, Y: 1 },
          events: [0, 11, 12.5, 14],
        }),
      ],
      { from: 10, to: 2010 },
    );
    expect(figures).toHaveLength(1);
    const [row] = figures;
    expect(row!.ops).toBe(4);
    expect(row!.roundThroughput).toEqual([3, 1]);
    expect(row!.throughput).toBe(2);
    expect(row!.latency.count).toBe(3);
    expect(row!.errors).toEqual({ X: 3, Y: 1 });
    expect(row!.handoff!.count).toBe(2);
    expect(row!.handoff!.min).toBeCloseTo(250);
    expect(row!.handoff!.max).toBeCloseTo(500);
    expect(row!.fairness).toEqual({ jain: 16 / 24, min: 0, max: 2 });
  });

  it('an interrupted run counts only the time it ran', () => {
    // Ctrl-C 500 ms into the second round (one part saw it 100 ms earlier), before the third.
    const cut = { ...config, rounds: 3 } as BenchConfig;
    const [row] = mergeParts(
      cut,
      [
        part({ roundOps: [100, 40, 0], roundMs: [1000, 500, 0] }),
        part({ roundOps: [100, 35, 0], roundMs: [1000, 400, 0] }),
      ],
      { from: 0, to: 3000 },
    );
    expect(row!.measuredMs).toBe(1500);
    expect(row!.roundThroughput).toEqual([200, 150, Number.NaN]);
    expect(row!.throughput).toBeCloseTo((275 * 1000) / 1500);
  });

  it('fairness is 1 for an even share and 1/n when one session gets everything', () => {
    expect(fairness([5, 5, 5, 5])!.jain).toBe(1);
    expect(fairness([8, 0, 0, 0])!.jain).toBe(0.25);
  });
});
