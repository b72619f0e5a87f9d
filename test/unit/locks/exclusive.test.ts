// ExclusiveLock against the scripted client (scripted-client.ts): its path check, what it
// publishes, taking, waiting, giving up, the requests it does not send (no owner lookup without a
// lost reply, nothing after an abort), the lost replies and NODEEXISTS answers around its one
// shared node name, and waiters on several paths. Real-server behaviour:
// test/integration/locks/exclusive.test.ts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CreateMode, ZooKeeperError } from '../../../src/index.js';
import { ExclusiveLock, LockTimeoutError } from '../../../src/locks/index.js';
import { expectTwoHoldsOfKind, lockMessages } from '../../support/locks-unit.js';
import { until } from '../../support/wait.js';
import { ScriptedServer, scriptedSessions } from './scripted-client.js';

const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);
// The checks that something does NOT happen run on a faked clock: a second of it passes at once,
// with every follow-up of the step and any retry pause (100-200 ms) run, however loaded the machine.
const LATER = 1_000;

afterEach(() => {
  vi.useRealTimers();
});

describe('ExclusiveLock (scripted client)', () => {
  it('refuses an invalid path, naming itself', () => {
    const client = new ScriptedServer().connect();
    expect(() => new ExclusiveLock(client, 'x')).toThrow(
      expect.objectContaining({
        code: 'BADARGUMENTS',
        message: expect.stringMatching(/^ExclusiveLock: invalid path "x"/),
      }),
    );
  });

  it("publishes its acquires and holds with the kind 'exclusive'", async () => {
    const seen = lockMessages();
    const client = new ScriptedServer().connect();
    const lease = await new ExclusiveLock(client, '/k').acquire();
    await lease.release();
    const tried = await new ExclusiveLock(client, '/k').tryAcquire();
    await tried!.release();
    expectTwoHoldsOfKind(seen, 'exclusive');
  });

  it('takes the free node (ephemeral, our session and token), refuses a second holder, and releases', async () => {
    const [server, a, b] = scriptedSessions(2);
    const lease = await new ExclusiveLock(a, '/x').acquire();
    const node = server.nodes.get('/x')!;
    expect(lease.path).toBe('/x');
    expect(lease.fencingToken).toBe(node.stat.czxid);
    expect(node.stat.ephemeralOwner).toBe(a.sessionId);
    expect(text(node.data)).toMatch(new RegExp(`^${a.sessionId.toString(16)}:[0-9a-f-]{36}$`));
    expect(await new ExclusiveLock(b, '/x').tryAcquire()).toBeNull();
    await expect(new ExclusiveLock(b, '/x').acquire({ timeout: 0 })).rejects.toBeInstanceOf(
      LockTimeoutError,
    );
    // The refused attempts left the holder's node alone.
    expect(server.nodes.get('/x')!.stat.czxid).toBe(node.stat.czxid);
    await lease.release();
    expect(server.nodes.has('/x')).toBe(false);
    const next = await new ExclusiveLock(b, '/x').tryAcquire();
    expect(next).not.toBeNull();
    await next!.release();
  });

  it('a waiter takes the node when the holder releases it', async () => {
    const [server, a, b] = scriptedSessions(2);
    const lease = await new ExclusiveLock(a, '/w').acquire();
    let granted = false;
    const waiting = new ExclusiveLock(b, '/w').acquire().then((l) => {
      granted = true;
      return l;
    });
    await until(() => server.requests({ op: 'exists', path: '/w', watch: true }).length > 0);
    vi.useFakeTimers();
    await vi.advanceTimersByTimeAsync(LATER);
    expect(granted).toBe(false);
    await lease.release();
    const next = await waiting;
    expect(server.nodes.get('/w')!.stat.ephemeralOwner).toBe(b.sessionId);
    await next.release();
  });

  it('a waiter gives up at its timeout and on its signal, leaving the holder alone', async () => {
    const [server, a, b] = scriptedSessions(2);
    const lease = await new ExclusiveLock(a, '/t').acquire();
    const error = await new ExclusiveLock(b, '/t').acquire({ timeout: 20 }).catch((e) => e);
    expect(error).toBeInstanceOf(LockTimeoutError);
    const abort = new AbortController();
    const waiting = new ExclusiveLock(b, '/t').acquire({ signal: abort.signal });
    await until(() => server.requests({ op: 'exists', path: '/t', watch: true }).length > 1);
    abort.abort(new Error('caller gave up'));
    await expect(waiting).rejects.toThrow('caller gave up');
    await expect(
      new ExclusiveLock(b, '/t').acquire({ signal: AbortSignal.abort(new Error('before')) }),
    ).rejects.toThrow('before');
    expect(server.nodes.get('/t')!.stat.ephemeralOwner).toBe(a.sessionId);
    await lease.release();
  });

  it('after a create whose reply was lost but which landed, the node is ours (found by its token)', async () => {
    const [server, a] = scriptedSessions(1);
    await a.create2('/lost', undefined, { mode: CreateMode.PERSISTENT });
    server.fail({ op: 'create2', path: '/lost/x', code: 'CONNECTIONLOSS', applied: true });
    const lease = await new ExclusiveLock(a, '/lost/x').acquire();
    expect(lease.fencingToken).toBe(server.nodes.get('/lost/x')!.stat.czxid);
    // Looked up after a sync, not created twice.
    expect(server.requests({ op: 'sync', path: '/lost/x' })).toHaveLength(1);
    expect(server.requests({ op: 'create2', path: '/lost/x' })).toHaveLength(1);
    await lease.release();
    expect(server.nodes.has('/lost/x')).toBe(false);
  });

  it('after a create whose reply was lost and which did not land, it creates again', async () => {
    const [server, a] = scriptedSessions(1);
    await a.create2('/nl', undefined, { mode: CreateMode.PERSISTENT });
    server.fail({ op: 'create2', path: '/nl/x', code: 'CONNECTIONLOSS' });
    const lease = await new ExclusiveLock(a, '/nl/x').tryAcquire();
    expect(lease).not.toBeNull();
    expect(server.requests({ op: 'create2', path: '/nl/x' }).map((r) => r.outcome)).toEqual([
      'CONNECTIONLOSS',
      'ok',
    ]);
    await lease!.release();
  });

  it('after a lost create reply, a node with another token is taken: tryAcquire gives up', async () => {
    const [server, a, b] = scriptedSessions(2);
    const held = await new ExclusiveLock(b, '/o').acquire();
    server.fail({ op: 'create2', path: '/o', code: 'CONNECTIONLOSS' });
    expect(await new ExclusiveLock(a, '/o').tryAcquire()).toBeNull();
    expect(server.nodes.get('/o')!.stat.ephemeralOwner).toBe(b.sessionId);
    await held.release();
  });

  it('NODEEXISTS after an earlier create with an unknown outcome: the node may be ours, and is', async () => {
    const [server, a] = scriptedSessions(1);
    await a.create2('/ne', undefined, { mode: CreateMode.PERSISTENT });
    // The first create lands but its reply is lost; the owner lookup's read fails with a
    // connection loss too, so the lock creates again and meets its own node.
    server.fail({ op: 'create2', path: '/ne/x', code: 'CONNECTIONLOSS', applied: true });
    server.fail({ op: 'sync', path: '/ne/x', code: 'CONNECTIONLOSS', times: 20 });
    const acquiring = new ExclusiveLock(a, '/ne/x').acquire({ timeout: 5_000 });
    const lease = await acquiring;
    expect(server.nodes.get('/ne/x')!.stat.ephemeralOwner).toBe(a.sessionId);
    expect(lease.fencingToken).toBe(server.nodes.get('/ne/x')!.stat.czxid);
    await lease.release();
    expect(server.nodes.has('/ne/x')).toBe(false);
  });

  it('an aborted acquire removes the node its lost create left behind', async () => {
    const [server, a] = scriptedSessions(1);
    await a.create2('/ab', undefined, { mode: CreateMode.PERSISTENT });
    server.fail({ op: 'create2', path: '/ab/x', code: 'CONNECTIONLOSS', applied: true });
    // The lookup fails for good: the attempt fails, and must not leave its node behind.
    server.fail({ op: 'sync', path: '/ab/x', code: 'NOAUTH' });
    await expect(new ExclusiveLock(a, '/ab/x').acquire()).rejects.toMatchObject({
      code: 'NOAUTH',
    });
    expect(server.nodes.has('/ab/x')).toBe(false);
    // A second lock can take it at once.
    const lease = await new ExclusiveLock(a, '/ab/x').tryAcquire();
    expect(lease).not.toBeNull();
    await lease!.release();
  });

  it("release never deletes the next holder's node", async () => {
    const [server, a, b, admin] = scriptedSessions(3);
    const lease = await new ExclusiveLock(a, '/n').acquire();
    // Someone removes A's node (an operator); B takes the lock; A's release must leave B's node.
    await admin.delete('/n');
    const next = await new ExclusiveLock(b, '/n').acquire();
    await lease.release();
    expect(server.nodes.get('/n')!.stat.ephemeralOwner).toBe(b.sessionId);
    expect(lease.signal.aborted).toBe(true);
    await next.release();
    expect(server.nodes.has('/n')).toBe(false);
  });

  it('a release whose delete meets a connection loss or a changed version tries again', async () => {
    const [server, a] = scriptedSessions(1);
    const lease = await new ExclusiveLock(a, '/r').acquire();
    server.fail({ op: 'delete', path: '/r', code: 'CONNECTIONLOSS' });
    server.fail({ op: 'delete', path: '/r', code: 'BADVERSION' });
    await lease.release();
    expect(server.nodes.has('/r')).toBe(false);
    expect(server.requests({ op: 'delete', path: '/r' })).toHaveLength(3);
  });

  it('a release after the node is gone succeeds; a delete refused for good rejects', async () => {
    const [server, a, admin] = scriptedSessions(2);
    const gone = await new ExclusiveLock(a, '/g').acquire();
    await admin.delete('/g');
    await gone.release();
    const lease = await new ExclusiveLock(a, '/g').acquire();
    server.fail({ op: 'delete', path: '/g', code: 'NOAUTH' });
    await expect(lease.release()).rejects.toMatchObject({ code: 'NOAUTH' });
    await lease.release();
    expect(server.nodes.has('/g')).toBe(false);
  });

  it('a waiter whose watch cannot be set passes the error on; a lost watch reply is looked at again', async () => {
    const [server, a, b] = scriptedSessions(2);
    const lease = await new ExclusiveLock(a, '/e').acquire();
    server.fail({ op: 'exists', path: '/e', code: 'CONNECTIONLOSS' });
    server.fail({ op: 'exists', path: '/e', code: 'NOAUTH' });
    await expect(new ExclusiveLock(b, '/e').acquire()).rejects.toMatchObject({ code: 'NOAUTH' });
    expect(server.requests({ op: 'exists', path: '/e' })).toHaveLength(2);
    expect(server.nodes.get('/e')!.stat.ephemeralOwner).toBe(a.sessionId);
    await lease.release();
  });

  it('a node of an older session carrying our token is removed, not adopted', async () => {
    const [server, a] = scriptedSessions(1);
    await a.create2('/old', undefined, { mode: CreateMode.PERSISTENT });
    const lock = new ExclusiveLock(a, '/old/x');
    const oldSession = a.sessionId;
    // The create lands on the old session; its reply is lost; the session is renewed before the
    // lookup (the server has not expired the old node yet in this script).
    const realCreate = a.create2.bind(a);
    let first = true;
    a.create2 = (async (...args: Parameters<typeof realCreate>) => {
      if (!first) return realCreate(...args);
      first = false;
      await realCreate(...args);
      a.sessionId = server.newSessionId();
      throw new ZooKeeperError('CONNECTIONLOSS', 'reply lost');
    }) as typeof a.create2;
    const lease = await lock.tryAcquire();
    expect(lease).not.toBeNull();
    const node = server.nodes.get('/old/x')!;
    expect(node.stat.ephemeralOwner).toBe(a.sessionId);
    expect(node.stat.ephemeralOwner).not.toBe(oldSession);
    expect(lease!.fencingToken).toBe(node.stat.czxid);
    expect(server.requests({ op: 'delete', path: '/old/x' }).map((r) => r.outcome)).toEqual(['ok']);
    await lease!.release();
  });

  it('a taken node with no lost reply of ours is not looked up, and nothing is left to clean', async () => {
    const [, a, b] = scriptedSessions(2);
    const held = await new ExclusiveLock(a, '/t').acquire();
    expect(await new ExclusiveLock(b, '/t').tryAcquire()).toBeNull();
    expect(b.requests().map((r) => `${r.op} ${r.outcome}`)).toEqual(['create2 NODEEXISTS']);
    await held.release();
  });

  it('an acquire with an already aborted signal sends nothing', async () => {
    vi.useFakeTimers();
    const [server, a] = scriptedSessions(1);
    await expect(
      new ExclusiveLock(a, '/s').acquire({ signal: AbortSignal.abort(new Error('no')) }),
    ).rejects.toThrow('no');
    await vi.advanceTimersByTimeAsync(LATER);
    expect(server.log).toEqual([]);
  });

  it('a create refused with NONODE (no chroot) fails at once and sends nothing more', async () => {
    vi.useFakeTimers();
    const [server, a] = scriptedSessions(1);
    server.fail({ op: 'create2', path: '/c', code: 'NONODE' });
    await expect(new ExclusiveLock(a, '/c').acquire()).rejects.toMatchObject({ code: 'NONODE' });
    await vi.advanceTimersByTimeAsync(LATER);
    expect(a.requests().map((r) => `${r.op} ${r.outcome}`)).toEqual(['create2 NONODE']);
  });

  it('NODEEXISTS for a node gone by the time it is watched: the lock is taken at once', async () => {
    const [server, a] = scriptedSessions(1);
    // The holder's node went between the refused create and the exists watch.
    server.fail({ op: 'create2', path: '/g', code: 'NODEEXISTS' });
    const lease = await new ExclusiveLock(a, '/g').acquire({ timeout: 1_000 });
    expect(server.nodes.get('/g')!.stat.ephemeralOwner).toBe(a.sessionId);
    await lease.release();
  });

  it('NODEEXISTS after a lost create reply that landed: the node found is ours', async () => {
    const [server, a] = scriptedSessions(1);
    await a.create2('/p', undefined, { mode: CreateMode.PERSISTENT });
    // The create lands but its reply is lost; the lookup's read misses it (a stale answer), so the
    // lock creates again, meets its own node, and must look it up rather than wait for it.
    server.fail({ op: 'create2', path: '/p/x', code: 'CONNECTIONLOSS', applied: true });
    server.fail({ op: 'getData', path: '/p/x', code: 'NONODE' });
    const lease = await new ExclusiveLock(a, '/p/x').acquire({ timeout: 1_000 });
    const node = server.nodes.get('/p/x')!;
    expect(node.stat.ephemeralOwner).toBe(a.sessionId);
    expect(lease.fencingToken).toBe(node.stat.czxid);
    expect(server.requests({ op: 'create2', path: '/p/x' }).map((r) => r.outcome)).toEqual([
      'CONNECTIONLOSS',
      'NODEEXISTS',
    ]);
    await lease.release();
    expect(server.nodes.has('/p/x')).toBe(false);
  });

  it('a grant decided after close() began is void: the node is removed, the acquire rejects', async () => {
    const [server, a] = scriptedSessions(1);
    const create = a.create2.bind(a);
    a.create2 = (async (...args: Parameters<typeof create>) => {
      const created = await create(...args);
      a.beginClose(); // close() starts while the create's reply is on its way
      return created;
    }) as typeof a.create2;
    await expect(new ExclusiveLock(a, '/v').acquire()).rejects.toMatchObject({
      name: 'LockLostError',
    });
    expect(server.nodes.has('/v')).toBe(false);
  });

  it('waiters of one client on two paths: a release wakes only the waiter of its path', async () => {
    const [, a, b] = scriptedSessions(2);
    const [p, q] = [
      await new ExclusiveLock(a, '/p').acquire(),
      await new ExclusiveLock(a, '/q').acquire(),
    ];
    const onP = new ExclusiveLock(b, '/p').acquire();
    const onQ = new ExclusiveLock(b, '/q').acquire();
    await until(() => b.requests({ op: 'exists', watch: true }).length === 2);
    vi.useFakeTimers();
    await q.release();
    const leaseQ = await onQ;
    await vi.advanceTimersByTimeAsync(LATER);
    // The waiter on /p stayed asleep: one create, one watch.
    expect(b.requests({ op: 'create2', path: '/p' })).toHaveLength(1);
    expect(b.requests({ op: 'exists', path: '/p' })).toHaveLength(1);
    await p.release();
    const leaseP = await onP;
    await leaseP.release();
    await leaseQ.release();
  });
});
