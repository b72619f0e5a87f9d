// At scale (opt-in: `--scenario scale`, never in the default or --quick run): 256 and 1,024
// contenders on one lock path, one session each, all in one process per implementation; ours, the
// floor and the official recipe (node-zookeeper-client) in interleaved fresh processes, handoffs/s.
// What one more session costs the client shows here as CPU per acquisition and as the handoff
// chain's length with a thousand sessions' sockets and timers in the process.
// Then the many-paths layout of one contender per session (4 sessions per path) at 64 and 1,024
// sessions, ours and the floor: with many-paths' 256 it shows whether our distance from the floor
// grows with the number of sessions in the process (their state no longer fitting in the caches)
// or is the same at every count (the work per acquisition).
import { PROBE_LOCK, type ProbeLock } from '../lock-probe-spec.js';
import { IMPL, type Scenario } from '../types.js';
import { type Contestant, interleavedLockCase, probeLockRun } from './lock-cases.js';
import { FLOOR_NOTE, MANY_SESSIONS, manySessionsCaseName } from './many-paths.js';

export const SCALE_CONTENDERS = [256, 1024] as const;
/** Sessions of the one-contender-per-session sweep (many-paths measures 256). */
export const SCALE_SESSIONS = [64, 1024] as const;

export function scaleCaseName(n: number): string {
  return `mutex x${n}`;
}

export const scale: Scenario = {
  name: 'scale',
  description: `one lock path, ${SCALE_CONTENDERS.join(' and ')} contending sessions: ours, the floor, the official recipe; then ${SCALE_SESSIONS.join(' and ')} sessions, ${MANY_SESSIONS.perPath} per path, one contender each: ours, the floor`,
  quick: false,
  optIn: true,
  async run(ctx) {
    for (const n of SCALE_CONTENDERS) {
      const contestant = (lock: ProbeLock): Contestant['run'] => {
        return async (timing) => {
          const path = await ctx.casePath(`scale-${lock}-${n}`);
          return probeLockRun(ctx, { lock, path, sessions: n }, timing);
        };
      };
      await interleavedLockCase(ctx, 'scale', scaleCaseName(n), [
        { impl: IMPL.ours, run: contestant(PROBE_LOCK.mutex) },
        { impl: IMPL.floor, note: FLOOR_NOTE, run: contestant(PROBE_LOCK.floor) },
        {
          impl: IMPL.nzk,
          note: 'official recipe (re-lists the children after each wake)',
          run: contestant(PROBE_LOCK.nzkRecipe),
        },
      ]);
    }
    const perPath = MANY_SESSIONS.perPath;
    for (const sessions of SCALE_SESSIONS) {
      const paths = sessions / perPath;
      const shape = { sessions, paths, layout: 'one-path' } as const;
      const contestant = (lock: ProbeLock): Contestant['run'] => {
        return async (timing) => {
          const path = await ctx.casePath(`scale-${lock}-${sessions}-one-path`);
          return probeLockRun(ctx, { lock, path, ...shape }, timing);
        };
      };
      await interleavedLockCase(ctx, 'scale', manySessionsCaseName(paths, perPath), [
        { impl: IMPL.ours, run: contestant(PROBE_LOCK.manyPaths) },
        { impl: IMPL.floor, note: FLOOR_NOTE, run: contestant(PROBE_LOCK.floorManyPaths) },
      ]);
    }
  },
};
