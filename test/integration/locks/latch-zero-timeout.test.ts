// `leadership({ timeout: 0 })` asks "do I lead now?": asked right after start(), before the
// candidate node exists, the answer must wait for the latch's first listing.
import { afterEach, describe, expect, it } from 'vitest';
import { LeaderLatch, LockTimeoutError } from '../../../src/locks/index.js';
import { lockPath, newClients } from './helpers.js';

const latches: LeaderLatch[] = [];
afterEach(async () => {
  await Promise.all(latches.splice(0).map((latch) => latch.close().catch(() => {})));
});

function latch(...args: ConstructorParameters<typeof LeaderLatch>): LeaderLatch {
  const made = new LeaderLatch(...args);
  latches.push(made);
  return made;
}

describe('LeaderLatch leadership({ timeout: 0 })', () => {
  it('right after start() on a free election: leads', async () => {
    const [a] = await newClients(1);
    const only = latch(a!, lockPath('election'), { id: 'only' });
    only.start();
    const leadership = await only.leadership({ timeout: 0 });
    expect(leadership.id).toBe('only');
    expect(leadership.signal.aborted).toBe(false);
    expect(only.hasLeadership).toBe(true);
  });

  it('right after start() behind a leader: LockTimeoutError once listed, and it stays in line', async () => {
    const [a, b] = await newClients(2);
    const path = lockPath('election');
    const first = latch(a!, path, { id: 'first' });
    first.start();
    const leading = await first.leadership({ timeout: 5_000 });
    const second = latch(b!, path, { id: 'second' });
    second.start();
    await expect(second.leadership({ timeout: 0 })).rejects.toBeInstanceOf(LockTimeoutError);
    // Answered after the listing: its node exists, and a later ask (decided) answers at once.
    expect(second.ourPath).toBeDefined();
    await expect(second.leadership({ timeout: 0 })).rejects.toBeInstanceOf(LockTimeoutError);
    expect((await second.participants()).map((p) => p.id)).toEqual(['first', 'second']);
    expect(leading.signal.aborted).toBe(false);
    await first.close();
    expect((await second.leadership({ timeout: 5_000 })).id).toBe('second');
    expect(await second.leadership({ timeout: 0 })).toBeDefined();
  });

  it('an aborted signal still answers at once', async () => {
    const [a] = await newClients(1);
    const only = latch(a!, lockPath('election'));
    only.start();
    const reason = new Error('gave up');
    await expect(only.leadership({ timeout: 0, signal: AbortSignal.abort(reason) })).rejects.toBe(
      reason,
    );
  });
});
