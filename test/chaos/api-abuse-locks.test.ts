// The lock recipes fed wrong input and leases misused, against the shared real server: every
// refusal is a typed ZooKeeperError, no lock node is left behind, the abusing client's connection
// never drops and a bystander client sees nothing (test/chaos/abuse-world.ts).
import { beforeAll, describe, expect, it } from 'vitest';
import { type Client, CreateMode } from '../../src/index.js';
import {
  ExclusiveLock,
  type Lease,
  Mutex,
  ReadWriteLock,
  Semaphore,
} from '../../src/locks/index.js';
import { abuseWorld, type Loose, label, refused } from './abuse-world.js';

const world = abuseWorld('abuse-locks');
const { root, made } = world;
const open = world.open;
let zk: Client;
beforeAll(() => {
  zk = world.zk;
});

describe('lock recipes fed wrong input', () => {
  it('refuse a lock path that is not a path (typed, nothing created)', async () => {
    const c = zk as Loose;
    for (const path of [
      42,
      null,
      undefined,
      {},
      'relative',
      `${root}/trailing/`,
      `${root}//double`,
    ] as Loose[]) {
      const what = label(path);
      await refused(
        () => new Mutex(c, path).acquire({ timeout: 2_000 }),
        'BADARGUMENTS',
        `Mutex(${what})`,
      );
      await refused(
        () => new Mutex(c, path).tryAcquire(),
        'BADARGUMENTS',
        `Mutex(${what}).tryAcquire`,
      );
      await refused(
        () => new ReadWriteLock(c, path).read.acquire({ timeout: 2_000 }),
        'BADARGUMENTS',
        `read(${what})`,
      );
      await refused(
        () => new ReadWriteLock(c, path).write.acquire({ timeout: 2_000 }),
        'BADARGUMENTS',
        `write(${what})`,
      );
      await refused(
        () => new Semaphore(c, path, { maxLeases: 2 }).acquire({ timeout: 2_000 }),
        'BADARGUMENTS',
        `Semaphore(${what})`,
      );
      await refused(
        () => new ExclusiveLock(c, path).acquire({ timeout: 2_000 }),
        'BADARGUMENTS',
        `ExclusiveLock(${what})`,
      );
    }
    expect((await zk.getChildren(root)).sort()).toEqual(
      [...made].map((p) => p.slice(root.length + 1)).sort(),
    );
  });

  it('refuse bad counts, options, timeouts and signals', async () => {
    const c = zk as Loose;
    const path = `${root}/opts`;
    for (const max of [0, -1, 1.5, '2', Number.NaN, 2 ** 31, null] as Loose[]) {
      await refused(
        () => new Semaphore(c, path, { maxLeases: max }),
        'BADARGUMENTS',
        `maxLeases ${label(max)}`,
      );
    }
    await refused(() => new Mutex(c, path, { naming: 'bogus' } as Loose), 'BADARGUMENTS', 'naming');
    for (const timeout of [-1, Number.NaN, Number.POSITIVE_INFINITY, '5', {}] as Loose[]) {
      await refused(
        () => new Mutex(c, path).acquire({ timeout }),
        'BADARGUMENTS',
        `timeout ${label(timeout)}`,
      );
      await refused(
        () => new Semaphore(c, path, { maxLeases: 2 }).acquire({ timeout }),
        'BADARGUMENTS',
        `sem timeout ${label(timeout)}`,
      );
    }
    for (const signal of ['x', {}, 42] as Loose[]) {
      await refused(
        () => new Mutex(c, path).acquire({ signal }),
        'BADARGUMENTS',
        `signal ${label(signal)}`,
      );
    }
    const aborted = AbortSignal.abort(new Error('caller gave up'));
    await expect(new Mutex(zk, path).acquire({ signal: aborted })).rejects.toBe(aborted.reason);
    await expect(
      new Semaphore(zk, path, { maxLeases: 2 }).acquire({ signal: aborted }),
    ).rejects.toBe(aborted.reason);
    await refused(() => zk.getChildren(path), 'NONODE', 'nothing created');
  });

  it('fail typed, at once and without leftovers on a path that cannot hold contenders', async () => {
    const ephemeral = `${root}/ephemeral`;
    await zk.create(ephemeral, '', { mode: CreateMode.EPHEMERAL });
    made.add(ephemeral);
    const readOnly = `${root}/read-only`;
    await zk.create(readOnly, '', { acl: [{ perms: 1, id: { scheme: 'world', id: 'anyone' } }] });
    made.add(readOnly);
    for (const [path, code] of [
      [ephemeral, 'NOCHILDRENFOREPHEMERALS'],
      [`${ephemeral}/below`, 'NOCHILDRENFOREPHEMERALS'],
      [readOnly, 'NOAUTH'],
      [`${readOnly}/below`, 'NOAUTH'],
    ] as const) {
      await refused(
        () => new Mutex(zk, path).acquire({ timeout: 5_000 }),
        code,
        `Mutex on ${path}`,
      );
      await refused(
        () => new ReadWriteLock(zk, path).write.acquire({ timeout: 5_000 }),
        code,
        `write on ${path}`,
      );
      await refused(
        () => new Semaphore(zk, path, { maxLeases: 2 }).acquire({ timeout: 5_000 }),
        code,
        `Semaphore on ${path}`,
      );
    }
    expect(await zk.getChildren(readOnly)).toEqual([]);
  });
});

