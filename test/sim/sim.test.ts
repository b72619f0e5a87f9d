// The deterministic simulation in CI: a fixed seed range of worlds must keep every invariant, and
// replaying a seed must give the same trace hash. Worlds run in a child process (`npm run sim`)
// because a world replaces the process's timers, clock and randomness with virtual ones.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { childEnvironment } from './stryker-bridge.js';

interface Summary {
  worlds: number;
  seconds: number;
  handoffsPerSecond: number;
  totals: Record<string, number>;
  failures: { seed: number; violations: string[]; tail: string[] }[];
  mismatches: number[];
}

function sim(args: string[]): Summary {
  const child = childEnvironment();
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'test/sim/main.ts', '--json', ...args],
    {
      encoding: 'utf8',
      timeout: 120_000,
      env: child.env,
    },
  );
  child.collect();
  const line = run.stdout.trim().split('\n').pop() ?? '';
  if (!line.startsWith('{')) throw new Error(`sim gave no summary: ${run.stderr}${run.stdout}`);
  return JSON.parse(line) as Summary;
}

/** A failing world, shown with its seed, its violations and the end of its trace. */
function explain(summary: Summary): string {
  return summary.failures
    .map((f) => `seed ${f.seed}:\n  ${f.violations.join('\n  ')}\n${f.tail.join('\n')}`)
    .join('\n\n');
}

