// The public retry helper's policy: which errors it retries, the backoff, and its bounds.
import { describe, expect, it } from 'vitest';
import { makeError } from '../../../src/protocol/errors.js';
import { backoffDelay, isRetriedBy, retry } from '../../../src/recipes/index.js';

const loss = () => makeError('CONNECTIONLOSS', 'lost');
const expired = () => makeError('SESSIONEXPIRED', 'expired');

describe('retry', () => {
  it('retries a lost connection until the op succeeds', async () => {
    let calls = 0;
    const value = await retry(
      async () => {
        calls++;
        if (calls < 3) throw loss();
        return 'ok';
      },
      { baseDelay: 1 },
    );
    expect(value).toBe('ok');
    expect(calls).toBe(3);
  });

  it('passes on errors it does not retry, at once', async () => {
    let calls = 0;
    await expect(
      retry(async () => {
        calls++;
        throw makeError('NONODE', 'none');
      }),
    ).rejects.toMatchObject({ code: 'NONODE' });
    expect(calls).toBe(1);
  });

  it('retries SESSIONEXPIRED only when asked', async () => {
    expect(isRetriedBy(expired())).toBe(false);
    expect(isRetriedBy(expired(), { retrySessionExpired: true })).toBe(true);
    expect(isRetriedBy(makeError('BADVERSION', 'v'), { retryOn: ['BADVERSION'] })).toBe(true);
  });

  it('stops after maxAttempts with the last error', async () => {
    let calls = 0;
    await expect(
      retry(
        async () => {
          calls++;
          throw loss();
        },
        { maxAttempts: 4, baseDelay: 1 },
      ),
    ).rejects.toMatchObject({ code: 'CONNECTIONLOSS' });
    expect(calls).toBe(4);
  });

  it('stops when the next pause would pass maxElapsed', async () => {
    const started = Date.now();
    await expect(
      retry(
        async () => {
          throw loss();
        },
        { maxAttempts: Number.POSITIVE_INFINITY, baseDelay: 20, jitter: 'none', maxElapsed: 200 },
      ),
    ).rejects.toMatchObject({ code: 'CONNECTIONLOSS' });
    expect(Date.now() - started).toBeLessThan(400);
  });

  it('rejects with the signal reason when aborted during a pause', async () => {
    const controller = new AbortController();
    const reason = new Error('stop');
    const pending = retry(
      async () => {
        throw loss();
      },
      { baseDelay: 10_000, jitter: 'none', signal: controller.signal },
    );
    setTimeout(() => controller.abort(reason), 20);
    await expect(pending).rejects.toBe(reason);
  });

  it('rejects a bad policy with BADARGUMENTS', async () => {
    await expect(retry(async () => 1, { maxAttempts: 0 })).rejects.toMatchObject({
      code: 'BADARGUMENTS',
    });
  });
});

describe('backoffDelay', () => {
  it('doubles from baseDelay up to maxDelay, and jitter stays within the backoff', () => {
    const policy = { baseDelay: 100, maxDelay: 1_000, jitter: 'none' } as const;
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, policy))).toEqual([
      100, 200, 400, 800, 1_000, 1_000,
    ]);
    for (let i = 0; i < 100; i++) {
      const full = backoffDelay(3, { baseDelay: 100, jitter: 'full' });
      expect(full).toBeGreaterThanOrEqual(0);
      expect(full).toBeLessThanOrEqual(400);
      const equal = backoffDelay(3, { baseDelay: 100, jitter: 'equal' });
      expect(equal).toBeGreaterThanOrEqual(200);
      expect(equal).toBeLessThanOrEqual(400);
    }
  });
});
