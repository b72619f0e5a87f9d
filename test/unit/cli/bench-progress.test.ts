import { describe, expect, it } from 'vitest';
import { progressRate } from '../../../src/cli/bench/run.js';

describe('zkts bench progress rate', () => {
  it('is the operations per second between two samples of one case', () => {
    expect(
      progressRate({ time: 0, done: 100, caseIndex: 0 }, { time: 500, done: 600, caseIndex: 0 }),
    ).toBe(1000);
  });

  it('never goes negative when a part restarts its counters before the clock changes case', () => {
    // The counters restarted (a new raw case in a worker) while the clock still says case 0.
    const rate = progressRate(
      { time: 0, done: 5000, caseIndex: 0 },
      { time: 250, done: 40, caseIndex: 0 },
    );
    expect(rate).toBe(160);
  });

  it('counts from zero after a change of case', () => {
    expect(
      progressRate({ time: 0, done: 5000, caseIndex: 0 }, { time: 250, done: 50, caseIndex: 1 }),
    ).toBe(200);
  });
});
