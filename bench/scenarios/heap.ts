// Heap per idle session: N sessions open in one fresh Node process (see bench/heap-probe.ts), ours
// and node-zookeeper-client. `heap` is the default case (1,000 sessions; --quick 200);
// `idle-sessions` (opt-in: `--scenario idle-sessions`) measures 256, 1,024 and 10,000 sessions in
// one process, to show what one session costs as their number grows.
import { runProbe } from '../child.js';
import { runCase } from '../run-case.js';
import { type BenchContext, IMPL, type Scenario } from '../types.js';

interface ProbeResult {
  count: number;
  heapUsedPerSession: number;
  externalPerSession: number;
  rssPerSession: number;
  timersPerSession: number;
  socketsPerSession: number;
}

/** The server's default limit of connections from one address (maxClientCnxns in zoo.cfg). */
const DEFAULT_MAX_CLIENT_CNXNS = 60;

async function probe(impl: 'ours' | 'nzk', server: string, count: number): Promise<ProbeResult> {
  // Opening 10,000 sessions (50 at a time) takes tens of seconds on a busy machine.
  try {
    return await runProbe<ProbeResult>(
      'heap-probe',
      [impl, server, String(count)],
      120_000 + count * 30,
      ['--expose-gc'],
    );
  } catch (error) {
    throw explainConnectionLimit(error, count);
  }
}

/**
 * A probe opening more sessions than the server lets one address have fails with lost or reset
 * connections: say which limit, as `zkts bench` does.
 */
export function explainConnectionLimit(error: unknown, count: number): unknown {
  const message = error instanceof Error ? error.message : String(error);
  if (count <= DEFAULT_MAX_CLIENT_CNXNS) return error;
  if (!/CONNECTIONLOSS|ECONNRESET|EPIPE|connection (?:loss|closed|reset)|closed/i.test(message))
    return error;
  return new Error(
    `${count} sessions from one process could not all connect: the server most likely limits ` +
      `connections from one address (maxClientCnxns in zoo.cfg, ${DEFAULT_MAX_CLIENT_CNXNS} by ` +
      'default; 0 lifts it): raise it on a server used for this benchmark. The probe said: ' +
      message,
    { cause: error },
  );
}

/** Sessions opened in the idle-sessions scenario's cases. */
export const IDLE_SESSION_COUNTS = [256, 1024, 10_000] as const;

export function idleCaseName(count: number): string {
  return `idle sessions x${count}`;
}

async function idleCase(ctx: BenchContext, scenario: string, count: number): Promise<void> {
  const name = idleCaseName(count);
  for (const [impl, which] of [
    [IMPL.ours, 'ours'],
    [IMPL.nzk, 'nzk'],
  ] as const) {
    await runCase(ctx, { scenario, case: name, impl }, async () => {
      const result = await probe(which, ctx.server, count);
      return {
        unit: 'bytes/session',
        value: result.heapUsedPerSession,
        extra: {
          externalBytesPerSession: result.externalPerSession,
          rssBytesPerSession: result.rssPerSession,
          timersPerSession: result.timersPerSession,
          socketsPerSession: result.socketsPerSession,
        },
        note: 'heapUsed delta after GC',
      };
    });
  }
}

export const heap: Scenario = {
  name: 'heap',
  description: 'heap per idle session, 1,000 sessions in one process (--quick: 200)',
  quick: true,
  async run(ctx) {
    await idleCase(ctx, 'heap', ctx.quick ? 200 : 1000);
  },
};

export const idleSessions: Scenario = {
  name: 'idle-sessions',
  description: `heap, timers and sockets per idle session with ${IDLE_SESSION_COUNTS.join(', ')} sessions in one process, ours and node-zookeeper-client`,
  quick: false,
  optIn: true,
  async run(ctx) {
    for (const count of IDLE_SESSION_COUNTS) await idleCase(ctx, 'idle-sessions', count);
  },
};
