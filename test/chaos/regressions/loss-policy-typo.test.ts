// Found by the API abuse run: an unknown lossPolicy (a typo such as 'suspend') is accepted
// silently and behaves like 'expired' (Holding.onState only reacts to suspension when the policy
// is exactly 'suspended'): the caller asked for the safe policy and silently got the weaker one,
// whose lease signal does not fire on a dropped connection. `naming` is checked; `lossPolicy`
// should be too.
import { describe, it } from 'vitest';
import { ExclusiveLock, Mutex, ReadWriteLock, Semaphore } from '../../../src/locks/index.js';
import { uniquePath } from '../../harness/index.js';
import { client, expectCode, outcome } from './helpers.js';

describe('regression: an unknown lossPolicy', () => {
  it('is refused with BADARGUMENTS by every recipe', async () => {
    const zk = await client();
    const path = uniquePath('regress-policy');
    const options = { lossPolicy: 'suspend' } as unknown as { lossPolicy: 'suspended' };
    for (const make of [
      () => new Mutex(zk, path, options),
      () => new ReadWriteLock(zk, path, options),
      () => new Semaphore(zk, path, { maxLeases: 2, ...options }),
      () => new ExclusiveLock(zk, path, options),
    ]) {
      // Refused either by the constructor or, at the latest, by the first acquire.
      const result = await outcome(async () => {
        const lock = make();
        const side = lock instanceof ReadWriteLock ? lock.write : lock;
        const lease = await side.acquire({ timeout: 2_000 });
        await lease.release();
        return 'accepted';
      });
      expectCode(result, 'BADARGUMENTS');
    }
  });
});