describe('leases misused', () => {
  it('double release: one promise, the node goes once, the next holder is unaffected', async () => {
    const other = await open();
    const path = `${root}/double`;
    const lease = await new Mutex(zk, path).acquire();
    const next = new Mutex(other, path).acquire({ timeout: 10_000 });
    const first = lease.release();
    expect(lease.release()).toBe(first);
    await first;
    const nextLease = await next;
    await lease.release();
    await lease[Symbol.asyncDispose]();
    expect(nextLease.signal.aborted).toBe(false);
    expect(await zk.exists(nextLease.path)).not.toBeNull();
    await nextLease.release();
    expect(await zk.getChildren(path)).toEqual([]);
  });

  it("a stale lease's release never touches another session's node", async () => {
    const [a, b] = [await open(), await open()];
    const path = `${root}/stale`;
    // Lost by deletion: someone else removed the node; another session holds the lock now.
    const stale = await new Mutex(a, path).acquire();
    await b.delete(stale.path);
    await expect.poll(() => stale.signal.aborted).toBe(true);
    const holder = await new Mutex(b, path).acquire({ timeout: 10_000 });
    await stale.release();
    expect(holder.signal.aborted).toBe(false);
    expect(await zk.exists(holder.path)).not.toBeNull();
    // Lost with its session: the client was closed; another session holds the lock now.
    await holder.release();
    const closedLease = await new Mutex(a, path).acquire();
    await a.close();
    const second = await new Mutex(b, path).acquire({ timeout: 10_000 });
    await closedLease.release();
    expect(closedLease.signal.aborted).toBe(true);
    expect(second.signal.aborted).toBe(false);
    expect(await zk.exists(second.path)).not.toBeNull();
    await second.release();
  });

  it("reentry with another session's lease, or a lease of another lock, is refused", async () => {
    const other = await open();
    const path = `${root}/reenter`;
    const lease = await new Mutex(zk, path).acquire();
    await refused(
      () => new Mutex(other, path).acquire({ reentrantFrom: lease }),
      'BADARGUMENTS',
      'other client',
    );
    await refused(
      () => new Mutex(zk, `${root}/elsewhere`).acquire({ reentrantFrom: lease }),
      'BADARGUMENTS',
      'other path',
    );
    await refused(
      () => new ReadWriteLock(zk, path).read.acquire({ reentrantFrom: lease }),
      'BADARGUMENTS',
      'other kind',
    );
    const forged = {
      path: lease.path,
      fencingToken: lease.fencingToken,
      signal: lease.signal,
    } as Loose as Lease;
    await refused(
      () => new Mutex(zk, path).acquire({ reentrantFrom: forged }),
      'BADARGUMENTS',
      'forged lease',
    );
    await refused(
      () => new Mutex(zk, path).tryAcquire({ reentrantFrom: {} as Loose }),
      'BADARGUMENTS',
      'empty object',
    );
    expect(lease.signal.aborted).toBe(false);
    expect(await zk.getChildren(path)).toEqual([lease.path.slice(path.length + 1)]);
    await lease.release();
    await refused(
      () => new Mutex(zk, path).acquire({ reentrantFrom: lease }),
      'BADARGUMENTS',
      'released lease',
    );
  });
});

describe('after all of it', () => {
  it('the server holds exactly what valid calls made, and nobody else noticed', async () => {
    await world.expectUntouched(['double', 'stale', 'reenter'].map((name) => `${root}/${name}`));
  });
});
