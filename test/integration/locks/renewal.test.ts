// The lock recipes across a session renewal, on the real server: a held lease is lost at the
// expiry and never comes back; a waiting acquire goes on, on the new session, within its own
// deadline, with a new node, and never takes the old session's node for its own.
import { afterEach, describe, expect, it } from 'vitest';
import { type Client, connect } from '../../../src/index.js';
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
import { sharedServer, TcpProxy } from '../../harness/index.js';
import { childrenOf, lockPath, newClient, sleep, until } from './helpers.js';

const proxies: TcpProxy[] = [];
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((p) => p.close()));
});

/** A client behind a proxy the test controls. */
async function proxiedClient(sessionTimeout = 4_000): Promise<{ zk: Client; proxy: TcpProxy }> {
  const [host, port] = sharedServer().connectString.split(':') as [string, string];
  const proxy = await TcpProxy.start(host, Number(port));
  proxies.push(proxy);
  const zk = await newClient({ sessionTimeout }, proxy.connectString);
  return { zk, proxy };
}

function states(zk: Client, wanted: string): Promise<void> {
  return until(() => zk.state === wanted, `state ${wanted}`, 15_000);
}

/** The next move to `wanted` (for `expired`, which lasts only while its listeners run). */
function nextState(zk: Client, wanted: string, ms = 15_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${wanted} within ${ms} ms`)), ms);
    const off = zk.on('state', (state) => {
      if (state !== wanted) return;
      clearTimeout(timer);
      off();
      resolve();
    });
  });
}

/**
 * Cuts `zk` off and has the server expire its session (another client resumes it and closes
 * it); returns once `zk` can reconnect. `keepAlive`: the thief keeps the old session alive on the
 * server instead, and the caller closes it (`thief.close()`).
 */
async function takeSessionAway(zk: Client, proxy: TcpProxy, keepAlive = false): Promise<Client> {
  proxy.refuse(true);
  proxy.cut();
  await states(zk, 'suspended');
  const thief = await connect(sharedServer().connectString, {
    session: { id: zk.sessionId, password: zk.sessionPassword },
    renewSession: false,
  });
  if (!keepAlive) {
    await thief.close();
    proxy.refuse(false);
  }
  return thief;
}

function abortReason(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    else signal.addEventListener('abort', () => resolve(signal.reason), { once: true });
  });
}

describe('a held lease at the expiry', () => {
  it('is lost with reason expired, stays lost on the new session, and releases at once', async () => {
    const { zk, proxy } = await proxiedClient();
    const other = await newClient();
    const path = lockPath();
    const lease = await new Mutex(zk, path, { lossPolicy: 'expired' }).acquire();
    const reason = abortReason(lease.signal);
    await takeSessionAway(zk, proxy);
    expect(await reason).toBeInstanceOf(LockLostError);
    expect(lease.signal.reason).toMatchObject({ reason: 'expired', code: 'SESSIONEXPIRED' });
    await states(zk, 'connected');
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
    const { zk, proxy } = await proxiedClient(2_000);
    const lease = await new Mutex(zk, lockPath(), { lossPolicy: 'expired' }).acquire();
    const expired = nextState(zk, 'expired');
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
      const { zk, proxy } = await proxiedClient();
      const holderClient = await newClient();
      const path = lockPath();
      const holder = await make(holderClient, path).acquire();
      const waiting = make(zk, path).acquire({ timeout: 30_000 });
      await sleep(300); // queued behind the holder
      const oldSession = zk.sessionId;
      await takeSessionAway(zk, proxy);
      await states(zk, 'connected');
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
    const [host, port] = sharedServer().connectString.split(':') as [string, string];
    const proxy = await TcpProxy.start(host, Number(port));
    proxies.push(proxy);
    const zk = await newClient({ sessionTimeout: 4_000, renewSession: false }, proxy.connectString);
    const holderClient = await newClient();
    const path = lockPath();
    const holder = await new Mutex(holderClient, path).acquire();
    const waiting = new Mutex(zk, path).acquire({ timeout: 30_000 });
    waiting.catch(() => {});
    await sleep(300);
    await takeSessionAway(zk, proxy);
    await expect(waiting).rejects.toMatchObject({ code: 'SESSIONEXPIRED' });
    await holder.release();
  });

  it("never takes the old session's node for its own, even while the server still has it", async () => {
    const { zk, proxy } = await proxiedClient(2_000);
    const holderClient = await newClient();
    const path = lockPath();
    const holder = await new Mutex(holderClient, path).acquire();
    const waiting = new Mutex(zk, path).acquire({ timeout: 30_000 });
    await sleep(300);
    const oldSession = zk.sessionId;
    const [oldNode] = (await childrenOf(holderClient, path)).filter(
      (name) => !holder.path.endsWith(name),
    );
    expect(oldNode).toBeDefined();
    // Another client keeps the old session (and so its node) alive on the server, while ours
    // hears nothing for a whole session timeout and declares it expired.
    const expired = nextState(zk, 'expired');
    const keeper = await takeSessionAway(zk, proxy, true);
    await expired;
    // The holder leaves: the old session's node is now first in line.
    await holder.release();
    proxy.refuse(false);
    await states(zk, 'connected');
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
