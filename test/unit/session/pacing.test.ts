import { describe, expect, it } from 'vitest';
import { attemptBudget, MAX_RECONNECT_PAUSE, reconnectPause } from '../../../src/session/pacing.js';

describe('attemptBudget', () => {
  it('shares what is left of the connect deadline among the hosts not yet tried', () => {
    // Defaults: session 30 s over 3 hosts = 10 s each; connectTimeout 10 s.
    const first = attemptBudget({
      perHost: 10_000,
      deadline: 10_000,
      now: 0,
      hostCount: 3,
      attempts: 0,
    });
    expect(first).toBe(3_333);
    // The first host used its whole share: the other two split the rest.
    expect(
      attemptBudget({ perHost: 10_000, deadline: 10_000, now: 3_333, hostCount: 3, attempts: 1 }),
    ).toBe(3_333);
    // A refused first host took nothing: the second gets half of everything.
    expect(
      attemptBudget({ perHost: 10_000, deadline: 10_000, now: 5, hostCount: 3, attempts: 1 }),
    ).toBe(4_997);
    // The last host of the pass gets all that is left, within its per-host share.
    expect(
      attemptBudget({ perHost: 4_000, deadline: 10_000, now: 1_000, hostCount: 3, attempts: 2 }),
    ).toBe(4_000);
  });

  it('is the per-host share once a session was had, and never below 1 ms', () => {
    expect(
      attemptBudget({ perHost: 10_000, deadline: null, now: 99_999, hostCount: 3, attempts: 7 }),
    ).toBe(10_000);
    expect(
      attemptBudget({ perHost: 10_000, deadline: 10, now: 50, hostCount: 3, attempts: 0 }),
    ).toBe(1);
  });
});

describe('reconnectPause', () => {
  it('is random in 0 .. 1 s, and at most a quarter of a short session timeout', () => {
    expect(reconnectPause(30_000, () => 0)).toBe(0);
    expect(reconnectPause(30_000, () => 0.999)).toBe(999);
    expect(reconnectPause(30_000, () => 0.5)).toBe(MAX_RECONNECT_PAUSE / 2);
    expect(reconnectPause(2_000, () => 0.999)).toBe(499);
  });
});
