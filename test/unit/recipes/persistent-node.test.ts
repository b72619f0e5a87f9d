// PersistentNode against the scripted client (scripted-client.ts): how it creates its node (data,
// modes, sequential and protected names, adopting or waiting out a node already at the path),
// setData, start()'s bounds, its refusals, TTL touches and close. Recovery (lost replies,
// reconnects, renewals, retries, error listeners) is in persistent-node-recovery.test.ts; the
// real-server behaviour is proven in test/integration/recipes/persistent-node.test.ts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClosedError, CreateMode, InvalidArgumentError, TimeoutError } from '../../../src/index.js';
import { PersistentNode } from '../../../src/recipes/index.js';
import { createdPath, started, text } from '../../support/persistent-node.js';
import { until } from '../../support/wait.js';
import { ScriptedServer, scriptedSessions } from '../locks/scripted-client.js';

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('PersistentNode (scripted client)', () => {
  it('creates the node with its parents and data, ephemeral by default, and deletes it on close', async () => {
    const [server, client] = scriptedSessions(1);
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
    const [server, client] = scriptedSessions(1);
    const node = started(client, '/p', { mode: CreateMode.PERSISTENT });
    await createdPath(node);
    expect(server.nodes.get('/p')!.stat.ephemeralOwner).toBe(0n);
    expect(text(server.nodes.get('/p')!.data)).toBe('');
    expect(node.data).toBe('');
    await node.close();
    expect(server.nodes.has('/p')).toBe(false);
  });

  it('creates the node again when someone deletes it, with the current data', async () => {
    const [server, client, other] = scriptedSessions(2);
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
    const [, client, other] = scriptedSessions(2);
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
    const [server, client, other] = scriptedSessions(2);
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
    const [server, client, other] = scriptedSessions(2);
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
    const [server, client] = scriptedSessions(1);
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
    const [server, client] = scriptedSessions(1);
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
    const [server, client] = scriptedSessions(1);
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

  it("a persistent node does not adopt another session's ephemeral node at its path", async () => {
    const [server, client, other] = scriptedSessions(2);
    await other.create2('/eph', 'theirs', { mode: CreateMode.EPHEMERAL });
    const node = started(client, '/eph', { mode: CreateMode.PERSISTENT, data: 'mine' });
    await expect(createdPath(node, { timeout: 30 })).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(server.requests({ op: 'setData' })).toEqual([]);
    await node.close();
  });

  it('setData before the node exists is kept for its creation; a node gone meanwhile is created again', async () => {
    const [server, client, other] = scriptedSessions(2);
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

  it('start() rejects with TimeoutError after its timeout (the node is still kept), on its signal, and with ClosedError on close', async () => {
    const [server, client, other] = scriptedSessions(2);
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
    const [server, client, other] = scriptedSessions(2);
    await other.create2('/blocked', undefined, { mode: CreateMode.EPHEMERAL });
    const node = new PersistentNode(client, '/blocked');
    const pending = node.start();
    const closing = node.close();
    await expect(pending).rejects.toBeInstanceOf(ClosedError);
    await closing;
    expect(server.nodes.get('/blocked')!.stat.ephemeralOwner).toBe(other.sessionId);
  });

  it('close() before start() resolves, and close() is one promise however often called', async () => {
    const client = new ScriptedServer().connect();
    await new PersistentNode(client, '/never').close();
    const node = started(client, '/once');
    await createdPath(node);
    const closing = node.close();
    expect(node.close()).toBe(closing);
    await closing;
  });

  it("start()'s timeout error names the path; a caller's abort reason passes as it is", async () => {
    const [, client, other] = scriptedSessions(2);
    await other.create2('/blocked', undefined, { mode: CreateMode.EPHEMERAL });
    const node = started(client, '/blocked');
    await expect(createdPath(node, { timeout: 10 })).rejects.toMatchObject({
      name: 'TimeoutError',
      code: 'TIMEOUT',
      message: expect.stringContaining('/blocked'),
    });
    const abort = new AbortController();
    const waiting = createdPath(node, { signal: abort.signal });
    abort.abort(); // the default reason, a DOMException 'AbortError'
    const error = await waiting.catch((e) => e);
    expect(error).toBeInstanceOf(DOMException);
    expect(error.name).toBe('AbortError');
    const named = Object.assign(new Error('mine'), { name: 'TimeoutError' });
    await expect(createdPath(node, { signal: AbortSignal.abort(named) })).rejects.toBe(named);
    await node.close();
  });

  it('says what is wrong in its refusals', async () => {
    const client = new ScriptedServer().connect();
    const refusal = (message: string) =>
      expect.objectContaining({ name: 'InvalidArgumentError', code: 'BADARGUMENTS', message });
    expect(() => new PersistentNode(client, '/x', { mode: 99 as CreateMode })).toThrow(
      refusal('mode 99 cannot be kept'),
    );
    expect(() => new PersistentNode(client, 'x')).toThrow(refusal('invalid node path "x"'));
    expect(
      () => new PersistentNode(client, '/x', { mode: CreateMode.PERSISTENT_WITH_TTL }),
    ).toThrow(refusal('a TTL mode needs ttl (ms, > 0)'));
    const node = new PersistentNode(client, '/n');
    await node.start();
    await node.close();
    await expect(node.start()).rejects.toMatchObject({
      code: 'CLOSED',
      message: 'the persistent node /n was closed',
    });
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

  it('a TTL node is touched every third of its TTL while kept, and no more once closed', async () => {
    vi.useFakeTimers();
    const [server, client] = scriptedSessions(1);
    const node = started(client, '/ttl', { mode: CreateMode.PERSISTENT_WITH_TTL, ttl: 30 });
    await createdPath(node);
    const touches = () => server.requests({ op: 'setData', path: '/ttl' }).length;
    await vi.advanceTimersByTimeAsync(35);
    expect(touches()).toBe(3);
    await node.close();
    const beforeClose = touches();
    // Many touch periods on the faked clock: a timer left armed would have touched again.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(touches()).toBe(beforeClose);
  });

  it('a TTL node is touched every third of its TTL, from its creation', async () => {
    vi.useFakeTimers();
    const [server, client] = scriptedSessions(1);
    const node = started(client, '/ttl', { mode: CreateMode.PERSISTENT_WITH_TTL, ttl: 300 });
    await vi.advanceTimersByTimeAsync(0);
    expect(node.actualPath).toBe('/ttl');
    const touches = () => server.requests({ op: 'setData', path: '/ttl' }).length;
    await vi.advanceTimersByTimeAsync(99);
    expect(touches()).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(touches()).toBe(1);
    await vi.advanceTimersByTimeAsync(200);
    expect(touches()).toBe(3);
    // Each touch rewrote the node whatever its version.
    expect(server.nodes.get('/ttl')!.stat.version).toBe(3);
    await node.close();
  });

  it('await using closes the node', async () => {
    const [server, client] = scriptedSessions(1);
    {
      await using node = started(client, '/scoped');
      await createdPath(node);
      expect(server.nodes.has('/scoped')).toBe(true);
    }
    expect(server.nodes.has('/scoped')).toBe(false);
  });
});
