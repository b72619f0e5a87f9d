// PersistentNode's recovery against the scripted client (scripted-client.ts): a create whose reply
// was lost, a watch event lost with the connection, a reconnect or renewal, a node replaced or
// gone at the moment it is looked at, the pauses between failed tries, and what its error
// listeners are told. Creation and options: persistent-node.test.ts; the real-server behaviour:
// test/integration/recipes/persistent-node.test.ts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CreateMode } from '../../../src/index.js';
import { blip, createdPath, started } from '../../support/persistent-node.js';
import { until } from '../../support/wait.js';
import { ScriptedServer, scriptedSessions } from '../locks/scripted-client.js';

// A second of faked time: longer than any follow-up of a step or any pause between tries.
const LATER = 1_000;

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('PersistentNode recovery (scripted client)', () => {
  it('after a lost create reply a protected node is found by its prefix, not created twice', async () => {
    const [server, client] = scriptedSessions(1);
    await client.create2('/lost', undefined, { mode: CreateMode.PERSISTENT });
    server.fail({ op: 'create2', code: 'CONNECTIONLOSS', applied: true });
    const node = started(client, '/lost/m-', {
      mode: CreateMode.EPHEMERAL_SEQUENTIAL,
      protection: true,
    });
    const path = await createdPath(node);
    expect(server.children('/lost')).toEqual([path.slice('/lost/'.length)]);
    expect(server.requests({ op: 'sync', path: '/lost' })).toHaveLength(1);
    await node.close();
  });

  it('after a lost create reply that never landed, a protected node is created (once)', async () => {
    const [server, client] = scriptedSessions(1);
    await client.create2('/lost2', undefined, { mode: CreateMode.PERSISTENT });
    // The prefix of another session's node must not be taken: none matches ours anyway.
    const other = server.connect();
    await other.create2('/lost2/_c_someone-m-', undefined, {
      mode: CreateMode.EPHEMERAL_SEQUENTIAL,
    });
    server.fail({ op: 'create2', path: /^\/lost2\/_c_/, code: 'CONNECTIONLOSS' });
    const node = started(client, '/lost2/m-', {
      mode: CreateMode.EPHEMERAL_SEQUENTIAL,
      protection: true,
    });
    const path = await createdPath(node);
    expect(server.children('/lost2')).toHaveLength(2);
    expect(server.nodes.get(path)!.stat.ephemeralOwner).toBe(client.sessionId);
    await node.close();
  });

  it('after a lost create reply an unprotected node creates again and adopts its own node (NODEEXISTS)', async () => {
    const [server, client] = scriptedSessions(1);
    server.fail({ op: 'create2', path: '/plain', code: 'CONNECTIONLOSS', applied: true });
    const node = started(client, '/plain');
    expect(await createdPath(node)).toBe('/plain');
    expect(server.requests({ op: 'create2', path: '/plain' }).map((r) => r.outcome)).toEqual([
      'CONNECTIONLOSS',
      'NODEEXISTS',
    ]);
    expect(server.requests({ op: 'sync' })).toHaveLength(1);
    await node.close();
  });

  it('an ephemeral node adopting its own node after a lost reply does not rewrite it', async () => {
    const [server, client] = scriptedSessions(1);
    server.fail({ op: 'create2', path: '/own', code: 'CONNECTIONLOSS', applied: true });
    const node = started(client, '/own', { data: 'd' });
    await createdPath(node);
    expect(server.requests({ op: 'setData' })).toEqual([]);
    expect(server.nodes.get('/own')!.stat.version).toBe(0);
    await node.close();
  });

  it("a protected node's lost create that never landed: a sibling of the same session is not taken for it", async () => {
    const [server, client] = scriptedSessions(1);
    const errors: unknown[] = [];
    await client.create2('/p', undefined, { mode: CreateMode.PERSISTENT });
    const sibling = await client.create2('/p/other', undefined, { mode: CreateMode.EPHEMERAL });
    server.fail({ op: 'create2', path: /^\/p\/_c_/, code: 'CONNECTIONLOSS' });
    const node = started(client, '/p/m', {
      protection: true,
      onError: (e) => errors.push(e),
    });
    const path = await createdPath(node);
    expect(path).not.toBe(sibling.path);
    expect(path).toMatch(/^\/p\/_c_[0-9a-f-]{36}-m$/);
    expect(errors).toEqual([]);
    await node.close();
  });

  it('looks again at a reconnect and finds a node deleted meanwhile', async () => {
    const [server, client] = scriptedSessions(1);
    const node = started(client, '/re');
    await createdPath(node);
    const lookedBefore = server.requests({ op: 'exists', path: '/re' }).length;
    client.setState('suspended');
    client.setState('connected');
    await until(() => server.requests({ op: 'exists', path: '/re' }).length > lookedBefore);
    expect(server.nodes.get('/re')!.stat.ephemeralOwner).toBe(client.sessionId);
    await node.close();
  });

  it('a watch event lost with the connection: the reconnect looks again and creates the node', async () => {
    const [server, client] = scriptedSessions(1);
    const errors: unknown[] = [];
    const node = started(client, '/blip', { onError: (e) => errors.push(e) });
    await createdPath(node);
    server.nodes.delete('/blip'); // gone without an event reaching the client
    blip(client);
    await until(() => server.nodes.has('/blip'), 'the node to be created again');
    expect(errors).toEqual([]);
    await node.close();
  });

  it('a reconnect that finds the node in place changes nothing', async () => {
    vi.useFakeTimers();
    const [server, client] = scriptedSessions(1);
    const node = started(client, '/kept', { mode: CreateMode.PERSISTENT });
    await createdPath(node);
    const looks = () => server.requests({ op: 'exists', path: '/kept' }).length;
    const looksBefore = looks();
    blip(client);
    // On the faked clock: every follow-up of the look, and any retry pause, has run by now.
    await vi.advanceTimersByTimeAsync(LATER);
    expect(looks()).toBeGreaterThan(looksBefore);
    expect(server.requests({ op: 'create2', path: '/kept' })).toHaveLength(1);
    expect(server.requests({ op: 'setData' })).toEqual([]);
    await node.close();
  });

  it("a reconnect that finds another session's node in its place lets it go and waits it out", async () => {
    const [server, client, other] = scriptedSessions(2);
    const node = started(client, '/swap');
    await createdPath(node);
    // Replaced without an event reaching the client.
    server.nodes.delete('/swap');
    await other.create2('/swap', undefined, { mode: CreateMode.EPHEMERAL });
    blip(client);
    await until(() => node.actualPath === undefined, 'the node to be let go');
    expect(server.nodes.get('/swap')!.stat.ephemeralOwner).toBe(other.sessionId);
    other.setState('expired');
    await until(() => server.nodes.get('/swap')?.stat.ephemeralOwner === client.sessionId);
    await node.close();
  });

  it('a node gone before its watch is set is created again', async () => {
    const [server, client] = scriptedSessions(1);
    const exists = client.exists.bind(client);
    let first = true;
    client.exists = ((...args: Parameters<typeof exists>) => {
      if (first && args[1]?.watch) {
        first = false;
        server.nodes.delete('/early');
      }
      return exists(...args);
    }) as typeof client.exists;
    const node = started(client, '/early');
    await createdPath(node);
    await until(
      () => server.requests({ op: 'create2', path: '/early' }).length === 2,
      'a second create',
    );
    await until(() => server.nodes.has('/early'));
    await node.close();
  });

  it('after a renewal an ephemeral node is created again on the new session', async () => {
    const [server, client] = scriptedSessions(1);
    const node = started(client, '/eph', { data: 'x' });
    await createdPath(node);
    const old = client.sessionId;
    client.renew();
    await until(
      () => server.nodes.get('/eph')?.stat.ephemeralOwner === client.sessionId,
      'the node on the new session',
    );
    expect(client.sessionId).not.toBe(old);
    expect(node.actualPath).toBe('/eph');
    await node.close();
    expect(server.nodes.has('/eph')).toBe(false);
  });

  it('a persistent node survives a renewal and is not created again', async () => {
    vi.useFakeTimers();
    const [server, client] = scriptedSessions(1);
    const node = started(client, '/keep', { mode: CreateMode.PERSISTENT });
    await createdPath(node);
    const czxid = server.nodes.get('/keep')!.stat.czxid;
    client.renew();
    await vi.advanceTimersByTimeAsync(LATER);
    expect(server.requests({ op: 'exists', path: '/keep' }).length).toBeGreaterThanOrEqual(3);
    expect(server.nodes.get('/keep')!.stat.czxid).toBe(czxid);
    expect(server.requests({ op: 'create2', path: '/keep' })).toHaveLength(1);
    await node.close();
  });

  it('tells its error listeners of an error it keeps retrying through, and carries on (a throwing listener too)', async () => {
    const [server, client] = scriptedSessions(1);
    const errors: unknown[] = [];
    server.fail({ op: 'create2', path: '/acl', code: 'NOAUTH' });
    const node = started(client, '/acl', {
      onError: (error) => {
        errors.push(error);
        throw new Error('handler throws');
      },
    });
    expect(await createdPath(node, { timeout: 5_000 })).toBe('/acl');
    expect(errors).toEqual([expect.objectContaining({ code: 'NOAUTH' })]);
    await node.close();
  });

  it('a connection loss is retried without telling the error listeners', async () => {
    const [server, client] = scriptedSessions(1);
    const errors: unknown[] = [];
    server.fail({ op: 'create2', path: '/flaky', code: 'CONNECTIONLOSS' });
    const node = started(client, '/flaky', { onError: (e) => errors.push(e) });
    await createdPath(node);
    expect(errors).toEqual([]);
    await node.close();
  });

  it('waits longer after each failure that is not a connection loss', async () => {
    vi.useFakeTimers();
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const [server, client] = scriptedSessions(1);
    server.fail({ op: 'create2', path: '/acl', code: 'NOAUTH', times: Infinity });
    const node = started(client, '/acl', { onError: () => {} });
    const creates = () => server.requests({ op: 'create2', path: '/acl' }).length;
    await vi.advanceTimersByTimeAsync(0);
    expect(creates()).toBe(1);
    // 100 ms doubled per failure, capped at 10 s, times 0.5 to 1 (here 0.75).
    let elapsed = 0;
    for (const [n, pause] of [150, 300, 600, 1_200, 2_400, 4_800, 7_500, 7_500, 7_500].entries()) {
      await vi.advanceTimersByTimeAsync(pause - 1);
      expect(creates(), `before try ${n + 2}, ${elapsed + pause - 1} ms in`).toBe(n + 1);
      await vi.advanceTimersByTimeAsync(1);
      expect(creates(), `try ${n + 2}, ${elapsed + pause} ms in`).toBe(n + 2);
      elapsed += pause;
    }
    // close() ends a pause at once.
    let closed = false;
    void node.close().then(() => {
      closed = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(closed).toBe(true);
  });

  it('close() tells the error listeners nothing', async () => {
    vi.useFakeTimers();
    const client = new ScriptedServer().connect();
    const errors: unknown[] = [];
    const node = started(client, '/quiet', { onError: (e) => errors.push(e) });
    await createdPath(node);
    await node.close();
    await vi.advanceTimersByTimeAsync(LATER);
    expect(errors).toEqual([]);
  });

  it('a connection loss while setting the watch is retried at once without telling the error listeners', async () => {
    vi.useFakeTimers();
    const [server, client] = scriptedSessions(1);
    const errors: unknown[] = [];
    server.fail({ op: 'exists', path: '/w', code: 'CONNECTIONLOSS' });
    const node = started(client, '/w', { onError: (e) => errors.push(e) });
    await vi.advanceTimersByTimeAsync(0);
    expect(node.actualPath).toBe('/w');
    expect(server.requests({ op: 'exists', path: '/w', watch: true })).toHaveLength(2);
    expect(errors).toEqual([]);
    await node.close();
  });

  it("waits out another session's node and a create refused with a node gone, telling the error listeners nothing", async () => {
    const [server, client, other] = scriptedSessions(2);
    const errors: unknown[] = [];
    await other.create2('/busy', undefined, { mode: CreateMode.EPHEMERAL });
    const node = started(client, '/busy', { onError: (e) => errors.push(e) });
    await until(() => server.requests({ op: 'exists', path: '/busy', watch: true }).length > 0);
    other.setState('expired');
    await createdPath(node);
    // NODEEXISTS for a node that is gone by the look.
    const gone = started(client, '/gone', { onError: (e) => errors.push(e) });
    server.fail({ op: 'create2', path: '/gone', code: 'NODEEXISTS' });
    await createdPath(gone);
    expect(errors).toEqual([]);
    await node.close();
    await gone.close();
  });
});
