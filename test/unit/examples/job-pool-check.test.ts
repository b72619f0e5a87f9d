// The job pool's safety check (test/support/job-pool-check.ts) finds each way the property can
// break, so that the worked service's test (test/integration/job-pool) cannot pass on a broken pool.
import { describe, expect, it } from 'vitest';
import type { StoreEntry } from '../../../examples/job-pool/store.js';
import { jobPoolViolations } from '../../support/job-pool-check.js';

const entry = (
  step: StoreEntry['step'],
  worker: string,
  token: bigint,
  accepted = true,
  job = 'job-000001',
): StoreEntry => ({ job, step, worker, token, accepted });

describe('jobPoolViolations', () => {
  it('passes a job redone by a later holder after a paused holder was refused', () => {
    const log = [
      entry('begin', 'w1', 10n),
      entry('begin', 'w2', 20n), // w1 paused past its session: w2 took the lock
      entry('finish', 'w1', 10n, false), // w1's finish arrives late: refused
      entry('finish', 'w2', 20n),
    ];
    expect(jobPoolViolations(log, [{ job: 'job-000001', worker: 'w2', token: 20n }])).toEqual([]);
  });

  it("finds a stale holder's finish that a store without fencing accepted", () => {
    const log = [
      entry('begin', 'w1', 10n),
      entry('begin', 'w2', 20n),
      entry('finish', 'w1', 10n),
      entry('finish', 'w2', 20n),
    ];
    const found = jobPoolViolations(log, [{ job: 'job-000001', worker: 'w2', token: 20n }]);
    expect(found.join('\n')).toMatch(/accepted after token 20/);
    expect(found.join('\n')).toMatch(/finished while token 20 held the job/);
  });

  it('finds two holders at once with increasing tokens (a lock that let two in)', () => {
    const log = [
      entry('begin', 'w1', 10n),
      entry('begin', 'w2', 20n),
      entry('finish', 'w2', 20n),
      entry('begin', 'w1', 10n),
    ];
    expect(jobPoolViolations(log, []).join('\n')).toMatch(/accepted after token 20/);
  });

  it('finds one token sent by two workers', () => {
    const log = [entry('begin', 'w1', 10n), entry('finish', 'w2', 10n)];
    expect(jobPoolViolations(log, []).join('\n')).toMatch(/token 10 was w1's/);
  });

  it('finds a finish without a begin', () => {
    expect(jobPoolViolations([entry('finish', 'w1', 10n)], []).join('\n')).toMatch(
      /finished without a begin/,
    );
  });

  it('finds a done record that disagrees with the store', () => {
    const log = [entry('begin', 'w1', 10n), entry('finish', 'w1', 10n), entry('begin', 'w2', 20n)];
    const found = jobPoolViolations(log, [{ job: 'job-000001', worker: 'w1', token: 10n }]);
    expect(found.join('\n')).toMatch(/done by w1 with token 10, but the store's highest is 20/);
    const never = jobPoolViolations(
      [entry('begin', 'w1', 10n)],
      [{ job: 'job-000001', worker: 'w1', token: 10n }],
    );
    expect(never.join('\n')).toMatch(/never finished/);
  });
});
