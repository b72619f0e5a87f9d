// LeaderLatch terms against the scripted client (scripted-client.ts): who leads, what leadership()
// answers and when, how a term ends (close, suspension, a deleted node, expiry, renewal).
// Real-server and Curator behaviour: test/integration/locks/leader-latch.test.ts.
import { describe, expect, it } from 'vitest';
import { LeaderLatch, type LockLostError, LockTimeoutError } from '../../../src/locks/index.js';
import { startedLatch as started } from '../../support/locks-unit.js';
import { until } from '../../support/wait.js';
import { ScriptedServer, scriptedSessions } from './scripted-client.js';

describe('LeaderLatch terms (scripted client)', () => {
  it('refuses an id that is not a string, a second start, and leadership() before start', async () => {
    const client = new ScriptedServer().connect();
    expect(() => new LeaderLatch(client, '/el', { id: 1 as unknown as string })).toThrow(
      expect.objectContaining({ code: 'BADARGUMENTS' }),
    );
    const latch = new LeaderLatch(client, '/el');
    expect(latch.id).toBe('');
    expect(latch.state).toBe('latent');
    await expect(latch.leadership()).rejects.toMatchObject({ code: 'BADARGUMENTS' });
    const starting = latch.start();
    expect(latch.state).toBe('started');
    expect(latch.start()).toBeInstanceOf(Promise);
    await starting;
    await latch.close();
    expect(latch.state).toBe('closed');
  });

  it('the first candidate leads: its term names its node, token and id; asked again, the same term', async () => {
    const [server, client] = scriptedSessions(1);
    const latch = started(client, '/el', { id: 'alpha' });
    const term = await latch.leadership();
    expect(latch.hasLeadership).toBe(true);
    expect(latch.ourPath).toBe(term.path);
    expect(term.id).toBe('alpha');
    expect(term.fencingToken).toBe(server.nodes.get(term.path)!.stat.czxid);
    expect(new TextDecoder().decode(server.nodes.get(term.path)!.data)).toBe('alpha');
    expect(await latch.leadership()).toBe(term);
    expect(await latch.leadership({ timeout: 0 })).toBe(term);
    expect(await latch.leader()).toMatchObject({ id: 'alpha', isLeader: true });
    await latch.close();
    expect(term.signal.aborted).toBe(true);
    expect(latch.hasLeadership).toBe(false);
    expect(server.children('/el')).toEqual([]);
  });

  it('timeout 0 just after start waits for the first listing: a free election leads', async () => {
    const server = new ScriptedServer();
    const latch = started(server.connect());
    const term = await latch.leadership({ timeout: 0 });
    expect(term.path).toBe(latch.ourPath);
    await latch.close();
  });

  it('a second candidate waits: timeout 0 says no once decided, a timeout and a signal end the wait', async () => {
    const [, a, b] = scriptedSessions(2);
    const first = started(a);
    await first.leadership();
    const second = started(b, '/el', { id: 'beta' });
    await expect(second.leadership({ timeout: 0 })).rejects.toBeInstanceOf(LockTimeoutError);
    await expect(second.leadership({ timeout: 0 })).rejects.toMatchObject({
      message: expect.stringContaining('leadership of /el'),
    });
    await expect(second.leadership({ timeout: 20 })).rejects.toBeInstanceOf(LockTimeoutError);
    const abort = new AbortController();
    const waiting = second.leadership({ signal: abort.signal });
    abort.abort(new Error('enough'));
    await expect(waiting).rejects.toThrow('enough');
    await expect(
      second.leadership({ signal: AbortSignal.abort(new Error('before')) }),
    ).rejects.toThrow('before');
    expect(second.hasLeadership).toBe(false);
    const participants = await second.participants();
    expect(participants.map((p) => [p.id, p.isLeader])).toEqual([
      ['', true],
      ['beta', false],
    ]);
    // The leader leaves: the second leads, and a wait in progress hears of it.
    const next = second.leadership();
    await first.close();
    const term = await next;
    expect(term.path).toBe(second.ourPath);
    expect(second.hasLeadership).toBe(true);
    await second.close();
    expect(await second.leader()).toBeNull();
  });

  it('close() rejects waiting and later leadership() calls, and is idempotent', async () => {
    const [server, a, b] = scriptedSessions(2);
    const first = started(a);
    await first.leadership();
    const second = started(b);
    await until(() => server.children('/el').length === 2);
    const waiting = second.leadership();
    const closing = second.close();
    expect(second.close()).toBe(closing);
    await expect(waiting).rejects.toMatchObject({ code: 'CLOSED' });
    await closing;
    await expect(second.leadership()).rejects.toMatchObject({ code: 'CLOSED' });
    expect(server.children('/el')).toHaveLength(1);
    await first.close();
  });

  it('a suspension ends the term (default policy); back online, it leads again on the same node', async () => {
    const [, client] = scriptedSessions(1);
    const latch = started(client);
    const term = await latch.leadership();
    client.setState('suspended');
    expect(term.signal.aborted).toBe(true);
    expect((term.signal.reason as LockLostError).reason).toBe('suspended');
    expect(latch.hasLeadership).toBe(false);
    client.setState('connected');
    await until(() => latch.hasLeadership, 'a new term');
    const again = await latch.leadership();
    expect(again).not.toBe(term);
    expect(again.path).toBe(term.path);
    // Caught up with a sync before reading again.
    expect(client.requests({ op: 'sync' }).length).toBeGreaterThan(0);
    await latch.close();
  });

  it("with lossPolicy 'expired' a suspension does not end the term", async () => {
    const [, client] = scriptedSessions(1);
    const latch = started(client, '/el', { lossPolicy: 'expired' });
    const term = await latch.leadership();
    client.setState('suspended');
    client.setState('connected');
    expect(term.signal.aborted).toBe(false);
    expect(latch.hasLeadership).toBe(true);
    await latch.close();
  });

  it('a leader whose node is deleted takes part again with a new node', async () => {
    const [server, client, admin] = scriptedSessions(2);
    const latch = started(client);
    const term = await latch.leadership();
    void term.signal;
    await until(() => client.requests({ op: 'getData', watch: true }).length > 0);
    await admin.delete(term.path);
    await until(() => term.signal.aborted, 'the loss');
    await until(() => latch.hasLeadership, 'a new term');
    const again = await latch.leadership();
    expect(again.path).not.toBe(term.path);
    expect(server.children('/el')).toHaveLength(1);
    await latch.close();
  });

  it('a candidate whose node is deleted while in line joins again at the back', async () => {
    const [, a, b, admin] = scriptedSessions(3);
    const first = started(a);
    await first.leadership();
    const second = started(b);
    await until(() => second.ourPath !== undefined);
    const oldPath = second.ourPath!;
    await until(() => b.requests({ op: 'getData', watch: true }).length > 0);
    await admin.delete(oldPath);
    // Nothing wakes it until the node ahead changes: the leader leaves.
    await first.close();
    await second.leadership();
    expect(second.ourPath).not.toBe(oldPath);
    await second.close();
  });

  it('an expiry the client does not renew ends the latch with the error', async () => {
    const [, client] = scriptedSessions(1);
    const latch = started(client);
    const term = await latch.leadership();
    client.setState('expired');
    expect((term.signal.reason as LockLostError).reason).toBe('expired');
    await until(() => latch.state === 'closed', 'the latch to end');
    await expect(latch.leadership()).rejects.toMatchObject({ reason: 'expired' });
  });

  it('after a renewal it takes part again on the new session and leads', async () => {
    const [server, client] = scriptedSessions(1);
    const latch = started(client);
    const term = await latch.leadership();
    client.renew();
    expect(term.signal.aborted).toBe(true);
    await until(() => latch.hasLeadership, 'a term on the new session');
    const again = await latch.leadership();
    expect(server.nodes.get(again.path)!.stat.ephemeralOwner).toBe(client.sessionId);
    expect(again.path).not.toBe(term.path);
    await latch.close();
  });

  it('await using closes the latch', async () => {
    const [server, client] = scriptedSessions(1);
    let term: Awaited<ReturnType<LeaderLatch['leadership']>>;
    {
      await using latch = started(client);
      term = await latch.leadership();
    }
    expect(term.signal.aborted).toBe(true);
    expect(server.children('/el')).toEqual([]);
  });
});
