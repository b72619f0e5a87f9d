// Many lock paths at once: each of a few sessions contends on every path, so each path has one
// contender per session. Total acquisitions/s against the server's write ceiling.
import { Mutex } from '../../src/locks/index.js';
import { runCase } from '../run-case.js';
import { IMPL, type Scenario } from '../types.js';
import { leaseAcquire, oursLockCase } from './lock-cases.js';

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
        const base = await ctx.casePath('many-paths');
        const paths = Array.from({ length: MANY_PATHS.paths }, (_, i) => `${base}/p-${i}`);
        return oursLockCase(ctx, MANY_PATHS.sessions, (clients) =>
          paths.flatMap((path) =>
            clients.map((client) => {
              const lock = new Mutex(client, path);
              return leaseAcquire(() => lock.acquire());
            }),
          ),
        );
      },
    );
  },
};
