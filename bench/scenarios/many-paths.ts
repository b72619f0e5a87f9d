// Many lock paths at once: each of a few sessions contends on every path, so each path has one
// contender per session. Total acquisitions/s against the server's write ceiling.
import { PROBE_LOCK } from '../lock-probe-spec.js';
import { runCase } from '../run-case.js';
import { IMPL, type Scenario } from '../types.js';
import { oursLockCase } from './lock-cases.js';

export const MANY_PATHS = { paths: 64, sessions: 4 } as const;
export const MANY_PATHS_CASE = `mutex ${MANY_PATHS.paths} paths x ${MANY_PATHS.sessions} sessions`;

export const manyPaths: Scenario = {
  name: 'many-paths',
  description: `${MANY_PATHS_CASE}: aggregate acquisitions/s vs the write ceiling`,
  quick: true,
  async run(ctx) {
    await runCase(
      ctx,
      { scenario: 'many-paths', case: MANY_PATHS_CASE, impl: IMPL.ours },
      async () => {
        return oursLockCase(ctx, {
          lock: PROBE_LOCK.manyPaths,
          path: await ctx.casePath('many-paths'),
          sessions: MANY_PATHS.sessions,
          paths: MANY_PATHS.paths,
        });
      },
    );
  },
};
