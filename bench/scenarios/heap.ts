// Heap per idle session: N sessions open in one fresh Node process (see bench/heap-probe.ts).
import { runProbe } from '../child.js';
import { runCase } from '../run-case.js';
import { IMPL, type Scenario } from '../types.js';

interface ProbeResult {
  count: number;
  heapUsedPerSession: number;
  externalPerSession: number;
  rssPerSession: number;
}

function probe(impl: 'ours' | 'nzk', server: string, count: number): Promise<ProbeResult> {
  return runProbe<ProbeResult>('heap-probe', [impl, server, String(count)], 120_000, [
    '--expose-gc',
  ]);
}

export const heap: Scenario = {
  name: 'heap',
  description: 'heap per idle session, 1,000 sessions in one process (--quick: 200)',
  quick: true,
  async run(ctx) {
    const count = ctx.quick ? 200 : 1000;
    const name = `idle sessions x${count}`;
    for (const [impl, which] of [
      [IMPL.ours, 'ours'],
      [IMPL.nzk, 'nzk'],
    ] as const) {
      await runCase(ctx, { scenario: 'heap', case: name, impl }, async () => {
        const result = await probe(which, ctx.server, count);
        return {
          unit: 'bytes/session',
          value: result.heapUsedPerSession,
          extra: {
            externalBytesPerSession: result.externalPerSession,
            rssBytesPerSession: result.rssPerSession,
          },
          note: 'heapUsed delta after GC',
        };
      });
    }
  },
};
