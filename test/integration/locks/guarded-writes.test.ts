// Writes guarded by a hold (lease.multi, term.multi) on the real server: applied all together
// while the hold lasts; after it ended (node deleted, session expired, released, suspended) they
// reject with the lease-lost error and nothing of them is applied, also when the client had not
// yet heard of the end and the server's check is what refuses.
import { describe, expect, it } from 'vitest';
import { type Client, Op, parentPath, ZooKeeperError } from '../../../src/index.js';
import {
  ExclusiveLock,
  LeaderLatch,
  LeaseReleasedError,
  LockLostError,
  MultiLock,
  Mutex,
  Semaphore,
} from '../../../src/locks/index.js';
import { ensurePath } from '../../../src/recipes/index.js';
import { rejection } from '../../support/thrown.js';
import { heldMutex, lockPath, newClient, proxiedClient, until } from './helpers.js';

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** A fresh data node next to the lock, holding `initial`. */
async function dataNode(zk: Client, lock: string, initial = 'v0'): Promise<string> {
  const path = `${lock}-data`;
  await ensurePath(zk, parentPath(path));
  await zk.create(path, initial);
  return path;
}

describe('lease.multi (guarded writes)', () => {
  it('applies every op while the lease is held and answers for the ops alone', async () => {
    const zk = await newClient();
    const path = lockPath();
    const lease = await new Mutex(zk, path).acquire();
    const data = await dataNode(zk, path);
    const results = await lease.multi([Op.setData(data, 'v1', 0), Op.create(`${data}/child`, 'c')]);
    expect(results.map((r) => r.type)).toEqual(['setData', 'create']);
    expect(text((await zk.getData(data)).data)).toBe('v1');
    expect(await zk.exists(`${data}/child`)).not.toBeNull();
    await lease.release();
  });

  it('rejects with LockLostError(deleted) when the node is gone on the server, though the client had not heard, and applies nothing', async () => {
    const { zk, admin, path, lease } = await heldMutex();
    const data = await dataNode(zk, path);
    // The signal was never read: no watch on the node, so only the server's check can refuse.
    await admin.delete(lease.path);
    const error = await rejection(
      lease.multi([Op.setData(data, 'late'), Op.create(`${data}/late`)]),
    );
    expect(error).toBeInstanceOf(LockLostError);
    expect(error).toMatchObject({ reason: 'deleted', path: lease.path });
    expect(text((await admin.getData(data)).data)).toBe('v0');
    expect(await admin.exists(`${data}/late`)).toBeNull();
    // The lease now knows: its signal is aborted with the same reason, and later calls are refused.
    expect(lease.signal.aborted).toBe(true);
    expect(lease.signal.reason).toMatchObject({ reason: 'deleted' });
    await expect(lease.multi([Op.setData(data, 'later')])).rejects.toBeInstanceOf(LockLostError);
  });

  it('another holder after the deletion is not fooled: the old lease writes nothing, the new one writes', async () => {
    const [a, b] = [await newClient(), await newClient()];
    const path = lockPath();
    const first = await new Mutex(a, path).acquire();
    const data = await dataNode(a, path);
    await b.delete(first.path);
    const second = await new Mutex(b, path).acquire({ timeout: 10_000 });
    expect(second.fencingToken).toBeGreaterThan(first.fencingToken);
    await expect(first.multi([Op.setData(data, 'from-first')])).rejects.toMatchObject({
      reason: 'deleted',
    });
    await second.multi([Op.setData(data, 'from-second')]);
    expect(text((await a.getData(data)).data)).toBe('from-second');
    await second.release();
  });

  it('a write waiting out a cut link applies nothing once the session turns out expired', async () => {
    const { client: zk, proxy } = await proxiedClient({ sessionTimeout: 4_000 });
    const observer = await newClient();
    const path = lockPath();
    // lossPolicy 'expired': the cut alone does not end the lease, so the write is sent (queued).
    const lease = await new Mutex(zk, path, { lossPolicy: 'expired' }).acquire();
    const data = await dataNode(zk, path);
    proxy.refuse(true);
    proxy.cut();
    await until(() => zk.state === 'suspended', 'the client to notice the cut', 15_000);
    const pending = rejection(lease.multi([Op.setData(data, 'after-expiry')]));
    // The server expires the session while the client is away; then the client may come back.
    const thief = await newClient({
      session: { id: zk.sessionId, password: zk.sessionPassword },
      renewSession: false,
    });
    await thief.close();
    proxy.refuse(false);
    const error = await pending;
    expect(error).toBeInstanceOf(LockLostError);
    expect(['expired', 'deleted']).toContain((error as LockLostError).reason);
    await until(() => zk.state === 'connected', 'the renewed session', 15_000);
    expect(text((await observer.getData(data)).data)).toBe('v0');
    expect(lease.signal.aborted).toBe(true);
  });

  it('refuses without sending once the lease is released or (default policy) suspended', async () => {
    const zk = await newClient();
    const path = lockPath();
    const data = await dataNode(zk, path);
    const released = await new Mutex(zk, path).acquire();
    await released.release();
    await expect(released.multi([Op.setData(data, 'x')])).rejects.toBeInstanceOf(
      LeaseReleasedError,
    );

    const { client: cut, proxy } = await proxiedClient({ sessionTimeout: 4_000 });
    const suspended = await new Mutex(cut, path).acquire();
    proxy.refuse(true);
    proxy.cut();
    await until(() => cut.state === 'suspended', 'the client to notice the cut', 15_000);
    const error = await rejection(suspended.multi([Op.setData(data, 'x')]));
    expect(error).toBeInstanceOf(LockLostError);
    expect(error).toMatchObject({ reason: 'suspended' });
    // Nothing was queued for the next connection: once back, the data is as it was.
    proxy.refuse(false);
    await until(() => cut.state === 'connected', 'reconnect', 15_000);
    await cut.sync(data);
    expect(text((await cut.getData(data)).data)).toBe('v0');
    await suspended.release();
  });

  it("an op of the caller's that fails fails the whole multi, with its own code; the lease stays", async () => {
    const zk = await newClient();
    const path = lockPath();
    const lease = await new Mutex(zk, path).acquire();
    const data = await dataNode(zk, path);
    const error = await rejection(lease.multi([Op.create(`${data}/a`), Op.setData(data, 'x', 7)]));
    expect(error).toBeInstanceOf(ZooKeeperError);
    expect(error).toMatchObject({ code: 'BADVERSION' });
    // The guard's check comes first in the results, then the caller's ops.
    expect((error as ZooKeeperError).results?.length).toBe(3);
    expect(await zk.exists(`${data}/a`)).toBeNull();
    expect(lease.signal.aborted).toBe(false);
    await lease.release();
  });

  it('a semaphore lease, a multi-lock and a leader term guard their writes too', async () => {
    const zk = await newClient();
    const admin = await newClient();
    const base = lockPath('many');
    const data = await dataNode(zk, base);

    const permit = await new Semaphore(zk, `${base}/sem`, { maxLeases: 2 }).acquire();
    await permit.multi([Op.setData(data, 'sem')]);
    await permit.release();

    const both = await new MultiLock([
      new Mutex(zk, `${base}/m1`),
      new Mutex(zk, `${base}/m2`),
    ]).acquire();
    await both.multi([Op.setData(data, 'both')]);
    expect(text((await zk.getData(data)).data)).toBe('both');
    await admin.delete(both.leases[1]!.path);
    await expect(both.multi([Op.setData(data, 'one-gone')])).rejects.toMatchObject({
      reason: 'deleted',
      path: both.leases[1]!.path,
    });
    expect(text((await zk.getData(data)).data)).toBe('both');
    await both.release();

    const latch = new LeaderLatch(zk, `${base}/leader`, { id: 'me' });
    latch.start();
    const term = await latch.leadership({ timeout: 10_000 });
    await term.multi([Op.setData(data, 'leader')]);
    expect(text((await zk.getData(data)).data)).toBe('leader');
    await admin.delete(term.path);
    await expect(term.multi([Op.setData(data, 'deposed')])).rejects.toBeInstanceOf(LockLostError);
    expect(text((await zk.getData(data)).data)).toBe('leader');
    await latch.close();
  });

  it("refuses an ExclusiveLock's lease: its node's path is every holder's", async () => {
    const zk = await newClient();
    const path = lockPath();
    const lease = await new ExclusiveLock(zk, path).acquire();
    await expect(lease.multi([Op.check(path, -1)])).rejects.toMatchObject({
      code: 'BADARGUMENTS',
    });
    await lease.release();
  });
});
