// What a case cost the server, per operation (per acquisition for locks): requests received and
// watch events fired (from `mntr`), and CPU time of the server process (from /proc, when the
// benchmark started the server). Taken around the whole case, warm-up and session set-up included.
import type { BenchContext } from './types.js';

interface Snapshot {
  requests?: number;
  watchEvents?: number;
  cpuMs?: number;
}

const WATCH_COUNTERS = ['created', 'deleted', 'changed', 'children'].map(
  (kind) => `zk_sum_node_${kind}_watch_count`,
);

async function snapshot(ctx: BenchContext): Promise<Snapshot> {
  const cpuMs = ctx.serverCpuMs();
  const mntr = await ctx.serverStats();
  const out: Snapshot = {};
  if (cpuMs !== undefined) out.cpuMs = cpuMs;
  const requests = Number(mntr?.zk_packets_received);
  if (mntr !== undefined && Number.isFinite(requests)) {
    out.requests = requests;
    out.watchEvents = WATCH_COUNTERS.reduce((sum, key) => sum + (Number(mntr[key]) || 0), 0);
  }
  return out;
}

export interface ServerCost {
  serverRequestsPerOp?: number;
  serverWatchEventsPerOp?: number;
  serverCpuMicrosPerOp?: number;
}

/**
 * Runs `run`, which resolves with its result and the operations it completed over the whole run
 * (warm-up included), and returns both with the server's cost per operation.
 */
export async function withServerCost<T>(
  ctx: BenchContext,
  run: () => Promise<{ result: T; operations: number }>,
): Promise<{ result: T; cost: ServerCost }> {
  const before = await snapshot(ctx);
  const { result, operations } = await run();
  const after = await snapshot(ctx);
  const cost: ServerCost = {};
  const per = (a: number | undefined, b: number | undefined, scale = 1) =>
    a !== undefined && b !== undefined && operations > 0
      ? ((b - a) * scale) / operations
      : undefined;
  const requests = per(before.requests, after.requests);
  const watchEvents = per(before.watchEvents, after.watchEvents);
  const cpu = per(before.cpuMs, after.cpuMs, 1000);
  if (requests !== undefined) cost.serverRequestsPerOp = requests;
  if (watchEvents !== undefined) cost.serverWatchEventsPerOp = watchEvents;
  if (cpu !== undefined) cost.serverCpuMicrosPerOp = cpu;
  return { result, cost };
}
