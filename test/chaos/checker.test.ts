// The checker on hand-made logs: clean histories pass, and every planted violation is caught.
import { describe, expect, it } from 'vitest';
import { check } from './checker.js';
import type { ChaosRecord, HoldRecord, LockKind, Side } from './records.js';

const T = 1_000;
let counter = 0;

function hold(
  lock: LockKind,
  side: Side,
  token: number,
  start: number,
  end: number,
  signalAt: number | null = null,
): HoldRecord {
  counter++;
  return {
    t: 'hold',
    id: `h${counter}`,
    proc: 'main',
    slot: `s${counter % 3}`,
    session: `0x${counter.toString(16)}`,
    lock,
    side,
    token: String(token),
    path: `/chaos/${lock}/n${token}`,
    start,
    end,
    signalAt,
    lossReason: signalAt === null ? null : 'suspended',
    releaseError: null,
  };
}

/** A run from 0 to `end` ms with the given records, session timeout T. */
function run(end: number, ...records: ChaosRecord[]): ChaosRecord[] {
  return [
    { t: 'run', phase: 'start', at: 0, seed: 1, sessionTimeout: T, maxLeases: 2 },
    ...records,
    { t: 'run', phase: 'stop', at: end },
  ];
}

/** Acquisitions every 100 ms on the other two locks, so only the lock under test can stall. */
function busy(end: number, except: LockKind | null): HoldRecord[] {
  const out: HoldRecord[] = [];
  let token = 1_000;
  for (let at = 0; at < end; at += 100) {
    if (except !== 'mutex') out.push(hold('mutex', 'exclusive', token++, at, at + 50));
    if (except !== 'rw') out.push(hold('rw', 'read', token++, at, at + 50));
    if (except !== 'sem') out.push(hold('sem', 'lease', token++, at, at + 50));
  }
  return out;
}

const SIDES = { X: 'exclusive', R: 'read', W: 'write', L: 'lease' } as const;

/**
 * A run to `end` ms in which only `lock` can stall (see busy), holding `spans` of it in order:
 * `<side><token> <start>-<end>[!<signalAt>]`, comma-separated, the side X (exclusive), R (read),
 * W (write) or L (lease): `X1 0-600!200` is token 1 held exclusively from 0 to 600 ms, told at 200
 * that its lock may be gone.
 */
function holdsOf(lock: LockKind, end: number, spans: string): ChaosRecord[] {
  const background = busy(end, lock); // first, as the ids count up in order of making
  const holds = spans.split(',').map((span) => {
    const match = /^([XRWL])(\d+) (\d+)-(\d+)(?:!(\d+))?$/.exec(span.trim());
    if (!match) throw new Error(`not a span: ${span}`);
    const [side, token, from, to, at] = match.slice(1);
    const signalAt = at === undefined ? null : Number(at);
    const sideName = SIDES[side as keyof typeof SIDES];
    return hold(lock, sideName, Number(token), Number(from), Number(to), signalAt);
  });
  return run(end, ...background, ...holds);
}

