// Raw operations on one session: getData, setData, create+delete; sequential and pipelined.
import { runCase, runJavaCase } from '../run-case.js';
import { IMPL, type Scenario } from '../types.js';
import { RAW_OP_LABEL, RAW_OPS, type RawOp } from './raw-issue.js';
import { javaWindow, nzkWindow, oursWindow, type WindowSpec } from './window-cases.js';

export const PIPELINE_WINDOW = 1000;

export function rawCaseName(op: RawOp, window: number): string {
  return `${RAW_OP_LABEL[op]} ${window === 1 ? 'sequential' : `pipelined ${window}`}`;
}

export const raw: Scenario = {
  name: 'raw',
  description: 'getData/setData/create+delete on one session, 1 and 1,000 in flight',
  quick: true,
  async run(ctx) {
    const ops: readonly RawOp[] = ctx.quick ? ['getData'] : RAW_OPS;
    for (const op of ops) {
      for (const window of [1, PIPELINE_WINDOW]) {
        const spec: WindowSpec = { op, sessions: 1, window };
        const id = (impl: (typeof IMPL)[keyof typeof IMPL]) => ({
          scenario: 'raw',
          case: rawCaseName(op, window),
          impl,
        });
        await runCase(ctx, id(IMPL.ours), () => oursWindow(ctx, spec));
        await runCase(ctx, id(IMPL.nzk), () => nzkWindow(ctx, spec));
        await runJavaCase(ctx, id(IMPL.java), (java) => javaWindow(ctx, java, spec));
      }
    }
  },
};
