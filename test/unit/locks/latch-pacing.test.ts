// LeaderLatch's pacing after a refusal, against the scripted client (scripted-client.ts): a server
// that throttles is not asked again at once, and close() does not wait out the pause.
// Real-server behaviour: test/integration/locks.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LeaderLatch } from '../../../src/locks/index.js';
import { until } from '../../support/wait.js';
import { scriptedSessions } from './scripted-client.js';

afterEach(() => {
  vi.useRealTimers();
});

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
    // On a faked clock that does not move while close() runs: a close() that waited out the
    // 100-200 ms pause would never settle here.
    vi.useFakeTimers();
    const [server, client] = scriptedSessions(1);
    await client.create2('/e');
    server.fail({ op: 'getChildren', path: '/e', code: 'THROTTLEDOP' });
    const latch = new LeaderLatch(client, '/e');
    latch.start();
    const waiting = latch.leadership().catch((error: unknown) => error);
    await until(() => client.requests({ op: 'getChildren' }).length > 0, 'the refused listing');
    let closed = false;
    void latch.close().then(() => {
      closed = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(closed).toBe(true);
    expect(await waiting).toMatchObject({ code: 'CLOSED', message: 'the latch /e was closed' });
    expect(server.children('/e')).toEqual([]);
    expect(client.requests({ op: 'getChildren' })).toHaveLength(1);
  });
});
