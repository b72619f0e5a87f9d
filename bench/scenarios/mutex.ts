// One lock path, Mutex: 1 client (uncontended cycle), then 4, 16, 64 contending sessions, against
// Curator, the node-zookeeper-client recipes and the floor (the same safe recipe with the least
// client work: what any client could reach on this server). Each implementation runs in a fresh
// process per round, and the rounds are interleaved (ours, Curator, recipe, no-re-list recipe,
// floor; the next round starts one further along), so a slow spell on the shared machine hits
// every implementation rather than one. Each process measures one window after its own warm-up.
import { PROBE_LOCK } from '../lock-probe-spec.js';
import type { Timing } from '../stats.js';
import { type BenchContext, IMPL, type Impl, type Scenario } from '../types.js';
import { curatorLockRun, interleavedLockCase, type LockRun, probeLockRun } from './lock-cases.js';

export const MUTEX_CONTENDERS = [1, 4, 16, 64] as const;
export const QUICK_MUTEX_CONTENDERS = [1, 16] as const;

export function mutexCaseName(n: number): string {
  return n === 1 ? 'mutex x1 (uncontended)' : `mutex x${n}`;
}

interface MutexContestant {
  impl: Impl;
  note?: string;
  run(ctx: BenchContext, n: number, timing: Timing): Promise<LockRun>;
}

const CONTESTANTS: readonly MutexContestant[] = [
  {
    impl: IMPL.ours,
    async run(ctx, n, timing) {
      const path = await ctx.casePath(`mutex-ours-${n}`);
      return probeLockRun(ctx, { lock: PROBE_LOCK.mutex, path, sessions: n }, timing);
    },
  },
  {
    impl: IMPL.oursBare,
    note: 'acquire() with no timeout (the zookeeper-ts row passes { timeout: 30_000 }, as users do)',
    async run(ctx, n, timing) {
      const path = await ctx.casePath(`mutex-ours-bare-${n}`);
      return probeLockRun(ctx, { lock: PROBE_LOCK.mutex, path, sessions: n, bare: true }, timing);
    },
  },
  {
    impl: IMPL.curator,
    async run(ctx, n, timing) {
      const java = ctx.java;
      if (!java) throw new Error('Java baselines unavailable');
      return curatorLockRun(ctx, java, await ctx.casePath(`mutex-curator-${n}`), n, timing);
    },
  },
  {
    impl: IMPL.nzk,
    note: 'official recipe (re-lists the children after each wake)',
    async run(ctx, n, timing) {
      const path = await ctx.casePath(`mutex-nzk-${n}`);
      return probeLockRun(ctx, { lock: PROBE_LOCK.nzkRecipe, path, sessions: n }, timing);
    },
  },
  {
    impl: IMPL.nzkNoRelist,
    note: 'UNSAFE if a contender gives up: takes the lock on its predecessor deletion without re-listing',
    async run(ctx, n, timing) {
      const path = await ctx.casePath(`mutex-nzk-norelist-${n}`);
      return probeLockRun(ctx, { lock: PROBE_LOCK.nzkNoRelist, path, sessions: n }, timing);
    },
  },
  {
    impl: IMPL.floor,
    note: 'not a library: the safe recipe on hand-built frames over a raw socket, no error handling (bench/baselines/floor.ts)',
    async run(ctx, n, timing) {
      const path = await ctx.casePath(`mutex-floor-${n}`);
      return probeLockRun(ctx, { lock: PROBE_LOCK.floor, path, sessions: n }, timing);
    },
  },
  {
    impl: IMPL.floorNamed,
    note: 'the floor naming its nodes as our Mutex does (_c_<uuid>-lock-<seq>, a create frame built per acquisition): the cost of the longer names',
    async run(ctx, n, timing) {
      const path = await ctx.casePath(`mutex-floor-named-${n}`);
      return probeLockRun(ctx, { lock: PROBE_LOCK.floorNamed, path, sessions: n }, timing);
    },
  },
];

export const mutex: Scenario = {
  name: 'mutex',
  description:
    'one lock path: Mutex vs Curator InterProcessMutex vs node-zookeeper-client recipes, interleaved fresh processes',
  quick: true,
  async run(ctx) {
    for (const n of ctx.contenders ?? (ctx.quick ? QUICK_MUTEX_CONTENDERS : MUTEX_CONTENDERS)) {
      const name = mutexCaseName(n);
      const contestants = CONTESTANTS.filter((c) => {
        if (c.impl !== IMPL.curator || ctx.java) return true;
        const reason = ctx.javaSkipped ?? 'Java baselines unavailable';
        ctx.results.skipped.push({ scenario: 'mutex', case: name, impl: c.impl, reason });
        return false;
      });
      await interleavedLockCase(
        ctx,
        'mutex',
        name,
        contestants.map((c) => ({
          impl: c.impl,
          note: c.note,
          run: (timing) => c.run(ctx, n, timing),
        })),
      );
    }
  },
};
