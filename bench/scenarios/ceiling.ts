// The server's own write ceiling: pipelined create+delete over a few sessions, measured with our
// client and with the Java client. Its pairs/s bound the many-path lock aggregate.

import type { Measured } from '../run-case.js';
import { runCase, runJavaCase } from '../run-case.js';
import { IMPL, type Impl, type Scenario } from '../types.js';
import { javaWindow, oursWindow, type WindowSpec } from './window-cases.js';

export const CEILING_SPEC: WindowSpec = { op: 'createDelete', sessions: 4, window: 250 };
export const CEILING_CASE = `create+delete ${CEILING_SPEC.sessions} sessions x ${CEILING_SPEC.window}`;

/** Headline in pairs/s: one lock acquisition costs at least one create and one delete. */
function asPairs(m: Measured): Measured {
  return {
    ...m,
    unit: 'pairs/s',
    value: m.value / 2,
    extra: { ...m.extra, writeOpsPerSecond: m.value },
  };
}

export const ceiling: Scenario = {
  name: 'ceiling',
  description: `server write ceiling: ${CEILING_CASE}`,
  quick: true,
  async run(ctx) {
    const id = (impl: Impl) => ({ scenario: 'ceiling', case: CEILING_CASE, impl });
    await runCase(ctx, id(IMPL.ours), async () => asPairs(await oursWindow(ctx, CEILING_SPEC)));
    await runJavaCase(ctx, id(IMPL.java), async (java) =>
      asPairs(await javaWindow(ctx, java, CEILING_SPEC)),
    );
  },
};
