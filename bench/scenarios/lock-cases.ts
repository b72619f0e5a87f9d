// Measuring lock contenders (ours, the node-zookeeper-client recipe, Curator) the same way, with
// what each acquisition costs on the server (requests, watch events) from its `mntr` counters.
import type { Client } from '../../src/index.js';
import type { Lease, LockClient } from '../../src/locks/index.js';
import type { JavaRunner } from '../baselines/java.js';
import { closeNzk } from '../baselines/nzk.js';
import { NzkRecipeMutex } from '../baselines/nzk-lock.js';
import { type Acquire, runContenders } from '../drivers/contenders.js';
import { closeAll, closeOurs, openNzk, openOurs } from '../drivers/sessions.js';
import { WatchCounter } from '../drivers/watch-counter.js';
import type { Measured } from '../run-case.js';
import { withServerCost } from '../server-cost.js';
import { RoundClock, RoundRecorder, type Summary, summarize } from '../stats.js';
import type { BenchContext } from '../types.js';

/** Adapts a lease-returning acquire to the driver's release-function form. */
export function leaseAcquire(acquire: () => Promise<Lease>): Acquire {
  return async () => {
    const lease = await acquire();
    return () => lease.release();
  };
}

interface LockRun {
  summary: Summary;
  /** Acquisitions over the whole run, warm-up included (the denominator of per-release rates). */
  acquisitions: number;
  extra?: Record<string, number>;
  note?: string;
}

/**
 * Runs one lock case and adds what each acquisition cost the server (see server-cost.ts): requests,
 * watch events fired per release, CPU.
 */
async function lockCase(ctx: BenchContext, run: () => Promise<LockRun>): Promise<Measured> {
  const { result, cost } = await withServerCost(ctx, async () => {
    const result = await run();
    return { result, operations: result.acquisitions };
  });
  const { throughput, p50, p99, p999, fairness, cpuMicrosPerOp } = result.summary;
  const extra: Record<string, number> = { ...result.extra, ...cost };
  if (cpuMicrosPerOp !== undefined) extra.cpuMicrosPerOp = cpuMicrosPerOp;
  if (fairness) {
    extra.fairnessMin = fairness.min;
    extra.fairnessMax = fairness.max;
  }
  const measured: Measured = {
    unit: 'acq/s',
    value: throughput,
    latency: { p50, p99, p999 },
    summary: result.summary,
    extra,
  };
  if (result.note) measured.note = result.note;
  return measured;
}

/** Runs the contenders through warm-up and rounds. */
async function measureContenders(
  ctx: BenchContext,
  contenders: readonly Acquire[],
): Promise<{ summary: Summary; acquisitions: number }> {
  const clock = new RoundClock(ctx.timing);
  // Client CPU per acquisition: this process runs only these contenders meanwhile.
  const recorder = new RoundRecorder(clock, contenders.length, true);
  const totals = await runContenders(clock, recorder, contenders);
  return { summary: summarize(recorder.results()), acquisitions: totals.acquisitions };
}

function perRelease(count: number, acquisitions: number): number {
  return acquisitions > 0 ? count / acquisitions : Number.NaN;
}

/**
 * Our recipes: `sessions` sessions, and `build` makes the contenders on them (through clients
 * that count the watch events delivered to the recipes).
 */
export function oursLockCase(
  ctx: BenchContext,
  sessions: number,
  build: (clients: LockClient[], raw: Client[]) => Acquire[],
): Promise<Measured> {
  return lockCase(ctx, async () => {
    const clients = await openOurs(ctx.server, sessions);
    try {
      const counter = new WatchCounter();
      const contenders = build(
        clients.map((c) => counter.wrap(c)),
        clients,
      );
      const { summary, acquisitions } = await measureContenders(ctx, contenders);
      return {
        summary,
        acquisitions,
        extra: {
          notificationsPerRelease: perRelease(counter.events, acquisitions),
          ownNodeNotificationsPerRelease: perRelease(counter.ownNodeEvents, acquisitions),
        },
      };
    } finally {
      await closeAll(clients, closeOurs);
    }
  });
}

/** The node-zookeeper-client predecessor-watch recipe, `n` sessions on one path. */
export function nzkRecipeCase(ctx: BenchContext, path: string, n: number): Promise<Measured> {
  return lockCase(ctx, async () => {
    const clients = await openNzk(ctx.server, n);
    try {
      const locks = clients.map((client) => new NzkRecipeMutex(client, path));
      const { summary, acquisitions } = await measureContenders(
        ctx,
        locks.map((lock) => () => lock.acquire()),
      );
      const events = locks.reduce((sum, lock) => sum + lock.watchEvents, 0);
      return {
        summary,
        acquisitions,
        extra: { notificationsPerRelease: perRelease(events, acquisitions) },
        note: 'official recipe (re-reads children after a wake)',
      };
    } finally {
      await closeAll(clients, closeNzk);
    }
  });
}

/** Curator's InterProcessMutex, `n` clients (sessions) on one path, in one JVM. */
export function curatorMutexCase(
  ctx: BenchContext,
  java: JavaRunner,
  path: string,
  n: number,
): Promise<Measured> {
  return lockCase(ctx, async () => {
    const result = await java.run('curator', { server: ctx.server, path, clients: n }, ctx.timing);
    return { summary: summarize(result.rounds), acquisitions: result.total };
  });
}
