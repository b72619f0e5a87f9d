// How zkts reports a time limit of its own (--timeout): the client's TimeoutError, code TIMEOUT,
// exit status 69, never the server's OPERATIONTIMEOUT.
import { describe, expect, it } from 'vitest';
import {
  describeError,
  ExitCode,
  errorLine,
  exitCodeFor,
  requestDeadline,
} from '../../../src/cli/errors.js';
import { makeError, TimeoutError } from '../../../src/protocol/errors.js';

describe('zkts time limits', () => {
  it('a request under --timeout is aborted with the TimeoutError (code TIMEOUT)', async () => {
    const signal = requestDeadline(5);
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
    expect(signal.reason).toBeInstanceOf(TimeoutError);
    expect(signal.reason).toMatchObject({ code: 'TIMEOUT', timeout: 5 });
    expect(describeError(signal.reason, 'get')).toBe(
      'TIMEOUT: no reply within 5 ms (--timeout) (get)',
    );
    expect(exitCodeFor(signal.reason)).toBe(ExitCode.UNAVAILABLE);
  });

  it('--json names the code TIMEOUT, also for the platform timeout reason', () => {
    const ours = JSON.parse(errorLine(new TimeoutError(7, 'no reply'), 'ls', true));
    expect(ours.error).toMatchObject({ code: 'TIMEOUT', status: ExitCode.UNAVAILABLE });
    const platform = new DOMException('The operation timed out.', 'TimeoutError');
    const line = JSON.parse(errorLine(platform, 'ls', true));
    expect(line.error).toMatchObject({ code: 'TIMEOUT', status: ExitCode.UNAVAILABLE });
    expect(describeError(platform, 'ls')).toBe('TIMEOUT: no reply in time (--timeout) (ls)');
  });

  it('the server OPERATIONTIMEOUT keeps its own code', () => {
    const server = makeError('OPERATIONTIMEOUT', 'the server timed out');
    expect(JSON.parse(errorLine(server, 'get', true)).error.code).toBe('OPERATIONTIMEOUT');
    expect(exitCodeFor(server)).toBe(ExitCode.UNAVAILABLE);
  });
});
