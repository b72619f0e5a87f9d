// At scale (opt-in: `--scenario scale`, never in the default or --quick run): 256 and 1,024
// contenders on one lock path, one session each, all in one process per implementation; ours, the
// floor and the official recipe (node-zookeeper-client) in interleaved fresh processes, handoffs/s.
// What one more session costs the client shows here as CPU per acquisition and as the handoff
// chain's length with a thousand sessions' sockets and timers in the process.
import { PROBE_LOCK, type ProbeLock } from '../lock-probe-spec.js';
import { IMPL, type Scenario } from '../types.js';
import { type Contestant, interleavedLockCase, probeLockRun } from './lock-cases.js';
import { FLOOR_NOTE } from './many-paths.js';

export const SCALE_CONTENDERS = [256, 1024] as const;

export function scaleCaseName(n: number): string {
  return `mutex x${n}`;
}

export const scale: Scenario = {
  name: 'scale',
  description: `one lock path, ${SCALE_CONTENDERS.join(' and ')} contending sessions: ours, the floor, the official recipe`,
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
  },
};
