// How the recipes create and remove their nodes when replies are lost or the server refuses:
// a semaphore's lease create whose reply was lost, parents that cannot be made, cleanup after a
// timeout while the link is down. Against the scripted client (scripted-client.ts).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CreateMode, ZooKeeperError } from '../../../src/index.js';
import { LockTimeoutError, Mutex, Semaphore } from '../../../src/locks/index.js';
import { PersistentNode } from '../../../src/recipes/index.js';
import { until } from '../../support/wait.js';
import { recordSignals } from './record-signals.js';
import { type ScriptedServer, scriptedSessions } from './scripted-client.js';

const LEASES = /^\/sem\/leases\/_c_/;
const leaseNodes = (server: ScriptedServer) => server.children('/sem/leases');

describe('Semaphore lease create whose reply was lost (scripted client)', () => {
  it("not applied: creates again under a fresh prefix, and never touches another holder's lease", async () => {
    const [server, a, b] = scriptedSessions(2);
    const held = await new Semaphore(b, '/sem', { maxLeases: 2 }).acquire();
    server.fail({ op: 'create2', path: LEASES, session: a.sessionId, code: 'CONNECTIONLOSS' });
    const lease = await new Semaphore(a, '/sem', { maxLeases: 2 }).acquire();
    expect(server.nodes.has(held.path)).toBe(true);
    expect(leaseNodes(server)).toHaveLength(2);
    const creates = a.requests({ op: 'create2' }).filter((r) => LEASES.test(r.path));
    expect(creates.map((r) => r.outcome)).toEqual(['CONNECTIONLOSS', 'ok']);
    expect(creates[0]!.path).not.toBe(creates[1]!.path);
    expect(a.requests({ op: 'delete' }).filter((r) => LEASES.test(r.path))).toEqual([]);
    await lease.release();
    await held.release();
  });

  it('applied: adopts its own node found by prefix, and creates no second one', async () => {
    const [server, a] = scriptedSessions(1);
    await a.create2('/sem');
    await a.create2('/sem/leases');
    server.fail({ op: 'create2', path: LEASES, code: 'CONNECTIONLOSS', applied: true });
    const signal = new AbortController().signal;
    const seen = recordSignals(a, ['getChildren', 'getData', 'exists', 'sync']);
    const lease = await new Semaphore(a, '/sem', { maxLeases: 1 }).acquire({ signal });
    expect(leaseNodes(server)).toEqual([lease.path.slice('/sem/leases/'.length)]);
    expect(server.nodes.get(lease.path)?.stat.ephemeralOwner).toBe(a.sessionId);
    // The recovery's sync, listing and check all carry the caller's signal; the guard mutex's
    // own listings carry none (the lock engine's requests end with the acquire's bound).
    for (const op of ['sync', 'getChildren', 'exists']) {
      expect(seen.get(op)?.filter((s) => s === signal).length, op).toBeGreaterThan(0);
      expect(
        seen.get(op)?.every((s) => s === signal || (op === 'getChildren' && s === undefined)),
        op,
      ).toBe(true);
    }
    await lease.release();
    expect(leaseNodes(server)).toEqual([]);
  });

  it('a node under its prefix that another session created is deleted, never adopted', async () => {
    const [server, a, other] = scriptedSessions(2);
    await other.create2('/sem');
    await other.create2('/sem/leases');
    const realCreate = a.create2.bind(a);
    let first = true;
    a.create2 = (path, data, options) => {
      if (first && LEASES.test(path)) {
        first = false;
        void other.create2(path, data, options);
        return Promise.reject(new ZooKeeperError('CONNECTIONLOSS', 'reply lost'));
      }
      return realCreate(path, data, options);
    };
    const lease = await new Semaphore(a, '/sem', { maxLeases: 1 }).acquire();
    expect(leaseNodes(server)).toEqual([lease.path.slice('/sem/leases/'.length)]);
    expect(server.nodes.get(lease.path)?.stat.ephemeralOwner).toBe(a.sessionId);
    expect(a.requests({ op: 'delete' }).filter((r) => LEASES.test(r.path))).toHaveLength(1);
    // Recovered within the one attempt: the guard was taken once, not again from the start.
    const guards = a.requests({ op: 'create2' }).filter((r) => r.path.startsWith('/sem/locks/'));
    expect(guards.filter((r) => r.outcome === 'ok')).toHaveLength(1);
    await lease.release();
  });
});

