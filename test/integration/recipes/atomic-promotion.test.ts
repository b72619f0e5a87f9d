// DistributedAtomicLong promoted through a lock (Curator's PromotedToLock) against the real server:
// contention that makes the optimistic rounds lose, the lock not obtained in time, the lock's
// node layout, and the lock lost (link cut, session expiry) while the change holds it.
import { describe, expect, it } from 'vitest';
import type { Client } from '../../../src/index.js';
import { Mutex } from '../../../src/locks/index.js';
import { type AtomicResult, DistributedAtomicLong } from '../../../src/recipes/index.js';
import { cutAndPeer, expireSession, newClient, recipePath, until } from './helpers.js';

/** The children of `path` ([] when it is gone: the lock's parent is a container). */
async function children(zk: Client, path: string): Promise<string[]> {
  try {
    return await zk.getChildren(path);
  } catch (error) {
    if ((error as { code?: string }).code === 'NONODE') return [];
    throw error;
  }
}

/**
 * `zk` with its setData replaced: everything else (what the lock uses too) is the real client.
 * A Proxy keeps the getters (state, sessionId) live.
 */
function withSetData(zk: Client, setData: Client['setData']): Client {
  return new Proxy(zk, {
    get(target, prop) {
      if (prop === 'setData') return setData;
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * A setData that loses every compare-and-set without changing the value: `other` rewrites the
 * node's own bytes first (the version moves on), then the versioned write goes out. `onWrite` is
 * called with the write's number before it.
 */
function losingSetData(zk: Client, other: Client, onWrite: (n: number) => Promise<void> | void) {
  let writes = 0;
  return (async (path: string, data: Uint8Array, version?: number) => {
    await onWrite(++writes);
    const current = await other.getData(path);
    await other.setData(path, current.data, -1);
    return zk.setData(path, data, version);
  }) as Client['setData'];
}

const CURATOR_MUTEX_NODE =
  /^_c_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-lock-\d{10}$/;

describe('DistributedAtomicLong promoted to a lock', () => {
  it('counts every increment of six racing clients with one optimistic round each; the lock is gone after', async () => {
    const clients = await Promise.all([1, 2, 3, 4, 5, 6].map(() => newClient()));
    const path = recipePath('race');
    const lock = recipePath('race-lock');
    const results: AtomicResult[] = [];
    await Promise.all(
      clients.map(async (zk, i) => {
        // Half use Curator's default under the lock (one round), half many rounds.
        const promoted = i % 2 === 0 ? { maxAttempts: 1_000, baseDelay: 1, maxDelay: 10 } : {};
        const counter = new DistributedAtomicLong(zk, path, {
          retry: { maxAttempts: 1 },
          promotedToLock: { path: lock, retry: promoted },
        });
        for (let n = 0; n < 15; n++) results.push(await counter.increment());
      }),
    );
    const succeeded = results.filter((r) => r.succeeded).length;
    expect(await new DistributedAtomicLong(clients[0]!, path).get()).toBe(BigInt(succeeded));
    // The clients with many rounds under the lock never give up: at least their 45 count.
    expect(succeeded).toBeGreaterThanOrEqual(45);
    const promoted = results.filter((r) => r.stats.promotedLockTries > 0);
    expect(promoted.length).toBeGreaterThan(0);
    for (const r of results) expect(r.stats.optimisticTries).toBe(1);
    expect(await children(clients[0]!, lock)).toEqual([]);
  }, 60_000);

  it('holds a Curator InterProcessMutex node on the lock path while promoted, and releases it', async () => {
    const [zk, other] = [await newClient(), await newClient()];
    const path = recipePath('layout');
    const lock = recipePath('layout-lock');
    await new DistributedAtomicLong(zk, path).forceSet(7);
    let seen: string[] = [];
    // The optimistic rounds lose; the first write under the lock (a node on the lock path) goes
    // through untouched.
    const losing = losingSetData(zk, other, () => {});
    const through = (async (p: string, data: Uint8Array, version?: number) => {
      seen = await children(other, lock);
      return seen.length > 0 ? zk.setData(p, data, version) : losing(p, data, version);
    }) as Client['setData'];
    const counter = new DistributedAtomicLong(withSetData(zk, through), path, {
      retry: { maxAttempts: 2, baseDelay: 1 },
      promotedToLock: { path: lock },
    });
    const result = await counter.increment();
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(CURATOR_MUTEX_NODE);
    expect(result).toMatchObject({ succeeded: true, preValue: 7n, postValue: 8n });
    expect(result.stats).toMatchObject({ optimisticTries: 2, promotedLockTries: 1 });
    expect(await counter.get()).toBe(8n);
    expect(await children(zk, lock)).toEqual([]);
  });

  it('resolves succeeded: false with nothing changed when the lock is not obtained in time', async () => {
    const [zk, other, holder] = [await newClient(), await newClient(), await newClient()];
    const path = recipePath('timeout');
    const lock = recipePath('timeout-lock');
    await new DistributedAtomicLong(zk, path).forceSet(5);
    const held = await new Mutex(holder, lock).acquire();
    const counter = new DistributedAtomicLong(
      withSetData(
        zk,
        losingSetData(zk, other, () => {}),
      ),
      path,
      { retry: { maxAttempts: 2, baseDelay: 1 }, promotedToLock: { path: lock, timeout: 300 } },
    );
    const started = Date.now();
    const result = await counter.increment();
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(result).toMatchObject({ succeeded: false, preValue: 5n, postValue: 5n });
    expect(result.stats).toMatchObject({ optimisticTries: 2, promotedLockTries: 0 });
    expect(await counter.get()).toBe(5n);
    // Only the holder's node: the timed-out contender left none behind.
    expect(await children(zk, lock)).toEqual([held.path.slice(lock.length + 1)]);
    await held.release();
  });

  it("rejects with the caller's reason when its signal aborts the wait for the lock", async () => {
    const [zk, other, holder] = [await newClient(), await newClient(), await newClient()];
    const path = recipePath('abort');
    const lock = recipePath('abort-lock');
    const held = await new Mutex(holder, lock).acquire();
    const stop = new AbortController();
    const counter = new DistributedAtomicLong(
      withSetData(
        zk,
        losingSetData(zk, other, () => {}),
      ),
      path,
      { retry: { maxAttempts: 1, signal: stop.signal }, promotedToLock: { path: lock } },
    );
    await counter.forceSet(1);
    const changing = counter.increment();
    await until(async () => (await children(zk, lock)).length === 2, 'our contender node');
    const reason = new Error('stop');
    stop.abort(reason);
    await expect(changing).rejects.toBe(reason);
    await until(async () => (await children(zk, lock)).length === 1, 'our node to go');
    // (The counter's own signal is aborted for good: read through another one.)
    expect(await new DistributedAtomicLong(zk, path).get()).toBe(1n);
    await held.release();
  });

  it('writes nothing more and resolves succeeded: false when the link drops under the lock; the lock is released', async () => {
    const { client, proxy, peer: other, path } = await cutAndPeer('cut');
    const lock = recipePath('cut-lock');
    await new DistributedAtomicLong(other, path).forceSet(3);
    let writes = 0;
    let cutAt = 0;
    const setData = losingSetData(client, other, (n) => {
      writes = n;
    });
    // After the first (lost) round under the lock, cut the link during the pause that follows.
    const cutting = (async (p: string, data: Uint8Array, version?: number) => {
      try {
        return await setData(p, data, version);
      } finally {
        if (writes === 2) {
          setTimeout(() => {
            cutAt = Date.now();
            proxy.cut();
          }, 50);
        }
      }
    }) as Client['setData'];
    const counter = new DistributedAtomicLong(withSetData(client, cutting), path, {
      retry: { maxAttempts: 1 },
      promotedToLock: {
        path: lock,
        retry: { maxAttempts: 100, baseDelay: 5_000, maxDelay: 5_000, jitter: 'none' },
      },
    });
    const result = await counter.increment();
    // The lost lock ends the 5 s pause at once (then the release waits for the reconnect).
    expect(Date.now() - cutAt).toBeLessThan(3_000);
    expect(result).toMatchObject({ succeeded: false, preValue: 3n, postValue: 3n });
    expect(result.stats).toMatchObject({ optimisticTries: 1, promotedLockTries: 1 });
    expect(writes).toBe(2);
    expect(await counter.get()).toBe(3n);
    await until(async () => (await children(other, lock)).length === 0, 'the lock node to go');
  }, 30_000);

  it('after a session expiry under the lock: succeeded: false, the change ends, and a new change runs on the renewed session', async () => {
    const {
      client,
      proxy,
      peer: other,
      path,
    } = await cutAndPeer('expiry', { sessionTimeout: 4_000 });
    const lock = recipePath('expiry-lock');
    await new DistributedAtomicLong(other, path).forceSet(3);
    let expiring: Promise<void> | undefined;
    let lose = true;
    let writes = 0;
    const setData = losingSetData(client, other, (n) => {
      writes = n;
    });
    // After the first (lost) round under the lock, expire the session during the pause that
    // follows (a write in flight at the expiry would reject the change with SESSIONEXPIRED).
    const maybeLosing = (async (p: string, data: Uint8Array, version?: number) => {
      if (!lose) return client.setData(p, data, version);
      try {
        return await setData(p, data, version);
      } finally {
        if (writes === 2) expiring = expireSession(client, proxy);
      }
    }) as Client['setData'];
    const counter = new DistributedAtomicLong(withSetData(client, maybeLosing), path, {
      retry: { maxAttempts: 1 },
      promotedToLock: { path: lock, retry: { maxAttempts: 100, baseDelay: 1_000, jitter: 'none' } },
    });
    const oldSession = client.sessionId;
    const result = await counter.increment();
    expect(result).toMatchObject({ succeeded: false, preValue: 3n, postValue: 3n });
    await expiring;
    expect(client.sessionId).not.toBe(oldSession);
    // The old session's lock node went with it.
    expect(await children(other, lock)).toEqual([]);
    lose = false;
    expect(await counter.increment()).toMatchObject({ succeeded: true, postValue: 4n });
  }, 60_000);

  it('refuses a bad promotion at construction', async () => {
    const zk = await newClient();
    const path = recipePath('bad');
    expect(() => new DistributedAtomicLong(zk, path, { promotedToLock: { path } })).toThrow(
      expect.objectContaining({ code: 'BADARGUMENTS' }),
    );
    expect(
      () =>
        new DistributedAtomicLong(zk, path, { promotedToLock: { path: `${path}-l`, timeout: -1 } }),
    ).toThrow(expect.objectContaining({ code: 'BADARGUMENTS' }));
    expect(
      () =>
        new DistributedAtomicLong(zk, path, {
          promotedToLock: { path: `${path}-l`, retry: { maxAttempts: 0 } },
        }),
    ).toThrow(expect.objectContaining({ code: 'BADARGUMENTS' }));
    const narrow = {
      create2: zk.create2.bind(zk),
      delete: zk.delete.bind(zk),
      getChildren: zk.getChildren.bind(zk),
      getData: zk.getData.bind(zk),
      setData: zk.setData.bind(zk),
    };
    // A client without the lock's calls (typed as one only through a cast) is refused at once.
    const options = { promotedToLock: { path: `${path}-l` } };
    expect(() => new DistributedAtomicLong(narrow as unknown as Client, path, options)).toThrow(
      expect.objectContaining({ code: 'BADARGUMENTS' }),
    );
  });
});
