// The `zkts bench --svg` chart: the title fits the chart, and the latencies are written on it.
import { describe, expect, it } from 'vitest';
import { Histogram } from '../../../src/cli/bench/histogram.js';
import type { CaseFigures } from '../../../src/cli/bench/merge.js';
import { renderSvg, wrap } from '../../../src/cli/bench/svg.js';

function figures(name: string, micros: number[]): CaseFigures {
  const latency = new Histogram();
  for (const value of micros) latency.record(value);
  return {
    name,
    ops: micros.length,
    roundThroughput: [500],
    throughput: 500,
    measuredMs: 1000,
    latency,
    handoff: undefined,
    fairness: undefined,
    errors: {},
  };
}

// The heading zkts bench writes for a run with every option given.
const TITLE =
  'zkts bench mutex: 64 sessions on 1 path, mutex, 4 processes, 10000 ms x 3 rounds after 1000 ms warm-up, hold 2 ms, payload 1024 B';

describe('zkts bench --svg', () => {
  it('wraps a long title inside the chart width', () => {
    const svg = renderSvg(TITLE, [figures('mutex', [1_000, 2_000, 50_000])]);
    const width = Number(/^<svg [^>]*width="(\d+)"/.exec(svg)![1]);
    const lines = [
      ...svg.matchAll(/<text x="10" y="\d+" font-size="13" font-weight="bold">([^<]*)<\/text>/g),
    ].map((m) => m[1]!);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.join(' ')).toBe(TITLE);
    for (const line of lines) expect(10 + line.length * 7.5).toBeLessThanOrEqual(width);
  });

  it('prints p50, p99 and p999 beside their bars, not only in hover tooltips', () => {
    const svg = renderSvg('t', [
      figures('mutex', [...Array(995).fill(1_000), ...Array(5).fill(20_000)]),
    ]);
    const visible = svg.replace(/<title>[^<]*<\/title>/g, '');
    expect(visible).toMatch(/<text [^>]*>p50 1\.00<\/text>/);
    expect(visible).toMatch(/<text [^>]*>p99 1\.00<\/text>/);
    expect(visible).toMatch(/<text [^>]*>p999 20\.\d<\/text>/);
  });

  it('wrap breaks at spaces and keeps a long word whole', () => {
    expect(wrap('aa bb cc', 5)).toEqual(['aa bb', 'cc']);
    expect(wrap('averyverylongword x', 5)).toEqual(['averyverylongword', 'x']);
  });
});
