// When a lease's signal aborts: suspension, expiry, deletion by someone else, close.
import { describe, expect, it } from 'vitest';
import { LockLostError, Mutex } from '../../../src/locks/index.js';
import { sharedServer, TcpProxy } from '../../harness/index.js';
import { abortReason } from '../../support/integration.js';
import { childrenOf, heldMutex, lockPath, newClient, until, watchesByPath } from './helpers.js';

describe('Lease.signal', () => {
  it('aborts when the connection is suspended (default policy); release still removes the node', async () => {
    const zk = await newClient();
    const observer = await newClient();
    const path = lockPath();
    const lease = await new Mutex(zk, path).acquire();
    const reason = abortReason(lease.signal);
    zk.dropConnection();
    expect(await reason).toBeInstanceOf(LockLostError);
    expect(lease.signal.reason).toMatchObject({ reason: 'suspended', code: 'CONNECTIONLOSS' });
    await until(() => zk.state === 'connected', 'reconnect');
    await lease.release();
    expect(await childrenOf(observer, path)).toEqual([]);
  });

  it("with lossPolicy 'expired', survives a reconnect within the session", async () => {
    const zk = await newClient();
    const path = lockPath();
    const lease = await new Mutex(zk, path, { lossPolicy: 'expired' }).acquire();
    const states: string[] = [];
    zk.on('state', (state) => states.push(state));
    zk.dropConnection();
    await until(() => states.includes('connected'), 'reconnect');
    expect(states).toEqual(['suspended', 'connected']);
    expect(lease.signal.aborted).toBe(false);
    // The own-node watch came back with the session: deletion is still noticed.
    await zk.delete(lease.path);
    expect(await abortReason(lease.signal)).toMatchObject({ reason: 'deleted' });
  });

  it("with lossPolicy 'expired', aborts when the session expires, not before", async () => {
    const [host, port] = sharedServer().connectString.split(':') as [string, string];
    const proxy = await TcpProxy.start(host, Number(port));
    try {
      const zk = await newClient({ sessionTimeout: 1_000 }, proxy.connectString);
      const other = await newClient();
      const path = lockPath();
      const lease = await new Mutex(zk, path, { lossPolicy: 'expired' }).acquire();
      let abortedWhenSuspended: boolean | undefined;
      zk.on('state', (state) => {
        if (state === 'suspended') abortedWhenSuspended = lease.signal.aborted;
      });
      proxy.freeze('drop');
      const reason = await abortReason(lease.signal);
      expect(abortedWhenSuspended).toBe(false);
      expect(reason).toMatchObject({
        name: 'LockLostError',
        reason: 'expired',
        code: 'SESSIONEXPIRED',
      });
      // The server expires the session too, and the lock passes on.
      const next = await new Mutex(other, path).acquire({ timeout: 15_000 });
      expect(next.fencingToken > lease.fencingToken).toBe(true);
      await lease.release(); // nothing left to delete: resolves
      await next.release();
    } finally {
      await proxy.close();
    }
  });

  it('aborts when someone else deletes the node, and not on data changes', async () => {
    const { zk, admin, lease } = await heldMutex();
    await admin.setData(lease.path, 'touched');
    await admin.setData(lease.path, 'touched again');
    await admin.sync(lease.path);
    await zk.sync(lease.path);
    expect(lease.signal.aborted).toBe(false);
    await admin.delete(lease.path);
    expect(await abortReason(lease.signal)).toMatchObject({ reason: 'deleted', code: 'NONODE' });
    await lease.release();
  });

  it('watches its node only once the signal is read; a deletion before that aborts at once', async () => {
    const { zk, admin, path, lease } = await heldMutex();
    const unread = await new Mutex(zk, lockPath()).acquire();
    // Nobody asked for the signal yet: no watch on either node (the server's own list).
    await zk.sync(lease.path);
    expect((await watchesByPath(path)).get(lease.path)).toBeUndefined();
    // Reading it sets the watch...
    expect(lease.signal.aborted).toBe(false);
    await until(
      async () => (await watchesByPath(path)).get(lease.path)?.includes(zk.sessionId) === true,
      'own-node watch set',
    );
    // ...and a node deleted before the first read is found by that read's request.
    await admin.delete(unread.path);
    expect(await abortReason(unread.signal)).toMatchObject({ reason: 'deleted', code: 'NONODE' });
    await admin.delete(lease.path);
    expect(await abortReason(lease.signal)).toMatchObject({ reason: 'deleted', code: 'NONODE' });
    await unread.release();
    await lease.release();
  });

  it('aborts when the client is closed', async () => {
    const zk = await newClient();
    const lease = await new Mutex(zk, lockPath()).acquire();
    await zk.close();
    // Closing deletes the session's ephemeral nodes; the watch may report that first.
    const reason = await abortReason(lease.signal);
    expect(reason).toBeInstanceOf(LockLostError);
    expect(['closed', 'deleted']).toContain((reason as LockLostError).reason);
    await lease.release();
  });

  it('shares one loss between reentrant leases', async () => {
    const zk = await newClient();
    const mutex = new Mutex(zk, lockPath());
    const outer = await mutex.acquire();
    const inner = await mutex.acquire({ reentrantFrom: outer });
    zk.dropConnection();
    await abortReason(outer.signal);
    expect(inner.signal.aborted).toBe(true);
    await expect(mutex.acquire({ reentrantFrom: outer })).rejects.toBeInstanceOf(LockLostError);
    await inner.release();
    await outer.release();
  });
});
