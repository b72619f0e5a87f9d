// LeaderLatch's pacing after a refusal, against the scripted client (scripted-client.ts): a server
// that throttles is not asked again at once, and close() does not wait out the pause.
// Real-server behaviour: test/integration/locks.
import { describe, expect, it } from 'vitest';
import { LeaderLatch } from '../../../src/locks/index.js';
import { scriptedSessions } from './scripted-client.js';

describe('LeaderLatch pacing (scripted client)', () => {
  it('after a THROTTLEDOP listing it pauses before asking again', async () => {
    const [server, client] = scriptedSessions(1);
    await client.create2('/e');
    server.fail({ op: 'getChildren', path: '/e', code: 'THROTTLEDOP' });
    const sent: number[] = [];
    const list = client.getChildren.bind(client);
    client.getChildren = ((path: string, options?: never) => {
      sent.push(performance.now());
      return list(path, options);
    }) as typeof client.getChildren;
    const latch = new LeaderLatch(client, '/e');
    latch.start();
    await latch.leadership({ timeout: 2_000 });
    expect(sent).toHaveLength(2);
    expect(sent[1]! - sent[0]!).toBeGreaterThanOrEqual(95);
    await latch.close();
  });

  it('close() during that pause ends the latch at once', async () => {
    const [server, client] = scriptedSessions(1);
    await client.create2('/e');
    server.fail({ op: 'getChildren', path: '/e', code: 'THROTTLEDOP' });
    const latch = new LeaderLatch(client, '/e');
    latch.start();
    const waiting = latch.leadership().catch((error: unknown) => error);
    for (let i = 0; i < 50 && client.requests({ op: 'getChildren' }).length === 0; i++) {
      await new Promise((r) => setTimeout(r, 1));
    }
    const start = performance.now();
    await latch.close();
    expect(performance.now() - start).toBeLessThan(80);
    expect(await waiting).toMatchObject({ code: 'CLOSED', message: 'the latch /e was closed' });
    expect(server.children('/e')).toEqual([]);
    expect(client.requests({ op: 'getChildren' })).toHaveLength(1);
  });
});
