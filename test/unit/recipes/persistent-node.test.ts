// PersistentNode against the scripted client (scripted-client.ts): created, created again when
// deleted or renewed, found again after a lost create reply, updated, removed on close. The
// real-server behaviour is proven in test/integration/recipes/persistent-node.test.ts.
import { describe, expect, it } from 'vitest';
import type { BoundOptions } from '../../../src/coordination/bounded.js';
import { ClosedError, CreateMode, InvalidArgumentError, TimeoutError } from '../../../src/index.js';
import { PersistentNode, type PersistentNodeOptions } from '../../../src/recipes/index.js';
import { until } from '../../support/wait.js';
import { type ScriptedClient, ScriptedServer } from '../locks/scripted-client.js';

const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);

/** A node with `start()` called (not awaited); `onError` is listened to as its `error` event. */
function started(
  client: ScriptedClient,
  path: string,
  { onError, ...options }: PersistentNodeOptions & { onError?: (error: Error) => void } = {},
): PersistentNode {
  const node = new PersistentNode(client, path, options);
  if (onError) node.on('error', onError);
  void node.start();
  return node;
}

/** Waits for `start()` (the node's first creation) and answers the node's actual path. */
async function createdPath(node: PersistentNode, options?: BoundOptions): Promise<string> {
  await node.start(options);
  return node.actualPath!;
}

