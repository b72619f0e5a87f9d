// The recipes' retry policy (src/coordination/retry.ts): which codes are sent again, the pause
// between tries, and the caller's signal as the bound. Pure logic: fake timers, no server.
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  isRetriable,
  pauseBeforeRetry,
  RETRIABLE,
  retry,
} from '../../../src/coordination/retry.js';
import {
  ErrorCode,
  type ErrorCodeName,
  isRetriable as publicIsRetriable,
  RETRIABLE_CODES,
  ZooKeeperError,
} from '../../../src/index.js';
import { isRetriedBy, RETRIED_BY_DEFAULT } from '../../../src/recipes/retry.js';

const fail = (code: ErrorCodeName) => new ZooKeeperError(code, `scripted ${code}`);

/** An op that fails with `codes` in turn, then resolves 'done'; counts its calls. */
function scripted(...codes: ErrorCodeName[]) {
  const op = vi.fn(async () => {
    const code = codes[op.mock.calls.length - 1];
    if (code !== undefined) throw fail(code);
    return 'done';
  });
  return op;
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('lock retry policy: which codes', () => {
  it('retries an unknown outcome and a server that cannot take the request now', () => {
    expect([...RETRIABLE].sort()).toEqual(
      ['CONNECTIONLOSS', 'NOTREADONLY', 'REQUESTTIMEOUT', 'SESSIONMOVED', 'THROTTLEDOP'].sort(),
    );
    for (const code of RETRIABLE) expect(isRetriable(fail(code))).toBe(true);
  });

  it('is the one classification: the error table, the public isRetriable and retry() agree', () => {
    expect([...RETRIABLE_CODES].sort()).toEqual([...RETRIABLE].sort());
    expect([...RETRIED_BY_DEFAULT].sort()).toEqual([...RETRIABLE].sort());
    for (const code of Object.keys(ErrorCode) as ErrorCodeName[]) {
      const error = fail(code);
      const internal = isRetriable(error);
      expect(publicIsRetriable(error), code).toBe(internal);
      expect(error.retriable, code).toBe(internal);
      expect(isRetriedBy(error), code).toBe(internal);
    }
    // The caller's own deadline: sending again cannot help.
    expect(isRetriable(fail('OPERATIONTIMEOUT'))).toBe(false);
  });

  it('never retries session-over codes, answers, or errors that are not ZooKeeperErrors', () => {
    for (const code of ['SESSIONEXPIRED', 'AUTHFAILED', 'NONODE', 'NODEEXISTS'] as const) {
      expect(isRetriable(fail(code))).toBe(false);
    }
    expect(isRetriable(new Error('CONNECTIONLOSS'))).toBe(false);
    expect(isRetriable({ code: 'CONNECTIONLOSS' })).toBe(false);
  });
});

describe('retry()', () => {
  it('sends the request again after each retriable error until it succeeds', async () => {
    const op = scripted('CONNECTIONLOSS', 'REQUESTTIMEOUT', 'CONNECTIONLOSS');
    await expect(retry(op)).resolves.toBe('done');
    expect(op).toHaveBeenCalledTimes(4);
  });

  it('passes any other error on after one try', async () => {
    for (const code of ['NONODE', 'OPERATIONTIMEOUT', 'SESSIONEXPIRED', 'BADVERSION'] as const) {
      const op = scripted(code);
      await expect(retry(op)).rejects.toMatchObject({ code });
      expect(op).toHaveBeenCalledTimes(1);
    }
    const plain = vi.fn(async () => {
      throw new TypeError('bug');
    });
    await expect(retry(plain)).rejects.toBeInstanceOf(TypeError);
    expect(plain).toHaveBeenCalledTimes(1);
  });

  it('retries the extra codes of one call (alsoRetry) with the same pause', async () => {
    vi.useFakeTimers();
    const op = scripted('BADVERSION', 'CONNECTIONLOSS');
    const result = retry(op, { alsoRetry: ['BADVERSION'] });
    await vi.advanceTimersByTimeAsync(0);
    expect(op).toHaveBeenCalledTimes(1); // paused after BADVERSION: a refusal, not a lost link
    await vi.advanceTimersByTimeAsync(200);
    await expect(result).resolves.toBe('done');
    expect(op).toHaveBeenCalledTimes(3);
  });

  it('once the caller signal has aborted, passes the error on instead of retrying', async () => {
    const controller = new AbortController();
    controller.abort(new Error('deadline'));
    const op = scripted('CONNECTIONLOSS');
    await expect(retry(op, { signal: controller.signal })).rejects.toMatchObject({
      code: 'CONNECTIONLOSS',
    });
    expect(op).toHaveBeenCalledTimes(1);
  });

  it('an abort during the pause ends the pause and the retries', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const op = vi.fn(async () => {
      throw fail('THROTTLEDOP');
    });
    const result = retry(op, { signal: controller.signal });
    const settled = result.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(50); // inside the first pause (100 ms at least)
    expect(op).toHaveBeenCalledTimes(1);
    controller.abort(new Error('deadline'));
    await vi.advanceTimersByTimeAsync(0);
    expect(await settled).toMatchObject({ code: 'THROTTLEDOP' });
    // One last try may go out after the pause is cut short (its own signal rejects it at once),
    // never a stream of them.
    expect(op.mock.calls.length).toBeLessThanOrEqual(2);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(op.mock.calls.length).toBeLessThanOrEqual(2);
  });

  it('recover() is asked first: true sends the request again at once, false applies the policy', async () => {
    vi.useFakeTimers();
    const op = scripted('NONODE', 'NONODE', 'THROTTLEDOP');
    const seen: string[] = [];
    const recover = vi.fn((error: unknown) => {
      const code = (error as ZooKeeperError).code;
      seen.push(code);
      return code === 'NONODE';
    });
    const result = retry(op, { recover });
    await vi.advanceTimersByTimeAsync(0);
    expect(op).toHaveBeenCalledTimes(3); // no pause after the recovered NONODEs
    await vi.advanceTimersByTimeAsync(200);
    await expect(result).resolves.toBe('done');
    expect(seen).toEqual(['NONODE', 'NONODE', 'THROTTLEDOP']);
  });

  it('recover() is not asked once the signal has aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const recover = vi.fn(() => true);
    const op = scripted('NONODE');
    await expect(retry(op, { signal: controller.signal, recover })).rejects.toMatchObject({
      code: 'NONODE',
    });
    expect(recover).not.toHaveBeenCalled();
    expect(op).toHaveBeenCalledTimes(1);
  });

  it('an error that recover() does not handle and the policy refuses is thrown', async () => {
    const op = scripted('NOAUTH');
    await expect(retry(op, { recover: () => false })).rejects.toMatchObject({ code: 'NOAUTH' });
    expect(op).toHaveBeenCalledTimes(1);
  });
});

