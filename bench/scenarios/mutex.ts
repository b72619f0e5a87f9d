// One lock path, Mutex: 1 client (uncontended cycle), then 4, 16, 64 contending sessions.
import { Mutex } from '../../src/locks/index.js';
import { runCase, runJavaCase } from '../run-case.js';
import { IMPL, type Impl, type Scenario } from '../types.js';
import { curatorMutexCase, leaseAcquire, nzkRecipeCase, oursLockCase } from './lock-cases.js';

export const MUTEX_CONTENDERS = [1, 4, 16, 64] as const;
export const QUICK_MUTEX_CONTENDERS = [1, 16] as const;

export function mutexCaseName(n: number): string {
  return n === 1 ? 'mutex x1 (uncontended)' : `mutex x${n}`;
}

export const mutex: Scenario = {
  name: 'mutex',
  description: 'one lock path: Mutex vs Curator InterProcessMutex vs node-zookeeper-client recipe',
  quick: true,
  async run(ctx) {
    for (const n of ctx.quick ? QUICK_MUTEX_CONTENDERS : MUTEX_CONTENDERS) {
      const id = (impl: Impl) => ({ scenario: 'mutex', case: mutexCaseName(n), impl });
      await runCase(ctx, id(IMPL.ours), async () => {
        const path = await ctx.casePath(`mutex-ours-${n}`);
        return oursLockCase(ctx, n, (clients) =>
          clients.map((client) => {
            const lock = new Mutex(client, path);
            return leaseAcquire(() => lock.acquire());
          }),
        );
      });
      await runJavaCase(ctx, id(IMPL.curator), async (java) =>
        curatorMutexCase(ctx, java, await ctx.casePath(`mutex-curator-${n}`), n),
      );
      await runCase(ctx, id(IMPL.nzk), async () =>
        nzkRecipeCase(ctx, await ctx.casePath(`mutex-nzk-${n}`), n),
      );
    }
  },
};
