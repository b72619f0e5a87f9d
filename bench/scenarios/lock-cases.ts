// Measuring lock contenders (ours, the node-zookeeper-client recipes, Curator) the same way: each
// implementation runs in a fresh process of its own (bench/lock-probe.ts, or one JVM), and what
// each acquisition costs on the server (requests, watch events, CPU) comes from its counters
// around that process.
import type { JavaRunner } from '../baselines/java.js';
import { runProbe } from '../child.js';
import type { ProbeResult, ProbeSpec } from '../lock-probe-spec.js';
import type { Measured } from '../run-case.js';
import { type ServerCost, withServerCost } from '../server-cost.js';
import { median, summarize, type Timing } from '../stats.js';
import type { BenchContext, Impl } from '../types.js';

/** One process's run of one lock case, with what it cost the server. */
export interface LockRun {
  result: ProbeResult;
  cost: ServerCost;
}

/** A probe spec without what every case shares. */
export type LockSpec = Omit<ProbeSpec, 'server' | 'seed' | 'timing'>;

/** Runs one lock case of ours or of the node-zookeeper-client recipes in a fresh Node process. */
export async function probeLockRun(
  ctx: BenchContext,
  spec: LockSpec,
  timing: Timing,
): Promise<LockRun> {
  const full: ProbeSpec = { ...spec, server: ctx.server, seed: ctx.seed, timing };
  // Generous: process start, sessions, the run itself, closing up to 64 sessions.
  const timeoutMs = timing.warmupMs + timing.rounds * timing.durationMs + 60_000;
  const { result, cost } = await withServerCost(ctx, async () => {
    const result = await runProbe<ProbeResult>('lock-probe', [JSON.stringify(full)], timeoutMs);
    return { result, operations: result.acquisitions };
  });
  return { result, cost };
}

/** Curator's InterProcessMutex, `n` clients (sessions) on one path, in one fresh JVM. */
export async function curatorLockRun(
  ctx: BenchContext,
  java: JavaRunner,
  path: string,
  n: number,
  timing: Timing,
): Promise<LockRun> {
  const { result, cost } = await withServerCost(ctx, async () => {
    const run = await java.run('curator', { server: ctx.server, path, clients: n }, timing);
    return { result: run, operations: run.total };
  });
  return {
    result: { rounds: result.rounds, acquisitions: result.total, notifications: Number.NaN },
    cost,
  };
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

/**
 * One figure from the runs of one implementation (one run, or one per interleaved round): the
 * median of the rounds, fairness, client CPU, handoff latency, and the server's cost per
 * acquisition (median over the runs).
 */
export function lockMeasured(runs: readonly LockRun[], note?: string): Measured {
  const summary = summarize(runs.flatMap((run) => run.result.rounds));
  const extra: Record<string, number> = {};
  for (const key of ['serverRequestsPerOp', 'serverWatchEventsPerOp', 'serverCpuMicrosPerOp']) {
    const values = runs.map((run) => run.cost[key as keyof ServerCost]);
    if (values.every((v) => v !== undefined)) extra[key] = median(values as number[]);
  }
  const acquisitions = sum(runs.map((run) => run.result.acquisitions));
  const perRelease = (count: number) => (acquisitions > 0 ? count / acquisitions : Number.NaN);
  const notifications = sum(runs.map((run) => run.result.notifications));
  if (Number.isFinite(notifications)) extra.notificationsPerRelease = perRelease(notifications);
  const own = runs.map((run) => run.result.ownNodeNotifications);
  if (own.every((v) => v !== undefined)) {
    extra.ownNodeNotificationsPerRelease = perRelease(sum(own as number[]));
  }
  if (summary.cpuMicrosPerOp !== undefined) extra.cpuMicrosPerOp = summary.cpuMicrosPerOp;
  if (summary.fairness) {
    extra.fairnessMin = summary.fairness.min;
    extra.fairnessMax = summary.fairness.max;
  }
  if (summary.handoff) {
    extra.handoffP50Ms = summary.handoff.p50;
    extra.handoffP99Ms = summary.handoff.p99;
    extra.handoffP999Ms = summary.handoff.p999;
  }
  const measured: Measured = {
    unit: 'acq/s',
    value: summary.throughput,
    latency: { p50: summary.p50, p99: summary.p99, p999: summary.p999 },
    summary,
    extra,
  };
  if (note) measured.note = note;
  return measured;
}

/** One of our non-baseline lock cases: one fresh process, the whole run (warm-up and rounds). */
export async function oursLockCase(ctx: BenchContext, spec: LockSpec): Promise<Measured> {
  return lockMeasured([await probeLockRun(ctx, spec, ctx.timing)]);
}

/** One implementation in an interleaved case: runs one fresh process for the timing it is given. */
export interface Contestant {
  impl: Impl;
  note?: string;
  run(timing: Timing): Promise<LockRun>;
}

/**
 * Runs every contestant once per round, each in a fresh process measuring one window after its own
 * warm-up, the rounds interleaved (round r starts r places further along the list), so a slow
 * spell on the shared machine hits every implementation rather than one. Records one figure per
 * contestant (the median of its rounds), or a failure for one whose process failed.
 */
export async function interleavedLockCase(
  ctx: BenchContext,
  scenario: string,
  name: string,
  contestants: readonly Contestant[],
): Promise<void> {
  const { warmupMs, durationMs, rounds } = ctx.timing;
  const perProcess: Timing = { warmupMs, durationMs, rounds: 1 };
  const runs = new Map<Impl, LockRun[]>(contestants.map((c) => [c.impl, []]));
  const failed = new Set<Impl>();
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < contestants.length; i++) {
      const contestant = contestants[(i + round) % contestants.length]!;
      if (failed.has(contestant.impl)) continue;
      const label = `${scenario} › ${name} › ${contestant.impl} (round ${round + 1}/${rounds})`;
      ctx.progress.step(label, warmupMs + durationMs);
      try {
        runs.get(contestant.impl)!.push(await contestant.run(perProcess));
      } catch (err) {
        failed.add(contestant.impl);
        const error = err instanceof Error ? (err.stack ?? err.message) : String(err);
        ctx.results.failures.push({ scenario, case: name, impl: contestant.impl, error });
        ctx.progress.note(`FAILED ${label}: ${error.split('\n')[0]}`);
      }
    }
  }
  for (const contestant of contestants) {
    if (failed.has(contestant.impl)) continue;
    ctx.results.figures.push({
      scenario,
      case: name,
      impl: contestant.impl,
      interleaved: true,
      ...lockMeasured(runs.get(contestant.impl)!, contestant.note),
    });
  }
}
