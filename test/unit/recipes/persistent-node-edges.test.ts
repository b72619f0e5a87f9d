// PersistentNode's edges against the scripted client (scripted-client.ts): what its refusals say,
// the pauses between failed tries, a watch event lost with the connection, a node replaced or
// gone at the moment it is looked at, and the error listeners told nothing of its own recovery
// paths.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BoundOptions } from '../../../src/coordination/bounded.js';
import { CreateMode } from '../../../src/index.js';
import { PersistentNode, type PersistentNodeOptions } from '../../../src/recipes/index.js';
import { until } from '../../support/wait.js';
import { type ScriptedClient, ScriptedServer } from '../locks/scripted-client.js';

const settle = () => new Promise((r) => setTimeout(r, 10));

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

/** Drops a connection: a watch event lost with it, the session kept; then reconnects. */
function blip(client: ScriptedClient): void {
  client.setState('suspended');
  client.setState('connected');
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('PersistentNode edges (scripted client)', () => {
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
    const server = new ScriptedServer();
    const [client, other] = [server.connect(), server.connect()];
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

  it('waits longer after each failure that is not a connection loss', async () => {
    vi.useFakeTimers();
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const server = new ScriptedServer();
    const client = server.connect();
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

  it('a watch event lost with the connection: the reconnect looks again and creates the node', async () => {
    const server = new ScriptedServer();
    const client = server.connect();
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
    const server = new ScriptedServer();
    const client = server.connect();
    const node = started(client, '/kept', { mode: CreateMode.PERSISTENT });
    await createdPath(node);
    blip(client);
    await settle();
    expect(server.requests({ op: 'create2', path: '/kept' })).toHaveLength(1);
    expect(server.requests({ op: 'setData' })).toEqual([]);
    await node.close();
  });

  it("a reconnect that finds another session's node in its place lets it go and waits it out", async () => {
    const server = new ScriptedServer();
    const [client, other] = [server.connect(), server.connect()];
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
    const server = new ScriptedServer();
    const client = server.connect();
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

  it('close() tells the error listeners nothing', async () => {
    const client = new ScriptedServer().connect();
    const errors: unknown[] = [];
    const node = started(client, '/quiet', { onError: (e) => errors.push(e) });
    await createdPath(node);
    await node.close();
    await settle();
    expect(errors).toEqual([]);
  });

  it('a connection loss while setting the watch is retried at once without telling the error listeners', async () => {
    vi.useFakeTimers();
    const server = new ScriptedServer();
    const client = server.connect();
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
    const server = new ScriptedServer();
    const [client, other] = [server.connect(), server.connect()];
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

  it("a persistent node does not adopt another session's ephemeral node at its path", async () => {
    const server = new ScriptedServer();
    const [client, other] = [server.connect(), server.connect()];
    await other.create2('/eph', 'theirs', { mode: CreateMode.EPHEMERAL });
    const node = started(client, '/eph', { mode: CreateMode.PERSISTENT, data: 'mine' });
    await expect(createdPath(node, { timeout: 30 })).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(server.requests({ op: 'setData' })).toEqual([]);
    await node.close();
  });

  it('an ephemeral node adopting its own node after a lost reply does not rewrite it', async () => {
    const server = new ScriptedServer();
    const client = server.connect();
    server.fail({ op: 'create2', path: '/own', code: 'CONNECTIONLOSS', applied: true });
    const node = started(client, '/own', { data: 'd' });
    await createdPath(node);
    expect(server.requests({ op: 'setData' })).toEqual([]);
    expect(server.nodes.get('/own')!.stat.version).toBe(0);
    await node.close();
  });

  it("a protected node's lost create that never landed: a sibling of the same session is not taken for it", async () => {
    const server = new ScriptedServer();
    const client = server.connect();
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

  it('a TTL node is touched every third of its TTL, from its creation', async () => {
    vi.useFakeTimers();
    const server = new ScriptedServer();
    const client = server.connect();
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
});