describe('lock paths that cannot be made (scripted client)', () => {
  it('a server that refuses containers and persistent parents alike: UNIMPLEMENTED is passed on', async () => {
    const [server, a] = scriptedSessions(1);
    server.fail({ op: 'create2', path: '/deep', code: 'UNIMPLEMENTED', times: 5 });
    await expect(new Mutex(a, '/deep/lock').acquire({ timeout: 2_000 })).rejects.toMatchObject({
      code: 'UNIMPLEMENTED',
    });
    // One try as a container, one as a persistent node: then the error is the caller's.
    expect(a.requests({ op: 'create2', path: '/deep' }).length).toBeLessThanOrEqual(3);
  });

  it('a parent whose create is refused (NOAUTH): the acquire fails with that error', async () => {
    const [server, a] = scriptedSessions(1);
    server.fail({ op: 'create2', path: '/acl', code: 'NOAUTH' });
    await expect(new Mutex(a, '/acl/lock').acquire({ timeout: 2_000 })).rejects.toMatchObject({
      code: 'NOAUTH',
    });
  });

  it('a top-level lock path whose create says NONODE (the chroot is gone): NONODE is passed on', async () => {
    const [server, a] = scriptedSessions(1);
    server.fail({ op: 'create2', path: '/top', code: 'NONODE', times: 5 });
    await expect(new Mutex(a, '/top').acquire({ timeout: 2_000 })).rejects.toMatchObject({
      code: 'NONODE',
    });
  });

  it('a release whose retried delete is refused (NOAUTH) fails with that error', async () => {
    const [server, a] = scriptedSessions(1);
    const lease = await new Mutex(a, '/rel').acquire();
    server.fail({ op: 'delete', path: lease.path, code: 'CONNECTIONLOSS' });
    server.fail({ op: 'delete', path: lease.path, code: 'NOAUTH' });
    await expect(lease.release()).rejects.toMatchObject({ code: 'NOAUTH' });
  });
});

describe('cleanup after a timeout while the link is down (scripted client)', () => {
  it('the timeout is answered at once when the client is not connected', async () => {
    const [server, a, b] = scriptedSessions(2);
    const held = await new Mutex(a, '/t').acquire();
    const waiting = new Mutex(b, '/t').acquire({ timeout: 30 });
    await until(() => server.children('/t').length === 2, "b's node in line");
    b.setState('suspended');
    await expect(waiting).rejects.toBeInstanceOf(LockTimeoutError);
    // Its node goes once the link is back.
    b.setState('connected');
    await until(() => server.children('/t').length === 1, "b's node removed");
    await held.release();
  });
});

describe('the create request of a node with a time to live (scripted client)', () => {
  it('carries the ttl (a node without one sends none)', async () => {
    const [, client] = scriptedSessions(1);
    const sent: { path: string; options: Record<string, unknown> }[] = [];
    const realCreate = client.create2.bind(client);
    client.create2 = (path, data, options = {}) => {
      sent.push({ path, options: { ...options } });
      return realCreate(path, data, options);
    };
    const withTtl = new PersistentNode(client, '/ttl/a', {
      mode: CreateMode.PERSISTENT_WITH_TTL,
      ttl: 60_000,
    });
    await withTtl.start({ timeout: 2_000 });
    const plain = new PersistentNode(client, '/ttl/b');
    await plain.start({ timeout: 2_000 });
    const own = sent.filter((s) => s.path === '/ttl/a' || s.path === '/ttl/b');
    expect(own.map((s) => [s.path, s.options.mode, s.options.ttl])).toEqual([
      ['/ttl/a', CreateMode.PERSISTENT_WITH_TTL, 60_000],
      ['/ttl/a', CreateMode.PERSISTENT_WITH_TTL, 60_000],
      ['/ttl/b', CreateMode.EPHEMERAL, undefined],
    ]);
    // The parent made on the way is a container.
    expect(sent.find((s) => s.path === '/ttl')?.options.mode).toBe(CreateMode.CONTAINER);
    await withTtl.close();
    await plain.close();
  });
});

describe('requests after the caller gives up (scripted client)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a timed-out acquire stops repeating a listing the server keeps refusing', async () => {
    // On a faked clock: the retry pauses (100-200 ms each) after the timeout pass at once.
    vi.useFakeTimers();
    const [server, a, b] = scriptedSessions(2);
    const held = await new Mutex(a, '/busy').acquire();
    server.fail({ op: 'getChildren', path: '/busy', code: 'THROTTLEDOP', times: 100 });
    const timedOut = expect(new Mutex(b, '/busy').acquire({ timeout: 50 })).rejects.toBeInstanceOf(
      LockTimeoutError,
    );
    await vi.advanceTimersByTimeAsync(50);
    await timedOut;
    const listings = () => b.requests({ op: 'getChildren', path: '/busy' }).length;
    const afterTimeout = listings();
    expect(afterTimeout).toBeGreaterThan(0);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(listings()).toBe(afterTimeout);
    await held.release();
  });

  it('a lease create lost while its leases/ container was reaped: none found, created again', async () => {
    const [server, a] = scriptedSessions(1);
    await a.create2('/sem');
    await a.create2('/sem/leases');
    server.fail({ op: 'create2', path: LEASES, code: 'CONNECTIONLOSS' });
    server.fail({ op: 'getChildren', path: '/sem/leases', code: 'NONODE' });
    const lease = await new Semaphore(a, '/sem', { maxLeases: 1 }).acquire({ timeout: 2_000 });
    expect(leaseNodes(server)).toEqual([lease.path.slice('/sem/leases/'.length)]);
    await lease.release();
  });

  it('a semaphore acquire that times out while the link is down answers at once', async () => {
    const [server, a, b] = scriptedSessions(2);
    const held = await new Semaphore(a, '/sus', { maxLeases: 1 }).acquire();
    const waiting = new Semaphore(b, '/sus', { maxLeases: 1 }).acquire({ timeout: 30 });
    await until(() => server.children('/sus/leases').length === 2, "b's lease node");
    b.setState('suspended');
    await expect(waiting).rejects.toBeInstanceOf(LockTimeoutError);
    b.setState('connected');
    await held.release();
  });
});
