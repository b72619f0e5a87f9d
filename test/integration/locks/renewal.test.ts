// The lock recipes across a session renewal, on the real server: a held lease is lost at the
// expiry and never comes back; a waiting acquire goes on, on the new session, within its own
// deadline, with a new node, and never takes the old session's node for its own.
import { describe, expect, it } from 'vitest';
import type { Client } from '../../../src/index.js';
import {
  ExclusiveLock,
  type Lease,
  type Lock,
  LockLostError,
  MultiLock,
  Mutex,
  ReadWriteLock,
  Semaphore,
} from '../../../src/locks/index.js';
import { abortReason, stateReached, takeSessionAway } from '../../support/integration.js';
import { whenIdle } from '../../support/request-log.js';
import { childrenOf, lockPath, newClient, proxiedClient } from './helpers.js';

/** Starts `acquire` on `client`; resolves once it is queued (answered, sitting on its watch). */
async function queued<T>(
  client: Client,
  acquire: () => Promise<T>,
): Promise<{ waiting: Promise<T> }> {
  const { value: waiting } = await whenIdle(client, () => {
    const promise = acquire();
    promise.catch(() => {});
    return promise;
  });
  return { waiting };
}

describe('a held lease at the expiry', () => {
  it('is lost with reason expired, stays lost on the new session, and releases at once', async () => {
    const { client: zk, proxy } = await proxiedClient({ sessionTimeout: 4_000 });
    const other = await newClient();
    const path = lockPath();
    const lease = await new Mutex(zk, path, { lossPolicy: 'expired' }).acquire();
    const reason = abortReason(lease.signal);
    await takeSessionAway(zk, proxy);
    expect(await reason).toBeInstanceOf(LockLostError);
    expect(lease.signal.reason).toMatchObject({ reason: 'expired', code: 'SESSIONEXPIRED' });
    await stateReached(zk, 'connected', 15_000);
    expect(lease.signal.aborted).toBe(true);
    // The lock is free for others: the old node went with the old session.
    const next = await new Mutex(other, path).acquire({ timeout: 5_000 });
    expect(next.fencingToken > lease.fencingToken).toBe(true);
    // Releasing the lost lease touches nothing of the new holder's and does not wait.
    await lease.release();
    expect(next.signal.aborted).toBe(false);
    await next.release();
  });

  it('releases at once even while no new session can be had', async () => {
    const { client: zk, proxy } = await proxiedClient({ sessionTimeout: 2_000 });
    const lease = await new Mutex(zk, lockPath(), { lossPolicy: 'expired' }).acquire();
    const expired = stateReached(zk, 'expired', 15_000);
    proxy.freeze('drop');
    await expired;
    const started = Date.now();
    await lease.release();
    expect(Date.now() - started).toBeLessThan(500);
  });
});

describe('an acquire waiting at the expiry', () => {
  const recipes: [string, (client: Client, path: string) => Lock][] = [
    ['Mutex', (client, path) => new Mutex(client, path)],
    ['ReadWriteLock write', (client, path) => new ReadWriteLock(client, path).write],
    ['Semaphore', (client, path) => new Semaphore(client, path, { maxLeases: 1 })],
    ['ExclusiveLock', (client, path) => new ExclusiveLock(client, path)],
    ['MultiLock', (client, path) => new MultiLock([new Mutex(client, `${path}/a`)])],
  ];
  for (const [name, make] of recipes) {
    it(`${name}: goes on on the new session within its deadline and gets the lock`, async () => {
      const { client: zk, proxy } = await proxiedClient({ sessionTimeout: 4_000 });
      const holderClient = await newClient();
      const path = lockPath();
      const holder = await make(holderClient, path).acquire();
      const { waiting } = await queued(zk, () => make(zk, path).acquire({ timeout: 30_000 }));
      const oldSession = zk.sessionId;
      await takeSessionAway(zk, proxy);
      await stateReached(zk, 'connected', 15_000);
      expect(zk.sessionId).not.toBe(oldSession);
      await holder.release();
      const lease = await waiting;
      expect(lease.signal.aborted).toBe(false);
      for (const part of lease.path.split(',')) {
        expect((await holderClient.exists(part))?.ephemeralOwner).toBe(zk.sessionId);
      }
      await lease.release();
    });
  }

  it('without renewal, it rejects with the session error', async () => {
    const { client: zk, proxy } = await proxiedClient({
      sessionTimeout: 4_000,
      renewSession: false,
    });
    const holderClient = await newClient();
    const path = lockPath();
    const holder = await new Mutex(holderClient, path).acquire();
    const { waiting } = await queued(zk, () => new Mutex(zk, path).acquire({ timeout: 30_000 }));
    await takeSessionAway(zk, proxy);
    await expect(waiting).rejects.toMatchObject({ code: 'SESSIONEXPIRED' });
    await holder.release();
  });

  it("never takes the old session's node for its own, even while the server still has it", async () => {
    const { client: zk, proxy } = await proxiedClient({ sessionTimeout: 2_000 });
    const holderClient = await newClient();
    const path = lockPath();
    const holder = await new Mutex(holderClient, path).acquire();
    const { waiting } = await queued(zk, () => new Mutex(zk, path).acquire({ timeout: 30_000 }));
    const oldSession = zk.sessionId;
    const [oldNode] = (await childrenOf(holderClient, path)).filter(
      (name) => !holder.path.endsWith(name),
    );
    expect(oldNode).toBeDefined();
    // Another client keeps the old session (and so its node) alive on the server, while ours
    // hears nothing for a whole session timeout and declares it expired.
    const expired = stateReached(zk, 'expired', 15_000);
    const keeper = await takeSessionAway(zk, proxy, { keepAlive: true });
    await expired;
    // The holder leaves: the old session's node is now first in line.
    await holder.release();
    proxy.refuse(false);
    await stateReached(zk, 'connected', 15_000);
    expect(zk.sessionId).not.toBe(oldSession);
    const lease: Lease = await waiting;
    // Holding through the old node would mean holding through a session that is not ours any
    // more: the server would give the lock away whenever that session ends. The acquire removes
    // the old node (it was ours) and holds through a node of its new session.
    expect(lease.path.endsWith(oldNode!)).toBe(false);
    expect((await holderClient.exists(lease.path))?.ephemeralOwner).toBe(zk.sessionId);
    expect(await holderClient.exists(`${path}/${oldNode}`)).toBeNull();
    expect(keeper.state).toBe('connected'); // the old session itself is still alive
    await keeper.close();
    await lease.release();
  });
});
