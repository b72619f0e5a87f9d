// Connection losses around create and delete, and timeouts that fire mid-create.
import { describe, expect, it } from 'vitest';
import { ZooKeeperError } from '../../../src/index.js';
import { LockTimeoutError, Mutex } from '../../../src/locks/index.js';
import {
  childrenOf,
  instrument,
  lockPath,
  losingFirstCreate,
  newClient,
  newClients,
  proxiedClient,
  sleep,
  until,
  untilChildren,
} from './helpers.js';

const lost = () => new ZooKeeperError('CONNECTIONLOSS', 'simulated: reply lost');

/** A lock path whose parents exist, so every create2 the lock makes is a contender create. */
async function preparedPath(zk: Awaited<ReturnType<typeof newClient>>): Promise<string> {
  const path = lockPath();
  await zk.create2(path.slice(0, path.lastIndexOf('/')));
  await zk.create2(path);
  return path;
}

describe('protected names', () => {
  it('after a CONNECTIONLOSS on create, finds its own node instead of creating a second', async () => {
    const zk = await newClient();
    const path = await preparedPath(zk);
    // Applied on the server, but the reply never arrived.
    const { client, calls } = losingFirstCreate(zk, true);
    const lease = await new Mutex(client, path).acquire();
    expect(calls.create2).toBe(1);
    expect(await childrenOf(zk, path)).toEqual([lease.path.slice(path.length + 1)]);
    await lease.release();
    expect(await childrenOf(zk, path)).toEqual([]);
  });

  it('creates again when the lost create never reached the server', async () => {
    const zk = await newClient();
    const path = await preparedPath(zk);
    const { client, calls } = losingFirstCreate(zk, false);
    const lease = await new Mutex(client, path).acquire();
    expect(calls.create2).toBe(2);
    expect(await childrenOf(zk, path)).toHaveLength(1);
    await lease.release();
  });

  it('deletes, never adopts, a node with its prefix owned by another session', async () => {
    const [zk, other] = await newClients(2);
    const path = await preparedPath(zk!);
    let stale: string | undefined;
    const { client } = instrument(zk!, {
      create2: async (p, data, options) => {
        if (stale === undefined) {
          // The node appears under our prefix, but owned by another (older) session.
          stale = (await other!.create2(p, data, options)).path;
          throw lost();
        }
        return zk!.create2(p, data, options);
      },
    });
    const lease = await new Mutex(client, path).acquire();
    expect(lease.path).not.toBe(stale);
    expect(await zk!.exists(stale!)).toBeNull();
    expect((await zk!.exists(lease.path))?.ephemeralOwner).toBe(zk!.sessionId);
    expect(await childrenOf(zk!, path)).toEqual([lease.path.slice(path.length + 1)]);
    // A fresh owner prefix, so nothing else of the old attempt can be mistaken for ours.
    expect(lease.path.slice(path.length + 1, path.length + 41)).not.toBe(
      stale!.slice(path.length + 1, path.length + 41),
    );
    await lease.release();
  });

  it('keeps waiting through real connection drops and still gets the lock', async () => {
    const [a, b] = await newClients(2);
    const path = lockPath();
    const held = await new Mutex(a!, path).acquire();
    const waiting = new Mutex(b!, path).acquire({ timeout: 20_000 });
    await untilChildren(a!, path, 2, 'waiter queued');
    for (let i = 0; i < 3; i++) {
      b!.dropConnection();
      await until(() => b!.state === 'connected', 'reconnect');
    }
    await held.release();
    const lease = await waiting;
    expect(await childrenOf(a!, path)).toEqual([lease.path.slice(path.length + 1)]);
    await lease.release();
  });
});

describe('no node left behind', () => {
  it('when a timeout fires while the create is on the wire (frozen link)', async () => {
    const { proxy, client: zk } = await proxiedClient({ sessionTimeout: 8_000 });
    const observer = await newClient();
    const path = await preparedPath(observer);
    const { client, calls } = instrument(zk);
    proxy.freeze('hold');
    const attempt = new Mutex(client, path).acquire({ timeout: 200 }).catch((e: unknown) => e);
    await sleep(500); // the timeout has fired; the create is still held in the proxy
    expect(calls.create2).toBe(1);
    // The timeout rejected on time, with the create still on the wire.
    expect(await attempt).toBeInstanceOf(LockTimeoutError);
    proxy.thaw(); // now the server applies it, and the cleanup behind it removes it
    await until(
      async () => calls.delete === 1 && (await childrenOf(observer, path)).length === 0,
      'the landed create found and deleted',
    );
    expect(calls.delete).toBe(1);
  });

  it('when an abort lands after the server applied the create', async () => {
    const zk = await newClient();
    const path = await preparedPath(zk);
    const { client } = instrument(zk, {
      create2: async (p, data, options) => {
        await zk.create2(p, data, { ...options, signal: undefined });
        const signal = options?.signal;
        // The reply is "late": it only arrives after the caller gave up.
        await new Promise((resolve) => signal?.addEventListener('abort', resolve, { once: true }));
        throw signal?.reason;
      },
    });
    const controller = new AbortController();
    const reason = new Error('stop');
    const attempt = new Mutex(client, path).acquire({ signal: controller.signal });
    await untilChildren(zk, path, 1, 'node created');
    controller.abort(reason);
    await expect(attempt).rejects.toBe(reason);
    // Rejected at once; the cleanup removes the node in the background.
    await untilChildren(zk, path, 0, 'the node removed');
  });
});

describe('release', () => {
  it('finishes after a CONNECTIONLOSS, whether or not the delete was applied', async () => {
    const zk = await newClient();
    const path = lockPath();
    for (const applied of [true, false]) {
      let first = true;
      const { client, calls } = instrument(zk, {
        delete: async (p, version) => {
          if (first) {
            first = false;
            if (applied) await zk.delete(p, version);
            throw lost();
          }
          return zk.delete(p, version);
        },
      });
      const lease = await new Mutex(client, path).acquire();
      await lease.release();
      expect(calls.delete).toBe(2);
      expect(await zk.exists(lease.path)).toBeNull();
    }
  });

  it('removes the node across a real reconnect', async () => {
    const { proxy, client: zk } = await proxiedClient();
    const observer = await newClient();
    const path = lockPath();
    const { client, calls } = instrument(zk);
    const lease = await new Mutex(client, path).acquire();
    proxy.freeze('drop');
    const release = lease.release();
    await sleep(50); // the delete goes into the black hole
    proxy.cut();
    proxy.thaw();
    await release;
    expect(calls.delete).toBe(2); // the first was lost with the connection, then retried
    expect(await observer.exists(lease.path)).toBeNull();
    expect(await childrenOf(observer, path)).toEqual([]);
  });
});
