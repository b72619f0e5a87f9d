// Many lock paths at once, in two layouts: each of 4 sessions contends on every one of 64 paths
// (4 contenders per path, 256 in all, sharing 4 sessions), and 64 paths x 4 sessions with one
// contender per session (256 sessions, each on one path). Total acquisitions/s against the
// server's write ceiling, ours, the floor (the same safe recipe with the least client work), the
// floor with our node names and, in the second layout, the official recipe, in interleaved fresh
// processes.
import { PROBE_LOCK, type ProbeLock, type ProbeSpec } from '../lock-probe-spec.js';
import { IMPL, type Scenario } from '../types.js';
import { type Contestant, interleavedLockCase, probeLockRun } from './lock-cases.js';

export const MANY_PATHS = { paths: 64, sessions: 4 } as const;
export const MANY_PATHS_CASE = `mutex ${MANY_PATHS.paths} paths x ${MANY_PATHS.sessions} sessions`;
/** The second layout: the same 256 contenders, one per session. */
export const MANY_SESSIONS = { paths: 64, perPath: 4 } as const;

/** The name of the one-contender-per-session layout with `paths` paths of `perPath` sessions. */
export function manySessionsCaseName(paths: number, perPath: number): string {
  return `mutex ${paths} paths x ${perPath} (${paths * perPath} sessions, one contender each)`;
}
export const MANY_SESSIONS_CASE = manySessionsCaseName(MANY_SESSIONS.paths, MANY_SESSIONS.perPath);

export const FLOOR_NOTE =
  'not a library: the safe recipe on hand-built frames over a raw socket, no error handling (bench/baselines/floor.ts)';
/**
 * As in the mutex scenario: the floor naming its nodes as our Mutex does. The targets compare
 * ours with the plain floor; this row says how much of the distance is the names' (longer frames
 * and listings for the server and the client, a UUID per acquisition), which every
 * Curator-compatible lock pays.
 */
export const FLOOR_NAMED_NOTE =
  'the floor naming its nodes as our Mutex does (_c_<uuid>-lock-<seq>, a create frame built per acquisition): the cost of the longer names';

export const manyPaths: Scenario = {
  name: 'many-paths',
  description: `${MANY_PATHS_CASE}, and ${MANY_SESSIONS_CASE} (not in --quick): aggregate acquisitions/s, ours, the floor, the official recipe`,
  quick: true,
  async run(ctx) {
    const contestant = (
      lock: ProbeLock,
      shape: Pick<ProbeSpec, 'sessions' | 'paths' | 'layout'>,
    ): Contestant['run'] => {
      return async (timing) => {
        const path = await ctx.casePath(`many-paths-${lock}-${shape.layout ?? 'every-path'}`);
        return probeLockRun(ctx, { lock, path, ...shape }, timing);
      };
    };
    const shared = { sessions: MANY_PATHS.sessions, paths: MANY_PATHS.paths };
    await interleavedLockCase(ctx, 'many-paths', MANY_PATHS_CASE, [
      { impl: IMPL.ours, run: contestant(PROBE_LOCK.manyPaths, shared) },
      { impl: IMPL.floor, note: FLOOR_NOTE, run: contestant(PROBE_LOCK.floorManyPaths, shared) },
      {
        impl: IMPL.floorNamed,
        note: FLOOR_NAMED_NOTE,
        run: contestant(PROBE_LOCK.floorManyPathsNamed, shared),
      },
    ]);
    if (ctx.quick) return;
    const own = {
      sessions: MANY_SESSIONS.paths * MANY_SESSIONS.perPath,
      paths: MANY_SESSIONS.paths,
      layout: 'one-path',
    } as const;
    await interleavedLockCase(ctx, 'many-paths', MANY_SESSIONS_CASE, [
      { impl: IMPL.ours, run: contestant(PROBE_LOCK.manyPaths, own) },
      { impl: IMPL.floor, note: FLOOR_NOTE, run: contestant(PROBE_LOCK.floorManyPaths, own) },
      {
        impl: IMPL.floorNamed,
        note: FLOOR_NAMED_NOTE,
        run: contestant(PROBE_LOCK.floorManyPathsNamed, own),
      },
      {
        impl: IMPL.nzk,
        note: 'official recipe (re-lists the children after each wake)',
        run: contestant(PROBE_LOCK.nzkRecipe, own),
      },
    ]);
  },
};
