// Creating lock paths and the ExclusiveLock's create and delete across lost replies, against the
// scripted client (scripted-client.ts). Real-server behaviour: test/integration/locks.
import { describe, expect, it } from 'vitest';
import { CreateMode } from '../../../src/index.js';
import { ExclusiveLock, Mutex } from '../../../src/locks/index.js';
import { type ScriptedServer, scriptedSessions } from './scripted-client.js';

/** The creates `requests` made under `prefix`, as [path, mode, outcome]. */
function creates(server: ScriptedServer, prefix: string) {
  return server
    .requests({ op: 'create2' })
    .filter((r) => r.path.startsWith(prefix))
    .map((r) => [r.path, r.mode, r.outcome]);
}

describe('lock paths are created with their parents (scripted client)', () => {
  it('a missing lock path and its ancestors are created as containers, then the node', async () => {
    const [server, client] = scriptedSessions(1);
    const lease = await new Mutex(client, '/app/locks/job').acquire();
    const made = creates(server, '/app');
    expect(made.slice(0, -1)).toEqual([
      [expect.stringMatching(/^\/app\/locks\/job\/_c_/), CreateMode.EPHEMERAL_SEQUENTIAL, 'NONODE'],
      ['/app/locks/job', CreateMode.CONTAINER, 'NONODE'],
      ['/app/locks', CreateMode.CONTAINER, 'NONODE'],
      ['/app', CreateMode.CONTAINER, 'ok'],
      ['/app/locks', CreateMode.CONTAINER, 'ok'],
      ['/app/locks/job', CreateMode.CONTAINER, 'ok'],
    ]);
    expect(made.at(-1)).toEqual([made[0]![0], CreateMode.EPHEMERAL_SEQUENTIAL, 'ok']);
    expect(server.children('/app/locks/job')).toHaveLength(1);
    await lease.release();
  });

  it('a server without containers (UNIMPLEMENTED) gets persistent parents, remembered per client', async () => {
    const [server, client] = scriptedSessions(1);
    server.fail({ op: 'create2', path: '/app', code: 'UNIMPLEMENTED' });
    const lease = await new ExclusiveLock(client, '/app/one').acquire();
    expect(creates(server, '/app')).toEqual([
      ['/app/one', CreateMode.EPHEMERAL, 'NONODE'],
      ['/app', CreateMode.CONTAINER, 'UNIMPLEMENTED'],
      ['/app', CreateMode.PERSISTENT, 'ok'],
      ['/app/one', CreateMode.EPHEMERAL, 'ok'],
    ]);
    await lease.release();
    const again = await new ExclusiveLock(client, '/other/two').acquire();
    expect(creates(server, '/other')).toEqual([
      ['/other/two', CreateMode.EPHEMERAL, 'NONODE'],
      ['/other', CreateMode.PERSISTENT, 'ok'],
      ['/other/two', CreateMode.EPHEMERAL, 'ok'],
    ]);
    await again.release();
  });

  it('a parent that another contender creates first is fine (NODEEXISTS)', async () => {
    const [server, a, b] = scriptedSessions(2);
    // B makes the parent between A's NONODE and A's own create of it.
    const realCreate = a.create2.bind(a);
    a.create2 = async (path, data, options) => {
      if (path === '/common') await b.create2('/common');
      return realCreate(path, data, options);
    };
    const lease = await new Mutex(a, '/common/lock').acquire();
    expect(creates(server, '/common').map(([path, , outcome]) => [path, outcome])).toEqual([
      [expect.stringMatching(/^\/common\/lock\/_c_/), 'NONODE'],
      ['/common/lock', 'NONODE'],
      ['/common', 'ok'], // B's
      ['/common', 'NODEEXISTS'],
      ['/common/lock', 'ok'],
      [lease.path.slice(0, -10), 'ok'],
    ]);
    await lease.release();
  });

  it('a parent removed again before the create (its container reaped) is made again', async () => {
    const [server, a, reaper] = scriptedSessions(2);
    const realCreate = a.create2.bind(a);
    let reaped = false;
    a.create2 = async (path, data, options) => {
      if (path === '/p/lock' && server.nodes.has('/p') && !reaped) {
        reaped = true;
        await reaper.delete('/p');
      }
      return realCreate(path, data, options);
    };
    const lease = await new ExclusiveLock(a, '/p/lock').acquire();
    expect(creates(server, '/p').map(([path, , outcome]) => [path, outcome])).toEqual([
      ['/p/lock', 'NONODE'],
      ['/p', 'ok'],
      ['/p/lock', 'NONODE'],
      ['/p', 'ok'],
      ['/p/lock', 'ok'],
    ]);
    await lease.release();
  });
});

describe('ExclusiveLock across lost replies (scripted client)', () => {
  it('a create applied whose reply was lost: its own node is recognised (sync, read) and held', async () => {
    const [server, client] = scriptedSessions(1);
    await client.create2('/x');
    server.fail({ op: 'create2', path: '/x/lock', code: 'CONNECTIONLOSS', applied: true });
    const lease = await new ExclusiveLock(client, '/x/lock').acquire();
    expect(creates(server, '/x/lock').map(([, , outcome]) => outcome)).toEqual(['CONNECTIONLOSS']);
    const ops = client.requests().map((r) => `${r.op} ${r.path}`);
    expect(ops.slice(ops.indexOf('create2 /x/lock'))).toEqual([
      'create2 /x/lock',
      'sync /x/lock',
      'getData /x/lock',
    ]);
    expect(lease.fencingToken).toBe(server.nodes.get('/x/lock')!.stat.czxid);
    await lease.release();
    expect(server.children('/x')).toEqual([]);
  });

  it('a create not applied: the node is found absent and created again', async () => {
    const [server, client] = scriptedSessions(1);
    await client.create2('/x');
    server.fail({ op: 'create2', path: '/x/lock', code: 'CONNECTIONLOSS' });
    const lease = await new ExclusiveLock(client, '/x/lock').acquire();
    expect(creates(server, '/x/lock').map(([, , outcome]) => outcome)).toEqual([
      'CONNECTIONLOSS',
      'ok',
    ]);
    await lease.release();
    expect(server.children('/x')).toEqual([]);
  });

  it('the check-then-delete of a release is retried after BADVERSION and after a lost connection', async () => {
    const [server, client] = scriptedSessions(1);
    const lease = await new ExclusiveLock(client, '/lock').acquire();
    server.fail({ op: 'delete', path: '/lock', code: 'BADVERSION' });
    server.fail({ op: 'getData', path: '/lock', code: 'CONNECTIONLOSS' });
    await lease.release();
    expect(client.requests({ op: 'delete' }).map((r) => r.outcome)).toEqual(['BADVERSION', 'ok']);
    expect(server.nodes.has('/lock')).toBe(false);
  });

  it("a release never deletes a later holder's node", async () => {
    const [server, a, b] = scriptedSessions(2);
    const lease = await new ExclusiveLock(a, '/lock').acquire();
    // A's delete is applied but its reply is lost; B takes the lock before A looks again.
    server.fail({ op: 'delete', path: '/lock', code: 'CONNECTIONLOSS', applied: true });
    const realGetData = a.getData.bind(a);
    let taken = false;
    a.getData = async (path, options) => {
      if (!taken && a.requests({ op: 'delete' }).length > 0) {
        taken = true;
        await new ExclusiveLock(b, '/lock').acquire();
      }
      return realGetData(path, options);
    };
    await lease.release();
    expect(server.nodes.get('/lock')?.stat.ephemeralOwner).toBe(b.sessionId);
    expect(a.requests({ op: 'delete' })).toHaveLength(1);
  });
});
