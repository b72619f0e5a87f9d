import { describe, expect, it } from 'vitest';
import { ZooKeeperError } from '../../../src/index.js';
import { ExclusiveLock, LockTimeoutError } from '../../../src/locks/index.js';
import { whenIdle } from '../../support/request-log.js';
import { instrument, lockPath, newClient, newClients, sleep, takeTurns } from './helpers.js';

const lost = () => new ZooKeeperError('CONNECTIONLOSS', 'simulated: reply lost');

describe('ExclusiveLock', () => {
  it('excludes across sessions', async () => {
    const clients = await newClients(3);
    const path = lockPath();
    const { maxInside, tokens } = await takeTurns(
      clients,
      5,
      (zk) => new ExclusiveLock(zk, path),
      () => sleep(2),
    );
    expect(maxInside).toBe(1);
    for (let i = 1; i < tokens.length; i++) expect(tokens[i]! > tokens[i - 1]!).toBe(true);
    expect(await clients[0]!.exists(path)).toBeNull();
  });

  it('stores the session and a token in the node, and holds it as an ephemeral of the session', async () => {
    const zk = await newClient();
    const path = lockPath();
    const lease = await new ExclusiveLock(zk, path).acquire();
    expect(lease.path).toBe(path);
    const { data, stat } = await zk.getData(path);
    expect(new TextDecoder().decode(data)).toMatch(
      new RegExp(`^${zk.sessionId.toString(16)}:[0-9a-f-]{36}$`),
    );
    expect(stat.ephemeralOwner).toBe(zk.sessionId);
    expect(lease.fencingToken).toBe(stat.czxid);
    await lease.release();
    expect(await zk.exists(path)).toBeNull();
  });

  it('tryAcquire, timeout and abort leave the holder alone and nothing of their own', async () => {
    const [a, b] = await newClients(2);
    const path = lockPath();
    const held = await new ExclusiveLock(a!, path).acquire();
    const before = await a!.exists(path);
    expect(await new ExclusiveLock(b!, path).tryAcquire()).toBeNull();
    await expect(new ExclusiveLock(b!, path).acquire({ timeout: 150 })).rejects.toBeInstanceOf(
      LockTimeoutError,
    );
    const controller = new AbortController();
    const { value: pending } = await whenIdle(b!, () =>
      new ExclusiveLock(b!, path).acquire({ signal: controller.signal }),
    );
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
    expect((await a!.exists(path))?.czxid).toBe(before?.czxid);
    await held.release();
  });

  it('a waiter gets the lock when the holder releases', async () => {
    const [a, b] = await newClients(2);
    const path = lockPath();
    const held = await new ExclusiveLock(a!, path).acquire();
    const { value: waiting } = await whenIdle(b!, () =>
      new ExclusiveLock(b!, path).acquire({ timeout: 10_000 }),
    );
    await held.release();
    const next = await waiting;
    expect(next.fencingToken > held.fencingToken).toBe(true);
    expect((await a!.exists(path))?.ephemeralOwner).toBe(b!.sessionId);
    await next.release();
  });

  it('after a CONNECTIONLOSS on create, recognises its own node by its data', async () => {
    const zk = await newClient();
    const path = lockPath();
    let first = true;
    let creates = 0;
    const { client } = instrument(zk, {
      create2: async (p, data, options) => {
        const result = await zk.create2(p, data, options);
        if (options?.mode === 1) creates++;
        if (first && options?.mode === 1) {
          first = false;
          throw lost();
        }
        return result;
      },
    });
    const lease = await new ExclusiveLock(client, path).acquire({ timeout: 5_000 });
    expect(lease.fencingToken).toBe((await zk.exists(path))?.czxid);
    expect(first).toBe(false);
    expect(creates).toBe(1); // adopted, not created twice (a second create would wait for ourselves)
    await lease.release();
    expect(await zk.exists(path)).toBeNull();
  });

  it('deletes, never adopts, its attempt’s node when another session owns it', async () => {
    const [zk, other] = await newClients(2);
    const path = lockPath();
    let stale: bigint | undefined;
    const { client } = instrument(zk!, {
      create2: async (p, data, options) => {
        if (stale === undefined && options?.mode === 1) {
          stale = (await other!.create2(p, data, options)).stat.czxid;
          throw lost();
        }
        return zk!.create2(p, data, options);
      },
    });
    const lease = await new ExclusiveLock(client, path).acquire({ timeout: 5_000 });
    const stat = await zk!.exists(path);
    expect(stat?.ephemeralOwner).toBe(zk!.sessionId);
    expect(stat?.czxid).not.toBe(stale);
    await lease.release();
  });

  it('a release whose delete reply was lost does not delete the next holder’s node', async () => {
    const [a, b] = await newClients(2);
    const path = lockPath();
    let next: Awaited<ReturnType<ExclusiveLock['acquire']>> | undefined;
    let first = true;
    const { client } = instrument(a!, {
      delete: async (p, version) => {
        await a!.delete(p, version);
        if (first) {
          first = false;
          // Someone else takes the lock before our retry.
          next = await new ExclusiveLock(b!, path).acquire();
          throw lost();
        }
      },
    });
    const lease = await new ExclusiveLock(client, path).acquire();
    await lease.release();
    expect(next).toBeDefined();
    expect((await a!.exists(path))?.ephemeralOwner).toBe(b!.sessionId);
    expect(next!.signal.aborted).toBe(false);
    await next!.release();
  });
});
