// LeaderLatch's contention loop after a request that failed with a retriable code, against the
// scripted client (scripted-client.ts). Real-server behaviour: test/integration/locks.
import { describe, expect, it } from 'vitest';
import type { ErrorCodeName } from '../../../src/index.js';
import { LeaderLatch } from '../../../src/locks/index.js';
import { scriptedSessions } from './scripted-client.js';

describe('LeaderLatch recovery (scripted client)', () => {
  for (const code of ['REQUESTTIMEOUT', 'THROTTLEDOP', 'CONNECTIONLOSS'] as const) {
    it(`a listing that fails with ${code} is tried again (after a sync), not the end of the latch`, async () => {
      const [server, client] = scriptedSessions(1);
      await client.create2('/e');
      server.fail({ op: 'getChildren', path: '/e', code: code as ErrorCodeName });
      const latch = new LeaderLatch(client, '/e', { id: 'a' });
      latch.start();
      const leadership = await latch.leadership({ timeout: 2_000 });
      expect(leadership.id).toBe('a');
      expect(latch.state).toBe('started');
      const ops = client.requests().map((r) => `${r.op}:${r.outcome}`);
      const failed = ops.indexOf(`getChildren:${code}`);
      expect(ops.slice(failed, failed + 3)).toEqual([
        `getChildren:${code}`,
        'sync:ok', // the outcome was unknown: catch up before reading again
        'getChildren:ok',
      ]);
      await latch.close();
      expect(server.children('/e')).toEqual([]);
    });
  }

  it('an error that is not retriable still ends the latch', async () => {
    const [server, client] = scriptedSessions(1);
    await client.create2('/e');
    server.fail({ op: 'getChildren', path: '/e', code: 'NOAUTH' });
    const latch = new LeaderLatch(client, '/e');
    latch.start();
    await expect(latch.leadership({ timeout: 2_000 })).rejects.toMatchObject({ code: 'NOAUTH' });
    expect(latch.state).toBe('closed');
    await latch.close();
    expect(server.children('/e')).toEqual([]);
  });
});
