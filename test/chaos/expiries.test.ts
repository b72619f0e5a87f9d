// The progress-after-expiry verdict on hand-made logs: a slot that renews and takes a lock again
// passes; one that never takes a lock after its expiry is stuck; an expiry at the very end is not
// judged.
import { describe, expect, it } from 'vitest';
import { checkExpiries, quantile } from './expiries.js';
import type { AcquiredRecord, ChaosRecord, SessionRecord } from './records.js';

const T = 1_000;

function session(
  slot: string,
  id: string,
  event: 'open' | 'final',
  at: number,
  previous?: string,
): SessionRecord {
  return {
    t: 'session',
    proc: 'main',
    slot,
    session: id,
    event,
    at,
    ...(event === 'final' ? { state: 'expired' } : {}),
    ...(previous ? { previous } : {}),
  };
}

function acquired(slot: string, at: number): AcquiredRecord {
  return {
    t: 'acquired',
    id: `${slot}-${at}`,
    proc: 'main',
    slot,
    session: '0x0',
    lock: 'mutex',
    side: 'exclusive',
    token: String(at),
    path: `/chaos/mutex/n${at}`,
    at,
  };
}

function run(...records: ChaosRecord[]): ChaosRecord[] {
  return [
    { t: 'run', phase: 'start', at: 0, seed: 1, sessionTimeout: T, maxLeases: 2 },
    ...records,
    { t: 'run', phase: 'stop', at: 20_000 },
  ];
}

describe('checkExpiries', () => {
  it('a renewed slot that takes a lock again is fine, with its delays measured', () => {
    const verdict = checkExpiries(
      run(
        session('a', '0x1', 'final', 1_000),
        session('a', '0x2', 'open', 1_300, '0x1'),
        acquired('a', 1_500),
      ),
      T,
    );
    expect(verdict).toMatchObject({ expiries: 1, renewals: 1, stuck: [], unjudged: 0 });
    expect(verdict.toRenewalMs).toEqual([300]);
    expect(verdict.toAcquisitionMs).toEqual([500]);
  });

  it('a slot with no lock after its expiry is stuck, renewed or not; other slots do not count', () => {
    const verdict = checkExpiries(
      run(
        acquired('a', 500),
        session('a', '0x1', 'final', 1_000),
        session('b', '0x3', 'final', 2_000),
        session('b', '0x4', 'open', 2_100, '0x3'),
        acquired('c', 5_000),
      ),
      T,
    );
    expect(verdict.stuck.map((s) => [s.slot, s.renewed])).toEqual([
      ['a', false],
      ['b', true],
    ]);
  });

  it('an expiry within the grace before the stop is not judged', () => {
    const verdict = checkExpiries(run(session('a', '0x1', 'final', 19_500)), T);
    expect(verdict).toMatchObject({ expiries: 1, stuck: [], unjudged: 1 });
  });

  it('quantile: nearest rank', () => {
    expect(quantile([5, 1, 3, 2, 4], 0.5)).toBe(3);
    expect(quantile([5, 1, 3, 2, 4], 0.99)).toBe(5);
    expect(Number.isNaN(quantile([], 0.5))).toBe(true);
  });
});
