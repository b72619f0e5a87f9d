// The short chaos run of `npm test`: a real 3-node ensemble, sessions in this process and in a
// separate worker process hammering a Mutex, a ReadWriteLock and a Semaphore(2) through
// per-session proxies, while seeded faults hit the servers and the links (see test/chaos/run.ts
// for long runs). Clients renew expired sessions (the default), and the run proves it: every
// slot whose session expired takes locks again. Seeds 8 and 19 are fixed: seed 8 opens with a
// member paused past the session timeout (SIGSTOP) and a session's links dark for 1.5-2.5 session
// timeouts (a sure expiry); between them their first fault rounds cover kills of the leader and
// a follower, short and long black holes, cuts timed to a create, a delete and a release, delays
// and a member refusing one session.
import { describe, expect, it } from 'vitest';
import { runSuite } from './suite.js';
import { formatSummary } from './summary.js';

const SEEDS = [8, 19];
const FAULT_SECONDS_PER_SEED = 40;
const SESSION_TIMEOUT = 4_000;

describe('chaos', () => {
  it('locks stay exclusive, make progress and leave nothing behind under faults', async () => {
    const { summary, logFile } = await runSuite({
      seeds: SEEDS,
      durationMs: FAULT_SECONDS_PER_SEED * 1_000,
      sessionTimeout: SESSION_TIMEOUT,
      log: (line) => console.log(line),
    });
    console.log(formatSummary(summary));
    if (logFile) console.log(`chaos log kept for inspection: ${logFile}`);

    expect(summary.details.violations, 'two valid holders at once, or tokens out of order').toEqual(
      [],
    );
    expect(summary.violations).toBe(0);
    expect(summary.details.stalls, 'a lock free but not taken for over 2 session timeouts').toEqual(
      [],
    );
    expect(summary.stalls).toBe(0);
    expect(summary.details.orphans, 'contender nodes left on the lock paths').toEqual([]);
    expect(summary.orphans).toBe(0);
    expect(summary.details.watches, 'watches left on the lock paths').toEqual([]);
    expect(summary.lingeringWatches).toBe(0);
    expect(
      summary.details.stuckAfterExpiry,
      'a slot that took no lock after its session expired (renewal or a recipe gave up)',
    ).toEqual([]);
    expect(summary.stuckAfterExpiry).toBe(0);
    // Expiries happened, and each was renewed by its client.
    expect(summary.faults['expire-links']).toBeGreaterThanOrEqual(1);
    expect(summary.faults['freeze-member']).toBeGreaterThanOrEqual(1);
    expect(summary.expiries).toBeGreaterThanOrEqual(1);
    expect(summary.renewals).toBe(summary.expiries);
    expect(summary.details.hung, 'a worker or the fault injector got stuck').toEqual([]);
    expect(summary.details.unexpectedErrors, 'errors the API does not promise').toEqual([]);
    // The run must have done something: many handoffs on every lock, and faults of many kinds.
    expect(summary.handoffs.total).toBeGreaterThan(300);
    expect(summary.handoffs.mutex).toBeGreaterThan(50);
    expect(summary.handoffs.rw).toBeGreaterThan(50);
    expect(summary.handoffs.sem).toBeGreaterThan(50);
    expect(summary.faultsTotal).toBeGreaterThanOrEqual(6);
    expect(Object.values(summary.faults).filter((n) => n > 0).length).toBeGreaterThanOrEqual(5);
  }, 420_000);
});
