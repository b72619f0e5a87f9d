// Many lock paths at once: each of a few sessions contends on every path, so each path has one
// contender per session. Total acquisitions/s against the server's write ceiling, ours and the
// floor (the same safe recipe with the least client work) in interleaved fresh processes, so the
// run also shows how much of the ceiling the recipe's requests allow at all.
import { PROBE_LOCK, type ProbeLock } from '../lock-probe-spec.js';
import { IMPL, type Scenario } from '../types.js';
import { type Contestant, interleavedLockCase, probeLockRun } from './lock-cases.js';

export const MANY_PATHS = { paths: 64, sessions: 4 } as const;
export const MANY_PATHS_CASE = `mutex ${MANY_PATHS.paths} paths x ${MANY_PATHS.sessions} sessions`;

export const manyPaths: Scenario = {
  name: 'many-paths',
  description: `${MANY_PATHS_CASE}: aggregate acquisitions/s vs the write ceiling, ours and the floor`,
  quick: true,
  async run(ctx) {
    const contestant = (lock: ProbeLock): Contestant['run'] => {
      return async (timing) => {
        const path = await ctx.casePath(`many-paths-${lock}`);
        const { sessions, paths } = MANY_PATHS;
        return probeLockRun(ctx, { lock, path, sessions, paths }, timing);
      };
    };
    await interleavedLockCase(ctx, 'many-paths', MANY_PATHS_CASE, [
      { impl: IMPL.ours, run: contestant(PROBE_LOCK.manyPaths) },
      {
        impl: IMPL.floor,
        note: 'not a library: the safe recipe on hand-built frames over a raw socket, no error handling (bench/baselines/floor.ts)',
        run: contestant(PROBE_LOCK.floorManyPaths),
      },
    ]);
  },
};
