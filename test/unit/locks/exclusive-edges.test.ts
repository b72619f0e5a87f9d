// ExclusiveLock's edges against the scripted client (scripted-client.ts): its path check, what it
// publishes, the requests it does not send (no owner lookup without a lost reply, nothing after an
// abort), a NODEEXISTS that finds the node gone or its own, and waiters on several paths.
import { describe, expect, it } from 'vitest';
import { CreateMode } from '../../../src/index.js';
import { ExclusiveLock } from '../../../src/locks/index.js';
import { expectTwoHoldsOfKind, lockMessages } from '../../support/locks-unit.js';
import { until } from '../../support/wait.js';
import { ScriptedServer, scriptedSessions } from './scripted-client.js';

const settle = () => new Promise((r) => setTimeout(r, 10));

describe('ExclusiveLock edges (scripted client)', () => {
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

  it('a taken node with no lost reply of ours is not looked up, and nothing is left to clean', async () => {
    const [, a, b] = scriptedSessions(2);
    const held = await new ExclusiveLock(a, '/t').acquire();
    expect(await new ExclusiveLock(b, '/t').tryAcquire()).toBeNull();
    expect(b.requests().map((r) => `${r.op} ${r.outcome}`)).toEqual(['create2 NODEEXISTS']);
    await held.release();
  });

  it('an acquire with an already aborted signal sends nothing', async () => {
    const [server, a] = scriptedSessions(1);
    await expect(
      new ExclusiveLock(a, '/s').acquire({ signal: AbortSignal.abort(new Error('no')) }),
    ).rejects.toThrow('no');
    await settle();
    expect(server.log).toEqual([]);
  });

  it('a create refused with NONODE (no chroot) fails at once and sends nothing more', async () => {
    const [server, a] = scriptedSessions(1);
    server.fail({ op: 'create2', path: '/c', code: 'NONODE' });
    await expect(new ExclusiveLock(a, '/c').acquire()).rejects.toMatchObject({ code: 'NONODE' });
    await settle();
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
    await q.release();
    const leaseQ = await onQ;
    await settle();
    // The waiter on /p stayed asleep: one create, one watch.
    expect(b.requests({ op: 'create2', path: '/p' })).toHaveLength(1);
    expect(b.requests({ op: 'exists', path: '/p' })).toHaveLength(1);
    await p.release();
    const leaseP = await onP;
    await leaseP.release();
    await leaseQ.release();
  });
});
