// The other recipes under contention, each with the watch notifications a release causes:
// ReadWriteLock (90% reads), Semaphore(4), and ExclusiveLock (one node: every release wakes all).
import { ExclusiveLock, ReadWriteLock, Semaphore } from '../../src/locks/index.js';
import { deriveSeed, seededRng } from '../rng.js';
import { runCase } from '../run-case.js';
import { IMPL, type Scenario } from '../types.js';
import { leaseAcquire, oursLockCase } from './lock-cases.js';

const CONTENDERS = 16;
const READ_SHARE = 0.9;
const SEMAPHORE_LEASES = 4;

export const rwlock: Scenario = {
  name: 'rwlock',
  description: `ReadWriteLock, ${CONTENDERS} sessions, ${READ_SHARE * 100}/${100 - READ_SHARE * 100} read/write (seeded)`,
  quick: false,
  async run(ctx) {
    const name = `rwlock ${READ_SHARE * 100}/${Math.round(100 - READ_SHARE * 100)} x${CONTENDERS}`;
    await runCase(ctx, { scenario: 'rwlock', case: name, impl: IMPL.ours }, async () => {
      const path = await ctx.casePath('rwlock');
      return oursLockCase(ctx, CONTENDERS, (clients) =>
        clients.map((client, i) => {
          const lock = new ReadWriteLock(client, path);
          const rng = seededRng(deriveSeed(ctx.seed, i));
          return leaseAcquire(() =>
            rng() < READ_SHARE ? lock.read.acquire() : lock.write.acquire(),
          );
        }),
      );
    });
  },
};

export const semaphore: Scenario = {
  name: 'semaphore',
  description: `Semaphore(${SEMAPHORE_LEASES}), ${CONTENDERS} sessions`,
  quick: false,
  async run(ctx) {
    const name = `semaphore(${SEMAPHORE_LEASES}) x${CONTENDERS}`;
    await runCase(ctx, { scenario: 'semaphore', case: name, impl: IMPL.ours }, async () => {
      const path = await ctx.casePath('semaphore');
      return oursLockCase(ctx, CONTENDERS, (clients) =>
        clients.map((client) => {
          const lock = new Semaphore(client, path, SEMAPHORE_LEASES);
          return leaseAcquire(() => lock.acquire());
        }),
      );
    });
  },
};

export const exclusive: Scenario = {
  name: 'exclusive',
  description: `ExclusiveLock, ${CONTENDERS} sessions (the herd: a release notifies every waiter)`,
  quick: true,
  async run(ctx) {
    const name = `exclusive x${CONTENDERS}`;
    await runCase(ctx, { scenario: 'exclusive', case: name, impl: IMPL.ours }, async () => {
      const path = `${await ctx.casePath('exclusive')}/lock`;
      return oursLockCase(ctx, CONTENDERS, (clients) =>
        clients.map((client) => {
          const lock = new ExclusiveLock(client, path);
          return leaseAcquire(() => lock.acquire());
        }),
      );
    });
  },
};