describe('pauseBeforeRetry()', () => {
  it('does not pause after a lost connection or a timed-out request', async () => {
    vi.useFakeTimers();
    for (const code of ['CONNECTIONLOSS', 'REQUESTTIMEOUT'] as const) {
      let done = false;
      void pauseBeforeRetry(fail(code)).then(() => {
        done = true;
      });
      await vi.advanceTimersByTimeAsync(0);
      expect(done).toBe(true);
    }
  });

  it('pauses 100 to 200 ms (jittered) after a refusal', async () => {
    vi.useFakeTimers();
    for (const [random, ms] of [
      [0, 100],
      [0.5, 150],
    ] as const) {
      vi.spyOn(Math, 'random').mockReturnValue(random);
      for (const code of ['THROTTLEDOP', 'NOTREADONLY', 'BADVERSION'] as const) {
        let done = false;
        void pauseBeforeRetry(fail(code)).then(() => {
          done = true;
        });
        await vi.advanceTimersByTimeAsync(ms - 1);
        expect(done).toBe(false);
        await vi.advanceTimersByTimeAsync(1);
        expect(done).toBe(true);
      }
    }
  });

  it('ends at once when the signal aborts, and leaves no timer behind', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    let done = false;
    void pauseBeforeRetry(fail('THROTTLEDOP'), controller.signal).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(10);
    expect(done).toBe(false);
    controller.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });
});
