// The requests a LeaderLatch sends after its node is gone, against the scripted client
// (scripted-client.ts): a deleted node or an expired session means a new node at once (no listing
// with a node known gone, no sync on a session that has just begun), and a stale listing on a
// renewed session never makes the old session's node a leader. Real-server behaviour:
// test/integration/locks/leader-latch.test.ts and test/integration/locks/renewal.test.ts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LeaderLatch } from '../../../src/locks/index.js';
import { until } from '../../support/wait.js';
import { type ScriptedClient, scriptedSessions } from './scripted-client.js';

// The checks that something does NOT happen run on a faked clock: a second of it passes at once,
// with every follow-up of a step and any retry pause (100-200 ms) run, however loaded the machine.
const QUIET_MS = 1_000;

afterEach(() => {
  vi.useRealTimers();
});

/** The ops `client`'s current session sent from log index `from` on. */
const opsSince = (client: ScriptedClient, from: number) =>
  client.server.log
    .slice(from)
    .filter((r) => r.session === client.sessionId)
    .map((r) => r.op);

describe('LeaderLatch requests after its node is gone (scripted client)', () => {
  it('a new latch creates its node and lists, with no sync (nothing to catch up with yet)', async () => {
    const [, client] = scriptedSessions(1);
    const latch = new LeaderLatch(client, '/el');
    latch.start();
    await latch.leadership();
    // The election node is made first (a create refused with NONODE, the parent, the create).
    expect(opsSince(client, 0).slice(0, 4)).toEqual([
      'create2',
      'create2',
      'create2',
      'getChildren',
    ]);
    expect(client.requests({ op: 'sync' })).toEqual([]);
    await latch.close();
  });

  it('after a reconnect it syncs once, not again at its next turn', async () => {
    const [server, client, admin] = scriptedSessions(2);
    const latch = new LeaderLatch(client, '/el');
    latch.start();
    const term = await latch.leadership();
    client.setState('suspended');
    client.setState('connected');
    await until(() => latch.hasLeadership, 'a new term');
    expect(client.requests({ op: 'sync' })).toHaveLength(1);
    const again = await latch.leadership();
    void again.signal;
    await until(() => client.requests({ op: 'getData', watch: true }).length > 1);
    const mark = server.log.length;
    await admin.delete(term.path);
    await until(() => again.signal.aborted, 'the loss');
    await latch.leadership({ timeout: 1_000 });
    expect(opsSince(client, mark).slice(0, 2)).toEqual(['create2', 'getChildren']);
    expect(client.requests({ op: 'sync' })).toHaveLength(1);
    await latch.close();
  });

  it('a leader whose node was deleted creates a new one before it lists again', async () => {
    const [server, client, admin] = scriptedSessions(2);
    const latch = new LeaderLatch(client, '/el');
    latch.start();
    const term = await latch.leadership();
    void term.signal;
    await until(() => client.requests({ op: 'getData', watch: true }).length > 0);
    const mark = server.log.length;
    await admin.delete(term.path);
    await until(() => term.signal.aborted, 'the loss');
    const again = await latch.leadership({ timeout: 1_000 });
    expect(again.path).not.toBe(term.path);
    expect(opsSince(client, mark).slice(0, 2)).toEqual(['create2', 'getChildren']);
    await latch.close();
  });

  it('after a renewal the new session starts with its new node (no sync first)', async () => {
    const [server, client] = scriptedSessions(1);
    const latch = new LeaderLatch(client, '/el');
    latch.start();
    await latch.leadership();
    const mark = server.log.length;
    client.renew();
    await until(() => latch.hasLeadership, 'a term on the new session');
    expect(opsSince(client, mark).slice(0, 2)).toEqual(['create2', 'getChildren']);
    await latch.close();
  });

  it("a listing on a renewed session that still shows the old session's node is not a term", async () => {
    const [server, client] = scriptedSessions(1);
    const list = client.getChildren.bind(client);
    let stale = true;
    // The session is renewed while the first listing is under way, and the server that answers
    // it has not yet seen the old session's end: the listing still shows the old node.
    client.getChildren = (async (path: string, options?: never) => {
      if (!stale) return list(path, options);
      stale = false;
      const before = await list(path, options);
      client.renew();
      return before;
    }) as typeof client.getChildren;
    const latch = new LeaderLatch(client, '/el');
    latch.start();
    const term = await latch.leadership({ timeout: 1_000 });
    expect(server.nodes.get(term.path)?.stat.ephemeralOwner).toBe(client.sessionId);
    expect(term.signal.aborted).toBe(false);
    await latch.close();
  });
});

describe('LeaderLatch close() during a disconnection (scripted client)', () => {
  it('gives up a listing held for the reconnect: waiters are told at once, the node goes later', async () => {
    const [server, client] = scriptedSessions(1);
    client.abortable = true;
    const list = client.getChildren.bind(client);
    client.getChildren = ((path: string, options?: never) => {
      // The link drops just as the latch lists: the listing waits for the reconnect.
      client.setState('suspended');
      return list(path, options);
    }) as typeof client.getChildren;
    vi.useFakeTimers();
    const latch = new LeaderLatch(client, '/el');
    latch.start();
    const waiting = latch.leadership().catch((error: unknown) => error);
    await until(() => client.state === 'suspended', 'the listing');
    const closing = latch.close();
    // close() answers the waiter at once: it does not wait for the listing's reconnect.
    const told = await Promise.race([
      waiting,
      vi.advanceTimersByTimeAsync(QUIET_MS).then(() => 'still waiting'),
    ]);
    expect(told).toMatchObject({ code: 'CLOSED', message: /^the latch .* was closed$/ });
    expect(server.children('/el')).toHaveLength(1);
    client.setState('connected');
    await closing;
    expect(server.children('/el')).toEqual([]);
    expect(client.requests({ op: 'getChildren' })).toHaveLength(1);
  });
});

describe('LeaderLatch while disconnected (scripted client)', () => {
  it('sends nothing until the connection is back, then catches up and leads again', async () => {
    vi.useFakeTimers();
    const [, client] = scriptedSessions(1);
    const latch = new LeaderLatch(client, '/el');
    latch.start();
    const term = await latch.leadership();
    client.setState('suspended');
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    client.setState('connecting');
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(client.queued).toEqual([]);
    expect(latch.hasLeadership).toBe(false);
    client.setState('connected');
    const again = await latch.leadership({ timeout: 1_000 });
    expect(again.path).toBe(term.path);
    expect(client.queued).toEqual([]);
    await latch.close();
  });
});
