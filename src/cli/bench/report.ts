// The figures of a run, for people (a table) and for scripts (--json).
import type { Output } from '../output.js';
import type { BenchConfig } from './config.js';
import type { Histogram } from './histogram.js';
import type { CaseFigures } from './merge.js';
import { describeCounts, type SessionEventCounts } from './session-events.js';

/** What a run was, for the heading and --json. */
export interface RunInfo {
  runId: string;
  config: BenchConfig;
  /** True when Ctrl-C ended the run early (its figures cover only the time measured). */
  interrupted: boolean;
  /** The servers the sessions used and what happened to the sessions during the run. */
  sessionEvents?: SessionEventCounts;
}

/** Milliseconds with three significant digits (µs in, ms out). */
function ms(micros: number): string {
  if (!Number.isFinite(micros)) return '-';
  const value = micros / 1000;
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
}

function rate(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '-';
}

function histogramJson(h: Histogram | undefined): Record<string, number> | null {
  if (h === undefined || h.count === 0) return null;
  const round = (micros: number) => Math.round(micros) / 1000;
  return {
    count: h.count,
    meanMs: round(h.mean()),
    p50Ms: round(h.quantile(0.5)),
    p99Ms: round(h.quantile(0.99)),
    p999Ms: round(h.quantile(0.999)),
    maxMs: round(h.max),
  };
}

export function reportJson(info: RunInfo, figures: readonly CaseFigures[]): unknown {
  const { config } = info;
  return {
    runId: info.runId,
    scenario: config.scenario,
    interrupted: info.interrupted,
    sessionEvents: info.sessionEvents ?? null,
    settings: {
      sessions: config.sessions,
      processes: config.processes,
      paths: config.scenario === 'paths' ? config.paths : undefined,
      kind: config.kind.type === 'semaphore' ? `semaphore:${config.kind.leases}` : config.kind.type,
      naming: config.naming,
      durationMs: config.durationMs,
      warmupMs: config.warmupMs,
      rounds: config.rounds,
      holdMs: config.holdMs,
      payload: config.payload,
      depth: config.scenario === 'raw' ? config.depth : undefined,
      readPercent: config.scenario === 'rwlock' ? config.readPercent : undefined,
      root: config.root,
    },
    results: figures.map((f) => ({
      name: f.name,
      ops: f.ops,
      throughput: Math.round(f.throughput * 10) / 10,
      measuredMs: Math.round(f.measuredMs),
      roundThroughput: f.roundThroughput.map((t) => Math.round(t * 10) / 10),
      latency: histogramJson(f.latency),
      handoff: histogramJson(f.handoff),
      fairness: f.fairness ?? null,
      errors: f.errors,
    })),
  };
}

/** One line that says what was run. */
export function heading(config: BenchConfig): string {
  const where =
    config.scenario === 'paths'
      ? `${config.paths} paths`
      : config.scenario === 'raw'
        ? `own nodes, pipeline depth ${config.depth}`
        : '1 path';
  const kind =
    config.scenario === 'raw'
      ? ''
      : config.scenario === 'rwlock'
        ? `, ${config.readPercent}% reads`
        : `, ${config.kind.type === 'semaphore' ? `semaphore:${config.kind.leases}` : config.kind.type}${config.naming === 'kazoo' ? ' (kazoo names)' : ''}`;
  const rounds = `${config.durationMs} ms x ${config.rounds} round${config.rounds === 1 ? '' : 's'}`;
  const procs = `${config.processes} process${config.processes === 1 ? '' : 'es'}`;
  return `zkts bench ${config.scenario}: ${config.sessions} sessions on ${where}${kind}, ${procs}, ${rounds} after ${config.warmupMs} ms warm-up, hold ${config.holdMs} ms, payload ${config.payload} B`;
}

export function printReport(out: Output, info: RunInfo, figures: readonly CaseFigures[]): void {
  const lock = info.config.scenario !== 'raw';
  out.line(heading(info.config));
  if (info.interrupted)
    out.line(out.yellow('interrupted: figures cover the time measured before Ctrl-C'));
  const header = lock
    ? [
        'SCENARIO',
        'OPS',
        'OPS/S',
        'ACQUIRE p50',
        'p99',
        'p999',
        'HANDOFF p50',
        'p99',
        'FAIRNESS',
        'ERRORS',
      ]
    : ['OPERATION', 'OPS', 'OPS/S', 'LATENCY p50', 'p99', 'p999', 'ERRORS'];
  const rows = figures.map((f) => {
    const errors = Object.values(f.errors).reduce((a, b) => a + b, 0);
    const errorText =
      errors === 0
        ? '0'
        : out.red(
            `${errors} (${Object.entries(f.errors)
              .map(([c, n]) => `${c} ${n}`)
              .join(', ')})`,
          );
    const base = [
      f.name,
      String(f.ops),
      rate(f.throughput),
      ms(f.latency.quantile(0.5)),
      ms(f.latency.quantile(0.99)),
      ms(f.latency.quantile(0.999)),
    ];
    if (!lock) return [...base, errorText];
    const fair = f.fairness
      ? `${f.fairness.jain.toFixed(3)} (${f.fairness.min}..${f.fairness.max})`
      : '-';
    return [
      ...base,
      ms(f.handoff?.quantile(0.5) ?? Number.NaN),
      ms(f.handoff?.quantile(0.99) ?? Number.NaN),
      fair,
      errorText,
    ];
  });
  out.table(
    [header, ...rows],
    ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'left', 'left'],
  );
  out.line(
    out.dim(
      lock
        ? 'latencies in ms; fairness: Jain’s index over sessions (1 = even), min..max acquisitions per session'
        : 'latencies in ms',
    ),
  );
  if (info.sessionEvents) {
    const { servers, events } = describeCounts(info.sessionEvents);
    out.line(servers);
    const quiet =
      Object.keys(info.sessionEvents.reconnects).length === 0 &&
      Object.keys(info.sessionEvents.expiries).length === 0;
    out.line(quiet ? events : out.yellow(events));
  }
  if (info.config.rounds > 1) {
    for (const f of figures)
      out.line(out.dim(`${f.name}: ops/s per round ${f.roundThroughput.map(rate).join(', ')}`));
  }
}
