// LeaderLatch past the election node's sequence limit, against the scripted client
// (scripted-client.ts): the server's counter wraps to a negative number, whose text sorts ahead of
// the leader's; the line must stay in creation order, so a newcomer never leads beside the leader.
import { describe, expect, it } from 'vitest';
import { LeaderLatch, LockTimeoutError } from '../../../src/locks/index.js';
import { until } from '../../support/wait.js';
import { scriptedSessions } from './scripted-client.js';

describe('LeaderLatch past the sequence limit (scripted client)', () => {
  it('a newcomer whose sequence wrapped below zero waits behind the leader', async () => {
    const [server, a, b] = scriptedSessions(2);
    await a.create2('/el');
    const election = server.nodes.get('/el')!;
    election.nextSeq = 2_147_483_647;
    const leader = new LeaderLatch(a, '/el', { id: 'first' });
    leader.start();
    const term = await leader.leadership();
    expect(term.path).toMatch(/-latch-2147483647$/);
    // As the server does past the limit: the next sequence number is negative.
    election.nextSeq = -2_147_483_648;
    const newcomer = new LeaderLatch(b, '/el', { id: 'second' });
    newcomer.start();
    await until(() => newcomer.ourPath !== undefined, 'the newcomer’s node');
    expect(newcomer.ourPath).toMatch(/-latch--2147483648$/);
    await expect(newcomer.leadership({ timeout: 30 })).rejects.toBeInstanceOf(LockTimeoutError);
    expect(leader.hasLeadership).toBe(true);
    expect(newcomer.hasLeadership).toBe(false);
    // The leader leaves: now the newcomer leads.
    await leader.close();
    const next = await newcomer.leadership({ timeout: 1_000 });
    expect(next.path).toBe(newcomer.ourPath);
    await newcomer.close();
  });
});