describe('PersistentNode (scripted client)', () => {
  it('creates the node with its parents and data, ephemeral by default, and deletes it on close', async () => {
    const server = new ScriptedServer();
    const client = server.connect();
    const node = started(client, '/svc/a/member', { data: 'v1' });
    expect(await createdPath(node)).toBe('/svc/a/member');
    expect(node.actualPath).toBe('/svc/a/member');
    const stored = server.nodes.get('/svc/a/member')!;
    expect(text(stored.data)).toBe('v1');
    expect(stored.stat.ephemeralOwner).toBe(client.sessionId);
    expect(node.data).toBe('v1');
    // Already there: at once.
    expect(await createdPath(node)).toBe('/svc/a/member');
    await node.close();
    expect(server.nodes.has('/svc/a/member')).toBe(false);
    expect(node.actualPath).toBeUndefined();
    // close() is idempotent, and the node stays closed: start() rejects with ClosedError.
    await node.close();
    await expect(node.start()).rejects.toBeInstanceOf(ClosedError);
    await expect(node.start()).rejects.toMatchObject({ code: 'CLOSED', path: '/svc/a/member' });
  });

  it('keeps the empty string as data by default and a persistent mode on close too (deleted)', async () => {
    const server = new ScriptedServer();
    const client = server.connect();
    const node = started(client, '/p', { mode: CreateMode.PERSISTENT });
    await createdPath(node);
    expect(server.nodes.get('/p')!.stat.ephemeralOwner).toBe(0n);
    expect(text(server.nodes.get('/p')!.data)).toBe('');
    expect(node.data).toBe('');
    await node.close();
    expect(server.nodes.has('/p')).toBe(false);
  });

  it('creates the node again when someone deletes it, with the current data', async () => {
    const server = new ScriptedServer();
    const [client, other] = [server.connect(), server.connect()];
    const node = started(client, '/again', { data: 'first' });
    await createdPath(node);
    const firstCzxid = server.nodes.get('/again')!.stat.czxid;
    await node.setData('second');
    expect(text(server.nodes.get('/again')!.data)).toBe('second');
    expect(node.data).toBe('second');
    await other.delete('/again');
    await until(() => server.nodes.has('/again'), 'the node to come back');
    expect(server.nodes.get('/again')!.stat.czxid).not.toBe(firstCzxid);
    expect(text(server.nodes.get('/again')!.data)).toBe('second');
    expect(server.nodes.get('/again')!.stat.ephemeralOwner).toBe(client.sessionId);
    await node.close();
  });

  it("tells its 'created' listeners of every creation, with the actual path", async () => {
    const server = new ScriptedServer();
    const [client, other] = [server.connect(), server.connect()];
    const node = new PersistentNode(client, '/seq/m-', { mode: CreateMode.EPHEMERAL_SEQUENTIAL });
    const created: string[] = [];
    node.on('created', (path) => created.push(path));
    await node.start();
    expect(created).toEqual(['/seq/m-0000000000']);
    await other.delete('/seq/m-0000000000');
    await until(() => created.length === 2, 'the second creation');
    expect(created[1]).toBe('/seq/m-0000000001');
    expect(node.actualPath).toBe('/seq/m-0000000001');
    await node.close();
    expect(() => node.on('nope' as 'created', () => {})).toThrow(InvalidArgumentError);
  });

  it('a node replaced by another at the same path is not taken for its own', async () => {
    const server = new ScriptedServer();
    const [client, other] = [server.connect(), server.connect()];
    const node = started(client, '/swap', { mode: CreateMode.PERSISTENT, data: 'mine' });
    await createdPath(node);
    const firstCzxid = server.nodes.get('/swap')!.stat.czxid;
    // Deleted and created again by someone else between the event and the look: the data watch
    // fires on the delete; the node at the path is a new one, which is persistent and adopted
    // (the same registration) with our data written into it.
    await other.delete('/swap');
    await other.create2('/swap', 'theirs', { mode: CreateMode.PERSISTENT });
    await until(
      () => text(server.nodes.get('/swap')?.data) === 'mine',
      'the registration to be rewritten',
    );
    expect(server.nodes.get('/swap')!.stat.czxid).not.toBe(firstCzxid);
    await node.close();
  });

  it("waits out another session's ephemeral node at the path, then creates its own", async () => {
    const server = new ScriptedServer();
    const [client, other] = [server.connect(), server.connect()];
    await other.create2('/taken', 'old', { mode: CreateMode.EPHEMERAL });
    const node = started(client, '/taken', { data: 'new' });
    await until(() => server.requests({ op: 'exists', path: '/taken', watch: true }).length > 0);
    expect(node.actualPath).toBeUndefined();
    expect(server.nodes.get('/taken')!.stat.ephemeralOwner).toBe(other.sessionId);
    other.setState('expired');
    expect(await createdPath(node)).toBe('/taken');
    expect(server.nodes.get('/taken')!.stat.ephemeralOwner).toBe(client.sessionId);
    expect(text(server.nodes.get('/taken')!.data)).toBe('new');
    await node.close();
  });

  it('adopts a persistent node already at the path and writes its data', async () => {
    const server = new ScriptedServer();
    const client = server.connect();
    await client.create2('/reg', 'stale', { mode: CreateMode.PERSISTENT });
    const node = started(client, '/reg', { mode: CreateMode.PERSISTENT, data: 'fresh' });
    expect(await createdPath(node)).toBe('/reg');
    expect(text(server.nodes.get('/reg')!.data)).toBe('fresh');
    expect(server.requests({ op: 'create2', path: '/reg' }).map((r) => r.outcome)).toEqual([
      'ok',
      'NODEEXISTS',
    ]);
    await node.close();
  });

  it('an ephemeral node does not adopt a persistent node at its path (waits it out)', async () => {
    const server = new ScriptedServer();
    const client = server.connect();
    await client.create2('/pers', 'p', { mode: CreateMode.PERSISTENT });
    const node = started(client, '/pers');
    await until(() => server.requests({ op: 'exists', path: '/pers', watch: true }).length > 0);
    expect(node.actualPath).toBeUndefined();
    await client.delete('/pers');
    await createdPath(node);
    expect(server.nodes.get('/pers')!.stat.ephemeralOwner).toBe(client.sessionId);
    await node.close();
  });

  it('a sequential node gets its number, and the protected name a _c_ prefix', async () => {
    const server = new ScriptedServer();
    const client = server.connect();
    const seq = started(client, '/q/item-', { mode: CreateMode.EPHEMERAL_SEQUENTIAL });
    expect(await createdPath(seq)).toBe('/q/item-0000000000');
    const prot = started(client, '/q/item-', {
      mode: CreateMode.PERSISTENT_SEQUENTIAL,
      protection: true,
    });
    const path = await createdPath(prot);
    expect(path).toMatch(/^\/q\/_c_[0-9a-f-]{36}-item-0000000001$/);
    expect(server.nodes.get(path)!.stat.ephemeralOwner).toBe(0n);
    await seq.close();
    await prot.close();
    expect(server.children('/q')).toEqual([]);
  });

  it('after a lost create reply a protected node is found by its prefix, not created twice', async () => {
    const server = new ScriptedServer();
    const client = server.connect();
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
    const server = new ScriptedServer();
    const client = server.connect();
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
    const server = new ScriptedServer();
    const client = server.connect();
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

  it('tells its error listeners of an error it keeps retrying through, and carries on (a throwing listener too)', async () => {
    const server = new ScriptedServer();
    const client = server.connect();
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
    const server = new ScriptedServer();
    const client = server.connect();
    const errors: unknown[] = [];
    server.fail({ op: 'create2', path: '/flaky', code: 'CONNECTIONLOSS' });
    const node = started(client, '/flaky', { onError: (e) => errors.push(e) });
    await createdPath(node);
    expect(errors).toEqual([]);
    await node.close();
  });

  it('start() rejects with TimeoutError after its timeout (the node is still kept), on its signal, and with ClosedError on close', async () => {
    const server = new ScriptedServer();
    const [client, other] = [server.connect(), server.connect()];
    await other.create2('/blocked', undefined, { mode: CreateMode.EPHEMERAL });
    const node = new PersistentNode(client, '/blocked');
    const timedOut = await node.start({ timeout: 20 }).catch((error: unknown) => error);
    expect(timedOut).toBeInstanceOf(TimeoutError);
    expect(timedOut).toMatchObject({ code: 'TIMEOUT', message: expect.stringContaining('20 ms') });
    const abort = new AbortController();
    const waiting = node.start({ signal: abort.signal });
    abort.abort(new Error('caller gave up'));
    await expect(waiting).rejects.toThrow('caller gave up');
    // Still kept after both: once the other session's node goes, ours is created.
    other.setState('expired');
    await node.start();
    expect(server.nodes.get('/blocked')!.stat.ephemeralOwner).toBe(client.sessionId);
    await node.close();
  });

  it('a start() waiting when the node is closed rejects with ClosedError', async () => {
    const server = new ScriptedServer();
    const [client, other] = [server.connect(), server.connect()];
    await other.create2('/blocked', undefined, { mode: CreateMode.EPHEMERAL });
    const node = new PersistentNode(client, '/blocked');
    const pending = node.start();
    const closing = node.close();
    await expect(pending).rejects.toBeInstanceOf(ClosedError);
    await closing;
    expect(server.nodes.get('/blocked')!.stat.ephemeralOwner).toBe(other.sessionId);
  });

  it('after a renewal an ephemeral node is created again on the new session', async () => {
    const server = new ScriptedServer();
    const client = server.connect();
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
    const server = new ScriptedServer();
    const client = server.connect();
    const node = started(client, '/keep', { mode: CreateMode.PERSISTENT });
    await createdPath(node);
    const czxid = server.nodes.get('/keep')!.stat.czxid;
    client.renew();
    await until(() => server.requests({ op: 'exists', path: '/keep' }).length >= 3);
    await new Promise((r) => setTimeout(r, 10));
    expect(server.nodes.get('/keep')!.stat.czxid).toBe(czxid);
    expect(server.requests({ op: 'create2', path: '/keep' })).toHaveLength(1);
    await node.close();
  });

  it('looks again at a reconnect and finds a node deleted meanwhile', async () => {
    const server = new ScriptedServer();
    const client = server.connect();
    const node = started(client, '/re');
    await createdPath(node);
    const lookedBefore = server.requests({ op: 'exists', path: '/re' }).length;
    client.setState('suspended');
    client.setState('connected');
    await until(() => server.requests({ op: 'exists', path: '/re' }).length > lookedBefore);
    expect(server.nodes.get('/re')!.stat.ephemeralOwner).toBe(client.sessionId);
    await node.close();
  });

  it('setData before the node exists is kept for its creation; a node gone meanwhile is created again', async () => {
    const server = new ScriptedServer();
    const [client, other] = [server.connect(), server.connect()];
    await other.create2('/late', undefined, { mode: CreateMode.EPHEMERAL });
    const node = started(client, '/late', { data: 'a' });
    await node.setData('b');
    other.setState('expired');
    await createdPath(node);
    expect(text(server.nodes.get('/late')!.data)).toBe('b');
    server.fail({ op: 'setData', path: '/late', code: 'NONODE' });
    await node.setData('c');
    expect(node.data).toBe('c');
    server.fail({ op: 'setData', path: '/late', code: 'NOAUTH' });
    await expect(node.setData('d')).rejects.toMatchObject({ code: 'NOAUTH' });
    await node.close();
  });

  it('a TTL node is touched every third of its TTL while kept', async () => {
    const server = new ScriptedServer();
    const client = server.connect();
    const node = started(client, '/ttl', { mode: CreateMode.PERSISTENT_WITH_TTL, ttl: 30 });
    await createdPath(node);
    await until(() => server.requests({ op: 'setData', path: '/ttl' }).length >= 3, 'touches');
    await node.close();
    const touches = server.requests({ op: 'setData', path: '/ttl' }).length;
    await new Promise((r) => setTimeout(r, 40));
    expect(server.requests({ op: 'setData', path: '/ttl' }).length).toBe(touches);
  });

  it('refuses a bad mode, path or TTL with InvalidArgumentError; a second start waits for the same creation', async () => {
    const client = new ScriptedServer().connect();
    const bad =
      (path: string, options = {}) =>
      () =>
        new PersistentNode(client, path, options);
    const badArgs = expect.any(InvalidArgumentError);
    expect(bad('/x', { mode: CreateMode.CONTAINER })).toThrow(badArgs);
    expect(bad('/x', { mode: 99 })).toThrow(badArgs);
    for (const path of ['x', '/', '/x/', 5 as unknown as string])
      expect(bad(path)).toThrow(badArgs);
    expect(bad('/x', { mode: CreateMode.PERSISTENT_WITH_TTL })).toThrow(badArgs);
    expect(bad('/x', { mode: CreateMode.PERSISTENT_WITH_TTL, ttl: 0 })).toThrow(badArgs);
    expect(bad('/x', { mode: CreateMode.PERSISTENT_WITH_TTL, ttl: Infinity })).toThrow(badArgs);
    expect(bad('/x', { mode: CreateMode.PERSISTENT_WITH_TTL, ttl: 1000 })).not.toThrow();
    expect(bad('/x', { mode: CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL, ttl: -1 })).toThrow(
      badArgs,
    );
    for (const mode of [
      CreateMode.EPHEMERAL,
      CreateMode.EPHEMERAL_SEQUENTIAL,
      CreateMode.PERSISTENT,
      CreateMode.PERSISTENT_SEQUENTIAL,
    ]) {
      expect(bad('/x', { mode })).not.toThrow();
    }
    const node = new PersistentNode(client, '/twice');
    const [first, second] = [node.start(), node.start()];
    await Promise.all([first, second]);
    await node.start();
    expect(client.server.requests({ op: 'create2', path: '/twice' })).toHaveLength(1);
    await node.close();
  });

  it('await using closes the node', async () => {
    const server = new ScriptedServer();
    const client = server.connect();
    {
      await using node = started(client, '/scoped');
      await createdPath(node);
      expect(server.nodes.has('/scoped')).toBe(true);
    }
    expect(server.nodes.has('/scoped')).toBe(false);
  });
});
