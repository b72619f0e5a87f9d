// The bench's explanation of sessions that could not connect: connect() gives up with a
// TimeoutError (its own limit) or, when every host refused, a ConnectionLossError.
import { describe, expect, it } from 'vitest';
import { explainFailedSessions } from '../../../src/cli/bench/session-limit.js';
import { CliError } from '../../../src/cli/errors.js';
import { makeError, TimeoutError } from '../../../src/protocol/errors.js';

describe('explainFailedSessions', () => {
  it('explains a connect that ran out of time while others connected (the connection limit)', () => {
    const error = new TimeoutError(10_000, 'no ZooKeeper session within 10000 ms from zk:2181');
    const explained = explainFailedSessions(error, 60, 64);
    expect(explained).toBeInstanceOf(CliError);
    expect((explained as CliError).message).toMatch(
      /4 of 64 sessions could not connect.*maxClientCnxns/,
    );
  });

  it('leaves a refused connection (nothing listening) and other errors as they are', () => {
    const refused = makeError(
      'CONNECTIONLOSS',
      'every server refused the connection (ECONNREFUSED)',
    );
    expect(explainFailedSessions(refused, 0, 4)).toBe(refused);
    const other = makeError('AUTHFAILED', 'bad credentials');
    expect(explainFailedSessions(other, 0, 4)).toBe(other);
  });
});