describe('deterministic simulation', () => {
  it('replays every seed byte for byte (same trace hash twice)', () => {
    // Seeds 5 to 8 include a member crash and a member cut off.
    const summary = sim(['--from', '5', '--count', '4', '--twice', '--duration', '10000']);
    expect(summary.mismatches).toEqual([]);
    expect(summary.worlds).toBe(4);
    expect((summary.totals.crashes ?? 0) + (summary.totals.partitions ?? 0)).toBeGreaterThan(0);
  }, 120_000);

  it('keeps every invariant over the CI seed range, with faults', () => {
    const summary = sim(['--from', '1', '--count', '30', '--duration', '15000']);
    expect(explain(summary)).toBe('');
    // The worlds really did contend and suffer faults, or the range proves nothing.
    expect(summary.totals.handoffs).toBeGreaterThan(700);
    // Holds spanned faults: leases were lost while held.
    expect(summary.totals.lost).toBeGreaterThan(10);
    expect(summary.totals.faults).toBeGreaterThan(50);
    expect(summary.totals.expired).toBeGreaterThan(0);
    // Clients renewed expired sessions and their workloads went on (session renewal).
    expect(summary.totals.renewals).toBeGreaterThan(0);
    // Members crashed and were cut off, and leaders were elected again.
    expect(summary.totals.crashes).toBeGreaterThan(0);
    expect(summary.totals.partitions).toBeGreaterThan(0);
    expect(summary.totals.elections).toBeGreaterThan(0);
    // The swarm: the range visits worlds with digest auth enforced, at the sequence limit, with
    // slow followers, with resets aimed between a watch and its event, and with flapping
    // members, and runs every workload (revocation and registration among them).
    expect(summary.totals.authWorlds).toBeGreaterThan(0);
    expect(summary.totals['fault.watchReset']).toBeGreaterThan(0);
    expect(summary.totals['fault.flap']).toBeGreaterThan(0);
    for (const workload of ['revocation', 'registration', 'semaphore', 'latch', 'selector'])
      expect(summary.totals[`workload.${workload}`], workload).toBeGreaterThan(0);
  }, 120_000);

  it('a revalidation that lands late moves the session away from its live connection: the model closes that connection (as ZooKeeper does), it never answers SESSIONMOVED', () => {
    // The ZOOKEEPER-710 window, aimed at: a client reconnects through a follower whose link to
    // the leader stalls past the client's attempt budget, settles on another member, and then the
    // stalled revalidation lands and moves the session's owner. With the model answering
    // SESSIONMOVED there (as it once did), acquires and releases failed with it (seeds 8 and 9
    // of the mutex, 1, 4 and 9 of the semaphore).
    let moved = 0;
    for (const workload of ['mutex', 'semaphore']) {
      const summary = sim([
        ...['--from', '1', '--count', '10', '--duration', '10000', '--workload', workload],
        ...['--faults', 'lateRevalidation,lateRevalidation,reset'],
      ]);
      expect(explain(summary)).toBe('');
      moved += summary.totals.sessionMoved ?? 0;
    }
    expect(moved).toBeGreaterThan(0);
  }, 120_000);

  it("ExclusiveLock: a release whose delete reply was lost never deletes the next holder's node", () => {
    // Found by the long run (seed 201864, 10 s worlds): p2's release deleted /locks/excl, the
    // reply was lost, p2 reconnected to a follower that had not applied the delete, read its own
    // old node there (version 0), and its retry deleted p0's node (also version 0): two holders.
    // The release now syncs before it reads. This world reaches that window (a lost write reply
    // with the other followers late to apply it, then a reconnect); it is an exclusive world.
    const summary = sim(['--from', '201864', '--count', '1', '--duration', '10000']);
    expect(summary.totals['workload.exclusive']).toBe(1);
    expect(summary.totals['fault.lostReplyStall']).toBeGreaterThan(0);
    expect(explain(summary)).toBe('');
  }, 120_000);

  it('a MultiLock contender heading one queue while it waits in the other is not a stuck queue', () => {
    // Found by the long run (30 s worlds): the contender holds multi-a's part while it queues
    // for multi-b behind two or three long holds (and in 230809 a black hole), so multi-a's head
    // went unheld past the audit's bound though everything moved. The audit now judges such a
    // head by the queue it waits in; it failed all five worlds before. In 237989 a waiter's
    // session expired, the server swept the empty multi-a container, and the waiter's listing
    // on the renewed session got NONODE: its acquire failed with it (a library bug, now fixed:
    // it queues again; the workload's acquires must never fail with NONODE).
    for (const seed of [230809, 230847, 234517, 237989, 239398]) {
      const summary = sim(['--from', String(seed), '--count', '1', '--duration', '30000']);
      expect(summary.totals['workload.multilock'], String(seed)).toBe(1);
      expect(explain(summary)).toBe('');
    }
  }, 120_000);

  it('a Semaphore waiter whose session expired and whose lease directory was swept starts again on the renewed session', () => {
    // Found by the long run (seed 230164, 30 s worlds): the waiter's listing on the renewed
    // session got NONODE (the server had swept the empty leases container) and its acquire
    // failed with it. It now starts again (guard and all) as after any renewal.
    const summary = sim(['--from', '230164', '--count', '1', '--duration', '30000']);
    expect(summary.totals['workload.semaphore']).toBe(1);
    expect(summary.totals.renewals).toBeGreaterThan(0);
    expect(explain(summary)).toBe('');
  }, 120_000);

  it('a revoked holder behind a black hole: its node goes a session timeout after its held bytes land', () => {
    // Found by the long run (30 s worlds): the holder is black-holed when asked, gives up, and
    // the pings it sent meanwhile reach the server when the hole ends (TCP retransmits them),
    // keeping its old session, and so its node, alive a session timeout from then. The audit's
    // clock now restarts there; it failed both worlds before.
    for (const seed of [230927, 238356]) {
      const summary = sim(['--from', String(seed), '--count', '1', '--duration', '30000']);
      expect(summary.totals['workload.revocation'], String(seed)).toBe(1);
      expect(summary.totals['fault.holeLong'], String(seed)).toBeGreaterThan(0);
      expect(explain(summary)).toBe('');
    }
  }, 120_000);

  it('keeps every invariant with the sequence counters at their 2^31-1 limit', () => {
    const summary = sim(['--from', '1', '--count', '10', '--duration', '15000', '--wrap']);
    expect(explain(summary)).toBe('');
    expect(summary.totals.handoffs).toBeGreaterThan(250);
  }, 120_000);

  it("the TreeCache equals the server's tree at every quiescent point, across faults and renewals", () => {
    const args = ['--from', '1', '--count', '20', '--duration', '15000', '--workload', 'cache'];
    const summary = sim(args);
    expect(explain(summary)).toBe('');
    // The invariant was judged often, and the cache's client lived through expiries.
    expect(summary.totals.cacheChecks).toBeGreaterThan(100);
    expect(summary.totals.renewals).toBeGreaterThan(0);
  }, 120_000);

  it("the counters: shared counts converge, the atomic long counts each increment once, no delete takes another session's node", () => {
    // Issue 38's items 1-3: a count that stops following a replaced node or after a renewal
    // swallowed its re-read, and a guaranteed delete that deletes another session's registration.
    const args = ['--from', '1', '--count', '20', '--duration', '15000', '--workload', 'counters'];
    const summary = sim(args);
    expect(explain(summary)).toBe('');
    expect(summary.totals.countChecks).toBeGreaterThan(20);
    expect(summary.totals.countReplaced).toBeGreaterThan(50);
    expect(summary.totals.registered).toBeGreaterThan(30);
    expect(summary.totals.renewals).toBeGreaterThan(0);
    // The aimed windows were reached: a count's read rejected by its session's end, and a
    // guaranteed delete tried again after its node went, with another session's node there.
    expect(summary.totals['worlds.countReadExpired']).toBeGreaterThan(5);
    expect(summary.totals['worlds.regReplacedWhileDeleting']).toBeGreaterThan(0);
    // Untried schedules of the issue: an expiry during a multi, a second expiry right after a
    // renewal granted the new session.
    expect(summary.totals['worlds.multiExpired']).toBeGreaterThan(0);
    expect(summary.totals['worlds.holeAtRenewal']).toBeGreaterThan(0);
  }, 120_000);

  it('the election (LeaderLatch workload) keeps one leader, also with the counters at their limit', () => {
    for (const wrap of [[], ['--wrap']]) {
      const args = ['--from', '1', '--count', '20', '--duration', '15000', '--workload', 'latch'];
      const summary = sim([...args, ...wrap]);
      expect(explain(summary)).toBe('');
      // Leadership really changed hands, many times, in every mode (terms are held for the
      // world's drawn hold times, up to twice the session timeout).
      expect(summary.totals.handoffs).toBeGreaterThan(200);
    }
  }, 120_000);
  it('guarded writes (lease.multi, leadership.multi) land only while their lease is held, through the aimed expiries and operator deletes', () => {
    // Issue 42's guarded writes and issue 38's untried schedules: an expiry during a LeaderLatch
    // grant, during a guarded multi, during a protected create's recovery, during a resume's
    // handshake; a renewal whose listings still show the old session's node; another
    // participant's election node deleted by someone else; a lease whose signal nobody reads,
    // under each loss policy.
    const args = ['--from', '1', '--count', '20', '--duration', '15000', '--workload', 'guarded'];
    const summary = sim(args);
    expect(explain(summary)).toBe('');
    expect(summary.totals.guardedChecked).toBeGreaterThan(1000);
    expect(summary.totals['worlds.guardRefusedNodeGone']).toBeGreaterThan(0);
    for (const window of [
      'grantHoleExpired',
      'guardedMultiHoleExpired',
      'recoveryHoleExpired',
      'expireAtResumeExpired',
      'listingShowsOldNode',
      'electionNodeDeletedByOther',
      'unreadLost.suspended',
      'unreadLost.expired',
      'unreadDeleted',
    ])
      expect(summary.totals[`worlds.${window}`], window).toBeGreaterThan(0);
  }, 120_000);

  it('the barriers: a wait passes only a lowered barrier, and a lowered barrier releases its waiters; the double barrier settles', () => {
    const args = ['--from', '1', '--count', '20', '--duration', '15000', '--workload', 'barriers'];
    const summary = sim(args);
    expect(explain(summary)).toBe('');
    expect(summary.totals.released).toBeGreaterThan(100);
    expect(summary.totals.entered).toBeGreaterThan(50);
    expect(summary.totals.left).toBeGreaterThan(50);
    expect(summary.totals.renewals).toBeGreaterThan(0);
  }, 120_000);

  it("guarded worlds beyond the CI seeds: an operator delete racing the ledger, and the expired policy's allowed overlap, are not two holders", () => {
    // Found by the long run of the guarded workload (its first version; 11 of 3,000 worlds):
    // 1116, an operator picked a "waiting" participant from a follower's stale listing and deleted
    // the leader; 1214, a holder was granted on a lagging follower's listing that still showed its
    // own node, already deleted by an operator; 1581, under lossPolicy 'expired' a follower's
    // stalled apply held the holder's last reply 800 ms, so its expiry clock ran out 700 ms after
    // the server's and the next leader's (the contract allows it; the docs now say how long).
    for (const seed of [1116, 1214, 1581]) {
      const args = ['--from', String(seed), '--count', '1', '--duration', '15000'];
      const summary = sim([...args, '--workload', 'guarded']);
      expect(explain(summary), String(seed)).toBe('');
    }
  }, 120_000);

  it("the windows the pooled worlds rarely reach: a semaphore full as a lost create reply is recovered, a PersistentNode finding its older session's node", () => {
    // Seeds 1 to 30 of the pooled worlds reach neither (two semaphore worlds, one registration
    // world); aimed at, they are reached in most worlds and every invariant holds.
    const full = sim([
      ...['--from', '1', '--count', '10', '--duration', '15000', '--workload', 'semaphore'],
      ...['--faults', 'lostReplyFull,lostReplyFull,reset'],
    ]);
    expect(explain(full)).toBe('');
    expect(full.totals['worlds.lostReplyAtFull']).toBeGreaterThan(3);
    const old = sim([
      ...['--from', '1', '--count', '10', '--duration', '15000', '--workload', 'registration'],
      ...['--faults', 'renewBeforeServerExpiry,renewBeforeServerExpiry,reset'],
    ]);
    expect(explain(old)).toBe('');
    expect(old.totals['worlds.registrationOldNode']).toBeGreaterThan(3);
  }, 120_000);
});
