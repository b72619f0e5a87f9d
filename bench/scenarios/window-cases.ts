// Raw-operation cases for the three clients: `sessions` sessions with `window` operations in
// flight each (window 1 = sequential). Used by the raw-ops and write-ceiling scenarios.
import type { JavaRunner } from '../baselines/java.js';
import { closeNzk } from '../baselines/nzk.js';
import { closeAll, closeOurs, openNzk, openOurs } from '../drivers/sessions.js';
import { type Issue, runWindow } from '../drivers/window.js';
import { seededBytes, seededRng } from '../rng.js';
import type { Measured } from '../run-case.js';
import { type ServerCost, withServerCost } from '../server-cost.js';
import { RoundClock, RoundRecorder, type Summary, summarize } from '../stats.js';
import type { BenchContext } from '../types.js';
import { nzkIssue, oursIssue, type RawOp } from './raw-issue.js';

export interface WindowSpec {
  op: RawOp;
  sessions: number;
  /** In flight per session. */
  window: number;
}

const PAYLOAD_BYTES = 32;

function payloadFor(ctx: BenchContext): Uint8Array {
  return seededBytes(seededRng(ctx.seed), PAYLOAD_BYTES);
}

/** A fresh case directory with its `data` node. */
async function prepare(ctx: BenchContext, slug: string): Promise<string> {
  const base = await ctx.casePath(slug);
  await ctx.admin.create(`${base}/data`, payloadFor(ctx));
  return base;
}

/** Runs the window; returns the summary with the server's cost per operation. */
async function measure(
  ctx: BenchContext,
  slots: number,
  issue: Issue,
): Promise<{ summary: Summary; cost: ServerCost }> {
  const { result, cost } = await withServerCost(ctx, async () => {
    const clock = new RoundClock(ctx.timing);
    const recorder = new RoundRecorder(clock, 1, true);
    await runWindow(clock, recorder, slots, issue);
    return { result: summarize(recorder.results()), operations: recorder.total };
  });
  return { summary: result, cost };
}

function measured(
  spec: WindowSpec,
  { summary, cost }: { summary: Summary; cost: ServerCost },
): Measured {
  const { throughput, p50, p99, p999 } = summary;
  const extra: Record<string, number> = {};
  if (cost.serverCpuMicrosPerOp !== undefined)
    extra.serverCpuMicrosPerOp = cost.serverCpuMicrosPerOp;
  if (summary.cpuMicrosPerOp !== undefined) extra.cpuMicrosPerOp = summary.cpuMicrosPerOp;
  if (spec.op === 'createDelete') extra.pairsPerSecond = throughput / 2;
  return { unit: 'ops/s', value: throughput, latency: { p50, p99, p999 }, summary, extra };
}

export async function oursWindow(ctx: BenchContext, spec: WindowSpec): Promise<Measured> {
  const base = await prepare(ctx, `ours-${spec.op}-${spec.sessions}x${spec.window}`);
  const clients = await openOurs(ctx.server, spec.sessions);
  try {
    const slots = spec.sessions * spec.window;
    return measured(
      spec,
      await measure(ctx, slots, oursIssue(clients, spec.op, base, slots, payloadFor(ctx))),
    );
  } finally {
    await closeAll(clients, closeOurs);
  }
}

export async function nzkWindow(ctx: BenchContext, spec: WindowSpec): Promise<Measured> {
  const base = await prepare(ctx, `nzk-${spec.op}-${spec.sessions}x${spec.window}`);
  const clients = await openNzk(ctx.server, spec.sessions);
  try {
    const slots = spec.sessions * spec.window;
    return measured(
      spec,
      await measure(ctx, slots, nzkIssue(clients, spec.op, base, slots, payloadFor(ctx))),
    );
  } finally {
    await closeAll(clients, closeNzk);
  }
}

export async function javaWindow(
  ctx: BenchContext,
  java: JavaRunner,
  spec: WindowSpec,
): Promise<Measured> {
  const base = await prepare(ctx, `java-${spec.op}-${spec.sessions}x${spec.window}`);
  const { result, cost } = await withServerCost(ctx, async () => {
    const result = await java.run(
      'raw',
      {
        server: ctx.server,
        base,
        op: spec.op,
        sessions: spec.sessions,
        window: spec.window,
        seed: ctx.seed,
        payload: PAYLOAD_BYTES,
      },
      ctx.timing,
    );
    return { result, operations: result.total };
  });
  return measured(spec, { summary: summarize(result.rounds), cost });
}
