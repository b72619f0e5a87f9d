// Mutex on the real server: exclusion, fairness, timeouts, waiters whose node goes, and no herd
// (each lock node is watched by at most one waiter, and a release wakes one waiter).
import { describe, expect, it } from 'vitest';
import { CreateMode } from '../../../src/index.js';
import type { Lease } from '../../../src/locks/index.js';
import { LeaseReleasedError, LockTimeoutError, Mutex } from '../../../src/locks/index.js';
import { afterRoundTrips, whenIdle } from '../../support/request-log.js';
import {
  childrenOf,
  instrument,
  lockPath,
  newClient,
  newClients,
  sleep,
  takeTurns,
  until,
  untilChildren,
  watchesWhen,
} from './helpers.js';

describe('Mutex', () => {
  it('excludes across sessions: a shared counter never sees two holders', async () => {
    const clients = await newClients(4);
    const path = lockPath();
    let total = 0;
    const { maxInside, tokens } = await takeTurns(
      clients,
      6,
      (zk) => new Mutex(zk, path),
      async () => {
        const seen = total;
        await sleep(2);
        total = seen + 1; // a lost update if anyone else were inside
      },
    );
    expect(maxInside).toBe(1);
    expect(total).toBe(24);
    // Fencing tokens: strictly increasing in the order the lock was held.
    for (let i = 1; i < tokens.length; i++) expect(tokens[i]! > tokens[i - 1]!).toBe(true);
    expect(await childrenOf(clients[0]!, path)).toEqual([]);
  });

  it('is fair: waiters get the lock in arrival order', async () => {
    const [holderZk, ...zks] = await newClients(6);
    const path = lockPath();
    const holder = await new Mutex(holderZk!, path).acquire();
    const order: number[] = [];
    const done: Promise<void>[] = [];
    for (const [i, zk] of zks.entries()) {
      done.push(
        new Mutex(zk, path).acquire({ timeout: 20_000 }).then(async (lease) => {
          order.push(i);
          await sleep(5);
          await lease.release();
        }),
      );
      // Let this waiter's node exist before the next one queues.
      await untilChildren(holderZk!, path, i + 2, `waiter ${i} queued`);
    }
    await holder.release();
    await Promise.all(done);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(await childrenOf(holderZk!, path)).toEqual([]);
  });

  it('times out with a LockTimeoutError and leaves no node', async () => {
    const [a, b] = await newClients(2);
    const path = lockPath();
    const held = await new Mutex(a!, path).acquire();
    const started = Date.now();
    const error = await new Mutex(b!, path).acquire({ timeout: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockTimeoutError);
    expect((error as LockTimeoutError).code).toBe('TIMEOUT');
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    // Rejected on time; the cleanup follows in the background.
    await untilChildren(a!, path, 1, 'the waiter node removed');
    expect(await childrenOf(a!, path)).toEqual([held.path.slice(path.length + 1)]);
    await held.release();
    expect(await childrenOf(a!, path)).toEqual([]);
  });

  it('rejects with the abort reason and leaves no node', async () => {
    const [a, b] = await newClients(2);
    const path = lockPath();
    const held = await new Mutex(a!, path).acquire();
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    const pending = new Mutex(b!, path).acquire({ signal: controller.signal });
    await untilChildren(a!, path, 2, 'waiter queued');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await untilChildren(a!, path, 1, 'the waiter node removed');
    await held.release();
  });

  it('rejects at once, creating nothing, when the signal is already aborted', async () => {
    const zk = await newClient();
    const path = lockPath();
    const reason = new Error('already');
    await expect(new Mutex(zk, path).acquire({ signal: AbortSignal.abort(reason) })).rejects.toBe(
      reason,
    );
    expect(await zk.exists(path)).toBeNull();
  });

  it('refuses a bad timeout', async () => {
    const zk = await newClient();
    await expect(new Mutex(zk, lockPath()).acquire({ timeout: -1 })).rejects.toMatchObject({
      code: 'BADARGUMENTS',
    });
  });

  it('tryAcquire takes a free lock and returns null, leaving nothing, when held', async () => {
    const [a, b] = await newClients(2);
    const path = lockPath();
    const lease = await new Mutex(a!, path).tryAcquire();
    expect(lease).not.toBeNull();
    expect(await new Mutex(b!, path).tryAcquire()).toBeNull();
    expect(await childrenOf(a!, path)).toHaveLength(1);
    await lease!.release();
    const next = await new Mutex(b!, path).tryAcquire();
    expect(next).not.toBeNull();
    await next!.release();
  });

  it('release is idempotent and aborts the lease signal', async () => {
    const zk = await newClient();
    const path = lockPath();
    const lease = await new Mutex(zk, path).acquire();
    expect(lease.signal.aborted).toBe(false);
    const first = lease.release();
    expect(lease.release()).toBe(first);
    await first;
    await lease.release();
    expect(lease.released).toBe(true);
    expect(lease.signal.reason).toBeInstanceOf(LeaseReleasedError);
    expect(await childrenOf(zk, path)).toEqual([]);
  });

  it('fencing tokens increase across successive holders on different sessions', async () => {
    const clients = await newClients(3);
    const path = lockPath();
    const tokens: bigint[] = [];
    for (let round = 0; round < 2; round++) {
      for (const zk of clients) {
        const lease = await new Mutex(zk, path).acquire();
        tokens.push(lease.fencingToken);
        const { stat } = await zk.getData(lease.path);
        expect(lease.fencingToken).toBe(stat.czxid);
        await lease.release();
      }
    }
    for (let i = 1; i < tokens.length; i++) expect(tokens[i]! > tokens[i - 1]!).toBe(true);
  });

  it('reenters only with a live lease of the same lock', async () => {
    const [a, b] = await newClients(2);
    const path = lockPath();
    const mutex = new Mutex(a!, path);
    const outer = await mutex.acquire();
    const inner = await mutex.acquire({ reentrantFrom: outer });
    expect(inner.path).toBe(outer.path);
    expect(inner.fencingToken).toBe(outer.fencingToken);
    // Another Mutex object on the same client and path is the same lock.
    const third = await new Mutex(a!, path).tryAcquire({ reentrantFrom: inner });
    expect(third?.path).toBe(outer.path);
    await third!.release();
    await inner.release();
    expect(await a!.exists(outer.path)).not.toBeNull();
    expect(outer.signal.aborted).toBe(false);

    // Not proof of holding: another client's mutex, another path, a fake, a released lease.
    await expect(new Mutex(b!, path).acquire({ reentrantFrom: outer })).rejects.toMatchObject({
      code: 'BADARGUMENTS',
    });
    await expect(
      new Mutex(a!, `${path}-other`).acquire({ reentrantFrom: outer }),
    ).rejects.toMatchObject({
      code: 'BADARGUMENTS',
    });
    await expect(
      new Mutex(a!, path, { naming: 'kazoo' }).acquire({ reentrantFrom: outer }),
    ).rejects.toMatchObject({
      code: 'BADARGUMENTS',
    });
    const fake = { ...outer } as Lease;
    await expect(mutex.acquire({ reentrantFrom: fake })).rejects.toMatchObject({
      code: 'BADARGUMENTS',
    });
    await expect(mutex.acquire({ reentrantFrom: inner })).rejects.toMatchObject({
      code: 'BADARGUMENTS',
    });

    await outer.release();
    expect(await childrenOf(a!, path)).toEqual([]);
    await expect(mutex.acquire({ reentrantFrom: outer })).rejects.toMatchObject({
      code: 'BADARGUMENTS',
    });
  });

  it('a waiter whose node someone else deleted queues again instead of holding a missing node', async () => {
    const [a, b] = await newClients(2);
    const path = lockPath();
    const first = await new Mutex(a!, path).acquire();
    const waiting = new Mutex(b!, path).acquire({ timeout: 10_000 });
    // The waiter's node is the only child besides the holder's; the holder was the only one
    // ahead of it, so only a fresh listing can tell that the waiter's own node is gone.
    await untilChildren(a!, path, 2, 'the waiter node');
    const [waiterNode] = (await childrenOf(a!, path)).filter((n) => !first.path.endsWith(n));
    await a!.delete(`${path}/${waiterNode}`);
    await first.release();
    const second = await waiting;
    expect(second.path).not.toBe(`${path}/${waiterNode}`);
    expect(await b!.exists(second.path)).not.toBeNull();
    await second.release();
  });

  it('ignores children that are not contenders', async () => {
    const [a, b] = await newClients(2);
    const path = lockPath();
    await a!.create2(path.slice(0, path.lastIndexOf('/')));
    await a!.create2(path);
    for (const junk of [
      'readme',
      'lock-notanumber',
      '_c_x-lease-0000000001',
      'zz__lock__notanumber', // a kazoo-style name counts (see naming-mix), but not without a sequence
    ]) {
      await a!.create2(`${path}/${junk}`);
    }
    const first = await new Mutex(a!, path).acquire();
    expect(await new Mutex(b!, path).tryAcquire()).toBeNull();
    const { value: waiting } = await whenIdle(b!, () =>
      new Mutex(b!, path).acquire({ timeout: 10_000 }),
    );
    await first.release();
    const second = await waiting;
    await second.release();
    expect(await childrenOf(a!, path)).toHaveLength(4);
  });

  it('names nodes as Curator or kazoo do', async () => {
    const zk = await newClient();
    const path = lockPath();
    const curator = await new Mutex(zk, path).acquire();
    expect(curator.path.slice(path.length + 1)).toMatch(
      /^_c_[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}-lock-\d{10}$/,
    );
    await curator.release();
    const kazoo = await new Mutex(zk, `${path}-k`, { naming: 'kazoo', data: 'worker-7' }).acquire();
    expect(kazoo.path.slice(path.length + 3)).toMatch(/^[0-9a-f]{32}__lock__\d{10}$/);
    expect(new TextDecoder().decode((await zk.getData(kazoo.path)).data)).toBe('worker-7');
    await kazoo.release();
  });

  it('creates missing parents as containers', async () => {
    const zk = await newClient();
    const root = lockPath('deep');
    const path = `${root}/er/lock`;
    const modes = new Map<string, number | undefined>();
    const { client } = instrument(zk, {
      create2: (p, data, options) => {
        modes.set(p, options?.mode);
        return zk.create2(p, data, options);
      },
    });
    const lease = await new Mutex(client, path).acquire();
    // Servers report ephemeralOwner 0 for containers, so the modes asked for are what we can check.
    for (const parent of [root.slice(0, root.lastIndexOf('/')), root, `${root}/er`, path]) {
      expect(modes.get(parent), parent).toBe(CreateMode.CONTAINER);
    }
    expect(modes.get(`${path}/${lease.path.slice(path.length + 1).replace(/\d{10}$/, '')}`)).toBe(
      CreateMode.EPHEMERAL_SEQUENTIAL,
    );
    await lease.release();
  });
});

const WAITERS = 15;

describe('Mutex herd-freedom', () => {
  it(`with ${WAITERS} waiters, every node has at most one foreign watcher and one release wakes one waiter`, async () => {
    const holderZk = await newClient();
    const zks = await newClients(WAITERS);
    const path = lockPath();
    const holder = await new Mutex(holderZk, path).acquire();
    const waiters = zks.map((zk) => ({ zk, ...instrument(zk) }));
    const acquired: (Lease | undefined)[] = [];
    const done = waiters.map(async (w, i) => {
      // Queue strictly one after the other, so waiter i's node is the (i+1)-th in line.
      await untilChildren(holderZk, path, i + 1, `waiter ${i - 1} queued`);
      const lease = await new Mutex(w.client, path).acquire({ timeout: 30_000 });
      acquired[i] = lease;
      return lease;
    });
    await untilChildren(holderZk, path, WAITERS + 1, 'all waiters queued');

    // Who watches what, from the server itself.
    const nodes = [holder.path];
    const owners = new Map<string, bigint>([[holder.path, holderZk.sessionId]]);
    const byOwner = new Map<bigint, string>();
    for (const name of await childrenOf(holderZk, path)) {
      const node = `${path}/${name}`;
      const owner = (await holderZk.exists(node))!.ephemeralOwner;
      owners.set(node, owner);
      byOwner.set(owner, node);
    }
    for (const w of waiters) nodes.push(byOwner.get(w.zk.sessionId)!);
    const watches = await watchesWhen(
      path,
      (found) => [...found.values()].flat().length === WAITERS, // the holder never read its signal
      'every waiter watching',
    );
    // Nobody watches the children of the lock path (wchp lists data watches only: count the calls).
    expect(waiters.map((w) => w.calls.childWatches ?? 0)).toEqual(Array(WAITERS).fill(0));
    for (const [node, sessions] of watches) {
      const foreign = sessions.filter((s) => s !== owners.get(node));
      expect(foreign.length, node).toBeLessThanOrEqual(1);
    }
    // Precisely: each node is watched by the waiter right behind it.
    for (let i = 0; i < WAITERS; i++) {
      expect(
        watches.get(nodes[i]!)?.filter((s) => s !== owners.get(nodes[i]!)),
        `node ${i}`,
      ).toEqual([waiters[i]!.zk.sessionId]);
    }
    expect(watches.get(nodes[WAITERS]!)).toBeUndefined();

    // One release wakes exactly one waiter.
    for (const w of waiters) {
      w.calls.getChildren = 0;
      w.wakes.count = 0;
    }
    await holder.release();
    await until(() => acquired[0] !== undefined, 'first waiter holds');
    // Any wrongly woken waiter has heard its event and listed by then.
    await afterRoundTrips(
      waiters.map((w) => w.zk),
      path,
    );
    expect(waiters.map((w) => w.wakes.count)).toEqual([1, ...Array(WAITERS - 1).fill(0)]);
    expect(waiters.map((w) => w.calls.getChildren ?? 0)).toEqual([
      1,
      ...Array(WAITERS - 1).fill(0),
    ]);

    // Drain the queue in order.
    for (let i = 0; i < WAITERS; i++) {
      const lease = await done[i]!;
      await lease.release();
    }
    expect(await childrenOf(holderZk, path)).toEqual([]);
  });
});