describe('chaos checker', () => {
  it('passes a clean history and counts handoffs', () => {
    const verdict = check(run(1_000, ...busy(1_000, 'mutex'), ...busy(1_000, 'rw')));
    expect(verdict.violations).toEqual([]);
    expect(verdict.stalls).toEqual([]);
    expect(verdict.handoffs).toEqual({ mutex: 10, rw: 10, sem: 20, total: 40 });
    expect(verdict.bySide).toEqual({ exclusive: 10, read: 10, write: 0, lease: 20 });
  });

  it('catches two mutex holders at once', () => {
    const records = holdsOf('mutex', 1_000, 'X1 0-300, X2 250-400, X3 400-900');
    const { violations } = check(records);
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatchObject({ kind: 'overlap', lock: 'mutex' });
    expect(violations[0]!.holds.map((h) => h.token)).toEqual([1n, 2n]);
  });

  it('does not count a holder whose lease signal fired before the next one acquired', () => {
    // The first holder kept working until 600 but was told at 200 that the lock may be gone.
    const records = holdsOf('mutex', 1_000, 'X1 0-600!200, X2 250-900');
    expect(check(records).violations).toEqual([]);
    expect(check(records).leasesLost).toBe(1);
  });

  it('counts a holder whose lease signal fired only after the next one acquired', () => {
    const records = holdsOf('mutex', 1_000, 'X1 0-600!260, X2 250-900');
    const { violations } = check(records);
    expect(violations.map((v) => v.kind)).toEqual(['overlap']);
    expect(violations[0]!.detail).toContain('fired at +260');
  });

  it('catches a fencing token that does not increase', () => {
    const records = holdsOf('mutex', 1_000, 'X5 0-100, X4 150-300, X6 350-500, X6 550-990');
    const { violations } = check(records);
    expect(violations.map((v) => [v.kind, v.holds.map((h) => h.token)])).toEqual([
      ['token-order', [5n, 4n]],
      ['token-order', [6n, 6n]],
    ]);
  });

  it('lets readers share but not with a writer, and orders writers by token', () => {
    const shared = holdsOf('rw', 1_000, 'R1 0-400, R2 100-500, W3 500-700, R4 700-990');
    expect(check(shared).violations).toEqual([]);

    const writerOverReaders = holdsOf('rw', 1_000, 'R1 0-400, R2 100-500, W3 450-700, W4 750-990');
    const caught = check(writerOverReaders).violations;
    expect(caught.map((v) => [v.kind, v.holds.map((h) => h.token)])).toEqual([
      ['overlap', [2n, 3n]],
    ]);

    const readerUnderWriter = holdsOf('rw', 1_000, 'W1 0-400, R2 300-500, W3 600-990');
    expect(check(readerUnderWriter).violations.map((v) => v.kind)).toEqual(['overlap']);

    const writersOutOfOrder = holdsOf('rw', 1_000, 'W9 0-400, R2 400-500, W8 600-990');
    expect(check(writersOutOfOrder).violations.map((v) => v.kind)).toEqual(['token-order']);
  });

  it('allows maxLeases semaphore holders, not one more', () => {
    const two = holdsOf('sem', 1_000, 'L1 0-500, L2 100-600, L3 500-990, L4 600-990');
    expect(check(two).violations).toEqual([]);

    const three = holdsOf('sem', 1_000, 'L1 0-500, L2 100-600, L3 400-990, L4 700-990');
    const { violations } = check(three);
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatchObject({ kind: 'over-capacity', lock: 'sem' });
    expect(violations[0]!.holds.map((h) => h.token)).toEqual([1n, 2n, 3n]);
    // A third holder that had already been told it lost its lease does not count.
    const third = three.find((r) => r.t === 'hold' && r.token === '1') as HoldRecord;
    third.signalAt = 390;
    expect(check(three).violations).toEqual([]);
  });

  it('takes a holder that never reported back as holding until the end', () => {
    const records = run(
      1_000,
      ...busy(1_000, 'mutex'),
      {
        t: 'acquired',
        id: 'lost-child',
        proc: 'child',
        slot: 'c0',
        session: '0x99',
        lock: 'mutex',
        side: 'exclusive',
        token: '1',
        path: '/chaos/mutex/n1',
        at: 100,
      },
      hold('mutex', 'exclusive', 2, 700, 800),
    );
    const verdict = check(records);
    expect(verdict.unfinishedHolds).toBe(1);
    expect(verdict.violations.map((v) => v.kind)).toEqual(['overlap']);
  });

  it('reports a stall longer than 2 session timeouts, not counting time without a quorum', () => {
    const gap = [
      hold('mutex', 'exclusive', 1, 0, 100),
      hold('mutex', 'exclusive', 2, 2_600, 2_700),
    ];
    const stalled = check(run(3_000, ...busy(3_000, 'mutex'), ...gap));
    expect(stalled.stalls).toHaveLength(1);
    expect(stalled.stalls[0]).toMatchObject({ lock: 'mutex', from: 0, to: 2_600 });
    // The first 100 ms the lock was held: that part is no stall.
    expect(stalled.stalls[0]!.effectiveMs).toBe(2_500);
    expect(stalled.longestGap.mutex).toBe(2_500);

    const electing = check(
      run(3_000, ...busy(3_000, 'mutex'), ...gap, { t: 'no-quorum', from: 500, to: 1_200 }),
    );
    expect(electing.stalls).toEqual([]);
    expect(electing.longestGap.mutex).toBe(1_800);
    expect(electing.noQuorumMs).toBe(700);
  });

  it('does not count a long hold as a stall, but a free lock nobody takes is one', () => {
    const longHold = check(holdsOf('mutex', 3_000, 'X1 0-2900'));
    expect(longHold.stalls).toEqual([]);
    // A holder that lost its lease early and stopped: the lock sat free from 300 on.
    const lostEarly = check(holdsOf('mutex', 3_000, 'X1 0-300!250'));
    expect(lostEarly.stalls.map((s) => [s.lock, s.effectiveMs])).toEqual([['mutex', 2_700]]);
  });

  it('counts semaphore time as busy only while every lease is taken', () => {
    const oneOfTwo = check(holdsOf('sem', 3_000, 'L1 0-2900'));
    expect(oneOfTwo.stalls.map((s) => s.lock)).toEqual(['sem']);
    const both = check(holdsOf('sem', 3_000, 'L1 0-2900, L2 10-2900'));
    expect(both.stalls).toEqual([]);
  });

  it('reports a stall at the end of the run and at its start', () => {
    const late = check(holdsOf('sem', 5_000, 'L1 2500-2600'));
    expect(late.stalls.map((s) => [s.lock, s.from, s.to])).toEqual([
      ['sem', 0, 2_500],
      ['sem', 2_500, 5_000],
    ]);
  });

  it('counts orphans, lingering watches, faults and unexpected errors', () => {
    const records = run(
      1_000,
      ...busy(1_000, null),
      { t: 'orphan', phase: 'idle', path: '/chaos/mutex/_c_x-lock-0000000001', owner: '0x1' },
      { t: 'orphan', phase: 'closed', path: '/chaos/mutex/_c_x-lock-0000000001', owner: '0x1' },
      {
        t: 'watch',
        phase: 'closed',
        member: 2,
        path: '/chaos/rw/_c_y-__READ__0000000002',
        session: '0x2',
      },
      {
        t: 'fault',
        kind: 'kill-leader',
        target: 'member 1',
        at: 10,
        healedAt: 20,
        triggered: true,
      },
      { t: 'fault', kind: 'cut-delete', target: 'm0', at: 30, healedAt: 40, triggered: false },
      {
        t: 'error',
        proc: 'main',
        slot: 'm0',
        op: 'acquire',
        code: 'TIMEOUT',
        name: 'LockTimeoutError',
        message: 'timed out',
        at: 50,
        expected: true,
      },
      {
        t: 'error',
        proc: 'main',
        slot: 'm0',
        op: 'release',
        code: 'TypeError',
        name: 'TypeError',
        message: 'boom',
        at: 60,
        expected: false,
      },
    );
    const verdict = check(records);
    expect(verdict.orphans).toHaveLength(1);
    expect(verdict.lingeringWatches).toHaveLength(1);
    expect(verdict.faults['kill-leader']).toBe(1);
    expect(verdict.faultsNotTriggered['cut-delete']).toBe(1);
    expect(verdict.errors).toEqual({ 'acquire:TIMEOUT': 1, 'release:TypeError': 1 });
    expect(verdict.unexpectedErrors.map((e) => e.code)).toEqual(['TypeError']);
  });
});
