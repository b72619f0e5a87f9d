// The other recipes under contention, each with the watch notifications a release causes:
// ReadWriteLock (90% reads), Semaphore(4), and ExclusiveLock (one node: every release wakes all).
import { PROBE_LOCK } from '../lock-probe-spec.js';
import { runCase } from '../run-case.js';
import { IMPL, type Scenario } from '../types.js';
import { oursLockCase } from './lock-cases.js';

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
      return oursLockCase(ctx, {
        lock: PROBE_LOCK.rwlock,
        path,
        sessions: CONTENDERS,
        readShare: READ_SHARE,
      });
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
      return oursLockCase(ctx, {
        lock: PROBE_LOCK.semaphore,
        path,
        sessions: CONTENDERS,
        leases: SEMAPHORE_LEASES,
      });
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
      return oursLockCase(ctx, { lock: PROBE_LOCK.exclusive, path, sessions: CONTENDERS });
    });
  },
};
