// A lock whose create a read-only server refuses (NOTREADONLY) waits for the client to reach a
// read-write server instead of asking again every 100-200 ms: a read-only server refuses every
// write at once, so a retry on a timer only loads it (with a sync and a listing each time).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LeaderLatch, Mutex } from '../../../src/locks/index.js';
import { scriptedSessions } from './scripted-client.js';

// The clock is faked: five seconds of retry pauses (100-200 ms each) pass at once and exactly,
// however loaded the machine, so a retry loop would show as dozens of creates.
const RETRY_PAUSES = 5_000;

describe('on a read-only server (scripted client)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a Mutex asks once more after a pause, then waits for a read-write server', async () => {
    vi.useFakeTimers();
    const [server, client] = scriptedSessions(1);
    await client.create2('/ro', undefined, {}); // the lock's directory exists
    client.setState('connected-readonly');
    server.fail({ op: 'create2', path: /^\/ro\/lock\//, code: 'NOTREADONLY', times: 100 });
    const stop = new AbortController();
    const pending = new Mutex(client, '/ro/lock').acquire({ signal: stop.signal });
    pending.catch(() => {});
    await vi.advanceTimersByTimeAsync(RETRY_PAUSES);
    const refused = client.requests({ op: 'create2' }).filter((r) => r.outcome === 'NOTREADONLY');
    // The first create, and the one after the recovery's pause and listing; no more.
    expect(refused.length).toBe(2);
    stop.abort(new Error('test over'));
    await expect(pending).rejects.toThrow('test over');
  }, 10_000);

  it('a LeaderLatch makes one create, then waits for a read-write server', async () => {
    vi.useFakeTimers();
    const [server, client] = scriptedSessions(1);
    client.setState('connected-readonly');
    server.fail({ op: 'create2', path: /^\/ro-latch\//, code: 'NOTREADONLY', times: 100 });
    const latch = new LeaderLatch(client, '/ro-latch', { id: 'a' });
    latch.start();
    await vi.advanceTimersByTimeAsync(RETRY_PAUSES);
    const refused = client.requests({ op: 'create2' }).filter((r) => r.outcome === 'NOTREADONLY');
    expect(refused.length).toBe(1);
    await latch.close();
  }, 10_000);
});
