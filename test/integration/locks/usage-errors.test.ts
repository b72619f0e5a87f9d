// Mistakes a new user makes with the recipes, answered in their own words: a path that is not a
// path (refused at construction, naming the path typed), a second acquire() on a Mutex the same
// object holds (its timeout says how to re-enter), and a lock that is not free.
import { describe, expect, it } from 'vitest';
import {
  ExclusiveLock,
  LeaderLatch,
  LeaderSelector,
  LockTimeoutError,
  Mutex,
  ReadWriteLock,
  Semaphore,
} from '../../../src/locks/index.js';
import { lockPath, newClient } from './helpers.js';

describe('lock recipes refuse a bad path at construction', () => {
  it('names the path the user typed and why, for every recipe', async () => {
    const zk = await newClient();
    const make: [string, (path: string) => unknown][] = [
      ['Mutex', (p) => new Mutex(zk, p)],
      ['ReadWriteLock', (p) => new ReadWriteLock(zk, p)],
      ['Semaphore', (p) => new Semaphore(zk, p, { maxLeases: 2 })],
      ['ExclusiveLock', (p) => new ExclusiveLock(zk, p)],
      ['LeaderLatch', (p) => new LeaderLatch(zk, p)],
      ['LeaderSelector', (p) => new LeaderSelector(zk, p, { task: async () => {} })],
    ];
    for (const [recipe, construct] of make) {
      expect(() => construct('rel/lock'), recipe).toThrow(
        `${recipe}: invalid path "rel/lock": must start with / character`,
      );
      expect(() => construct('/x/'), recipe).toThrow(
        `${recipe}: invalid path "/x/": must not end with / character`,
      );
      try {
        construct('rel/lock');
      } catch (error) {
        expect(error).toMatchObject({ code: 'BADARGUMENTS', path: 'rel/lock' });
      }
    }
  });
});

describe('a second acquire() on a Mutex its own object holds', () => {
  it('times out (two tasks may share one object) with words that point to reentrantFrom', async () => {
    const zk = await newClient();
    const path = lockPath();
    const mutex = new Mutex(zk, path);
    const lease = await mutex.acquire({ timeout: 5_000 });
    const error = await mutex.acquire({ timeout: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockTimeoutError);
    expect((error as LockTimeoutError).code).toBe('TIMEOUT');
    expect((error as Error).message).toBe(
      `timed out after 300 ms waiting for the lock ${path}, which this Mutex object already holds ` +
        `(its lease ${lease.path} is not released): to re-enter from the code that holds it, ` +
        'pass acquire({ reentrantFrom: lease })',
    );
    // And the way it points to works.
    const inner = await mutex.acquire({ reentrantFrom: lease });
    await inner.release();
    await lease.release();
  });

  it('another object on the same path is a contender like any other: the plain words', async () => {
    const zk = await newClient();
    const path = lockPath();
    const lease = await new Mutex(zk, path).acquire({ timeout: 5_000 });
    const error = await new Mutex(zk, path).acquire({ timeout: 300 }).catch((e: unknown) => e);
    expect((error as Error).message).toBe(`timed out after 300 ms waiting for the lock ${path}`);
    await lease.release();
  });

  it('after the release, the same object acquires at once and a later timeout has the plain words', async () => {
    const zk = await newClient();
    const other = await newClient();
    const path = lockPath();
    const mutex = new Mutex(zk, path);
    await (await mutex.acquire({ timeout: 5_000 })).release();
    const held = await new Mutex(other, path).acquire({ timeout: 5_000 });
    const error = await mutex.acquire({ timeout: 300 }).catch((e: unknown) => e);
    expect((error as Error).message).toBe(`timed out after 300 ms waiting for the lock ${path}`);
    await held.release();
  });
});

describe('a lock that is not free', () => {
  it('timeout 0 says the lock is not available now instead of "timed out after 0 ms"', async () => {
    const zk = await newClient();
    const path = lockPath();
    const lease = await new Mutex(zk, path).acquire();
    const error = await new Mutex(zk, path).acquire({ timeout: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockTimeoutError);
    expect((error as Error).message).toBe(
      `the lock ${path} is not available now (timeout 0 does not wait)`,
    );
    await lease.release();
  });

  it('a full semaphore names its leases', async () => {
    const zk = await newClient();
    const path = lockPath();
    const semaphore = new Semaphore(zk, path, { maxLeases: 1 });
    const lease = await semaphore.acquire();
    const error = await new Semaphore(zk, path, { maxLeases: 1 })
      .acquire({ timeout: 300 })
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      `timed out after 300 ms waiting for one of the 1 leases of the semaphore ${path}`,
    );
    await lease.release();
  });
});
