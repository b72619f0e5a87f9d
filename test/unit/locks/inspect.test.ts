// inspectLock against the scripted client (scripted-client.ts): the layouts the recipes leave in
// the tree, read back as holders and waiters in grant order. Real-server and Curator/kazoo
// layouts: test/integration/locks/inspect.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { CreateMode } from '../../../src/index.js';
import {
  ExclusiveLock,
  inspectLock,
  KAZOO_READ_NAME,
  LeaderLatch,
  type Lease,
  Mutex,
  ReadWriteLock,
  Semaphore,
} from '../../../src/locks/index.js';
import { type ScriptedClient, ScriptedServer, scriptedSessions } from './scripted-client.js';

const pendings: Promise<unknown>[] = [];
afterEach(async () => {
  // A failed test leaves its waiters waiting: give them a moment, no more.
  await Promise.race([
    Promise.allSettled(pendings.splice(0)),
    new Promise((r) => setTimeout(r, 50)),
  ]);
});

/** An acquire the test settles later (a failing test must not leave an unhandled rejection). */
function pending<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  pendings.push(promise);
  return promise;
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 1));
  expect(check()).toBe(true);
}

/** One line per contender: state, kind, naming, owner (hex) and what a waiter waits for. */
const summary = async (client: ScriptedClient, path: string, options = {}) => {
  const view = await inspectLock(client, path, options);
  return {
    holders: view.holders,
    waiting: view.waiting,
    lines: view.contenders.map(
      (c) =>
        `${c.state} ${c.kind} ${c.naming ?? '-'} ${c.owner.toString(16)}${c.waitsFor ? ` -> ${c.waitsFor}` : ''}`,
    ),
  };
};

/** The child of `dir` whose name contains `part`. */
function childNamed(server: ScriptedServer, dir: string, part: string): string {
  const name = server.children(dir).find((n) => n.includes(part));
  if (!name) throw new Error(`no child of ${dir} with ${part}: ${server.children(dir).join(',')}`);
  return name;
}

describe('inspectLock (scripted client)', () => {
  it('a mutex: the holder first, with its token, data and path, then the waiters in line', async () => {
    const [server, a, b, c] = scriptedSessions(3);
    const held = await new Mutex(a, '/m', { data: 'holder-a' }).acquire();
    const second = pending(new Mutex(b, '/m').acquire());
    await until(() => server.children('/m').length === 2);
    const third = pending(new Mutex(c, '/m', { naming: 'kazoo' }).acquire());
    await until(() => server.children('/m').length === 3);

    const view = await inspectLock(a, '/m');
    expect(view.path).toBe('/m');
    expect(view.holders).toBe(1);
    expect(view.waiting).toBe(2);
    const [holder, waiter, kazoo] = view.contenders;
    expect(holder!.state).toBe('holder');
    expect(holder!.path).toBe(held.path);
    expect(holder!.name).toBe(held.path.slice('/m/'.length));
    expect(holder!.fencingToken).toBe(held.fencingToken);
    expect(new TextDecoder().decode(holder!.data)).toBe('holder-a');
    expect(holder!.owner).toBe(a.sessionId);
    expect(holder!.sequence).toBe(0);
    expect(holder!.waitsFor).toBeUndefined();
    expect(holder!.created).toBe(0);
    expect(holder!.age).toBeGreaterThan(0);
    expect(waiter!.state).toBe('waiting');
    expect(waiter!.waitsFor).toBe(holder!.name);
    expect(waiter!.sequence).toBe(1);
    expect(kazoo!.naming).toBe('kazoo');
    expect(kazoo!.waitsFor).toBe(waiter!.name);

    await held.release();
    const next = await second;
    await next.release();
    await (await third).release();
    expect(await summary(a, '/m')).toEqual({ holders: 0, waiting: 0, lines: [] });
  });

  it('a read-write lock: readers hold together, a writer waits for them, a reader behind the writer waits for it', async () => {
    const [server, a, b, c, d] = scriptedSessions(4);
    const r1 = await new ReadWriteLock(a, '/rw').read.acquire();
    const r2 = await new ReadWriteLock(b, '/rw').read.acquire();
    const w = pending(new ReadWriteLock(c, '/rw').write.acquire());
    await until(() => server.children('/rw').length === 3);
    const r3 = pending(new ReadWriteLock(d, '/rw').read.acquire());
    await until(() => server.children('/rw').length === 4);

    const writer = childNamed(server, '/rw', '__WRIT__');
    const readers = server.children('/rw').filter((n) => n.includes('__READ__'));
    const view = await summary(a, '/rw');
    expect(view).toEqual({
      holders: 2,
      waiting: 2,
      lines: [
        `holder read curator ${a.sessionId.toString(16)}`,
        `holder read curator ${b.sessionId.toString(16)}`,
        `waiting write curator ${c.sessionId.toString(16)} -> ${readers.find((n) => n.endsWith('0000000001'))}`,
        `waiting read curator ${d.sessionId.toString(16)} -> ${writer}`,
      ],
    });
    await r1.release();
    await r2.release();
    await (await w).release();
    await (await r3).release();
  });

  it("kazoo's read lock name counts as a reader, its lock name as a writer", async () => {
    const [, a] = scriptedSessions(1);
    await a.create2('/k', undefined, { mode: CreateMode.PERSISTENT });
    await a.create2(`/k/aaaa${KAZOO_READ_NAME}`, 'r', { mode: CreateMode.EPHEMERAL_SEQUENTIAL });
    await a.create2('/k/bbbb__lock__', 'w', { mode: CreateMode.EPHEMERAL_SEQUENTIAL });
    await a.create2(`/k/cccc${KAZOO_READ_NAME}`, 'r', { mode: CreateMode.EPHEMERAL_SEQUENTIAL });
    const view = await summary(a, '/k');
    const owner = a.sessionId.toString(16);
    expect(view.lines).toEqual([
      `holder read kazoo ${owner}`,
      `waiting mutex kazoo ${owner} -> aaaa${KAZOO_READ_NAME}0000000000`,
      `waiting read kazoo ${owner} -> bbbb__lock__0000000001`,
    ]);
  });

  it("Curator's and kazoo's names form one queue by default, two with namingQueues: 'separate'", async () => {
    const [, a] = scriptedSessions(1);
    await a.create2('/mix', undefined, { mode: CreateMode.PERSISTENT });
    await a.create2('/mix/_c_x-lock-', undefined, { mode: CreateMode.EPHEMERAL_SEQUENTIAL });
    await a.create2('/mix/ffff__lock__', undefined, { mode: CreateMode.EPHEMERAL_SEQUENTIAL });
    await a.create2('/mix/_c_y-lock-', undefined, { mode: CreateMode.EPHEMERAL_SEQUENTIAL });
    await a.create2('/mix/unrelated', undefined, { mode: CreateMode.PERSISTENT });
    const shared = await summary(a, '/mix');
    expect(shared.holders).toBe(1);
    expect(shared.waiting).toBe(2);
    const separate = await summary(a, '/mix', { namingQueues: 'separate' });
    expect(separate.holders).toBe(2);
    expect(separate.lines).toEqual([
      `holder mutex curator ${a.sessionId.toString(16)}`,
      `holder mutex kazoo ${a.sessionId.toString(16)}`,
      `waiting mutex curator ${a.sessionId.toString(16)} -> _c_x-lock-0000000000`,
    ]);
    expect(await summary(a, '/mix', { namingQueues: 'shared' })).toEqual(shared);
  });

  it('a semaphore: leases hold up to maxLeases, a lease past it and the guard queue wait', async () => {
    const [server, a, b, c, d] = scriptedSessions(4);
    const l1 = await new Semaphore(a, '/s', { maxLeases: 2 }).acquire();
    const l2 = await new Semaphore(b, '/s', { maxLeases: 2 }).acquire();
    // c takes the guard and creates its lease, which waits (three leases, two allowed);
    // d waits on the guard behind c.
    const l3 = pending(new Semaphore(c, '/s', { maxLeases: 2 }).acquire());
    await until(() => server.children('/s/leases').length === 3);
    const l4 = pending(new Semaphore(d, '/s', { maxLeases: 2 }).acquire());
    await until(() => server.children('/s/locks').length === 2);

    const cGuard = childNamed(server, '/s/locks', '-lock-0000000002');
    const view = await summary(a, '/s', { maxLeases: 2 });
    const hex = (s: ScriptedClient) => s.sessionId.toString(16);
    // Past the bound, a lease waits for the lease maxLeases places ahead of it (the oldest here).
    const firstLease = server.children('/s/leases').find((n) => n.endsWith('0000000000'));
    expect(view).toEqual({
      holders: 2,
      waiting: 2,
      lines: [
        `holder lease curator ${hex(a)}`,
        `holder lease curator ${hex(b)}`,
        // c's guard node is dropped: its lease node stands for it.
        `waiting lease curator ${hex(c)} -> ${firstLease}`,
        `waiting lease curator ${hex(d)} -> ${cGuard}`,
      ],
    });
    // Without maxLeases every lease node counts as held.
    const unbounded = await summary(a, '/s');
    expect(unbounded.holders).toBe(3);
    expect(unbounded.waiting).toBe(1);

    await l1.release();
    const third = await l3;
    await l2.release();
    await third.release();
    await (await l4).release();
  });

  it('the head of the guard queue without a lease node yet waits for the leases to change', async () => {
    const [, a] = scriptedSessions(1);
    for (const dir of ['/g', '/g/leases', '/g/locks']) {
      await a.create2(dir, undefined, { mode: CreateMode.PERSISTENT });
    }
    await a.create2('/g/locks/_c_q-lock-', undefined, { mode: CreateMode.EPHEMERAL_SEQUENTIAL });
    expect((await summary(a, '/g')).lines).toEqual([
      `waiting lease curator ${a.sessionId.toString(16)} -> leases`,
    ]);
  });

  it('an exclusive lock is the ephemeral node at the path; a persistent node or / is no lock', async () => {
    const [, a] = scriptedSessions(1);
    const held = await new ExclusiveLock(a, '/ex/one').acquire();
    const view = await inspectLock(a, '/ex/one');
    expect(view.holders).toBe(1);
    expect(view.contenders[0]).toMatchObject({
      name: 'one',
      path: '/ex/one',
      kind: 'exclusive',
      state: 'holder',
      naming: undefined,
      sequence: undefined,
      owner: a.sessionId,
      fencingToken: held.fencingToken,
    });
    await held.release();
    expect((await inspectLock(a, '/ex/one')).contenders).toEqual([]);
    // A persistent node with no children (the lock path's parent container) holds nothing.
    expect((await inspectLock(a, '/ex')).contenders).toEqual([]);
    expect((await inspectLock(a, '/')).contenders).toEqual([]);
    expect((await inspectLock(a, '/missing')).contenders).toEqual([]);
  });

  it('an exclusive node at the top level names / as its folder', async () => {
    const [, a] = scriptedSessions(1);
    const held = await new ExclusiveLock(a, '/top').acquire();
    const [contender] = (await inspectLock(a, '/top')).contenders;
    expect(contender!.path).toBe('/top');
    expect(contender!.name).toBe('top');
    await held.release();
  });

  it('a leader latch: the leader holds, the other candidates wait in line', async () => {
    const [server, a, b] = scriptedSessions(2);
    const first = new LeaderLatch(a, '/el', { id: 'a' });
    const second = new LeaderLatch(b, '/el', { id: 'b' });
    first.start();
    await first.leadership();
    second.start();
    await until(() => server.children('/el').length === 2);
    const view = await summary(a, '/el');
    expect(view.holders).toBe(1);
    expect(view.lines[0]).toBe(`holder candidate curator ${a.sessionId.toString(16)}`);
    expect(view.lines[1]).toMatch(/^waiting candidate curator /);
    await first.close();
    await second.leadership();
    await second.close();
  });

  it('refuses a maxLeases that is not a positive integer and an unknown namingQueues', async () => {
    const client = new ScriptedServer().connect();
    for (const maxLeases of [0, -1, 1.5, Number.NaN]) {
      await expect(inspectLock(client, '/x', { maxLeases })).rejects.toMatchObject({
        code: 'BADARGUMENTS',
      });
    }
    await expect(
      inspectLock(client, '/x', { namingQueues: 'both' as 'shared' }),
    ).rejects.toMatchObject({ code: 'BADARGUMENTS', message: expect.stringContaining('both') });
    await expect(inspectLock(client, '/x', { maxLeases: 1 })).resolves.toMatchObject({
      holders: 0,
    });
  });

  it('a contender released between the listing and the read is left out; other errors are passed on', async () => {
    const [server, a, b] = scriptedSessions(2);
    const held: Lease = await new Mutex(a, '/gone').acquire();
    const waiter = pending(new Mutex(b, '/gone').acquire());
    // The waiter's own getData on the holder's node (its watch) must be in before the failures
    // meant for the inspection's reads are scripted, or it takes the first of them.
    await until(
      () =>
        server.children('/gone').length === 2 &&
        server.log.some((r) => r.op === 'getData' && r.path === held.path && r.watch),
    );
    server.fail({ op: 'getData', path: held.path, code: 'NONODE' });
    const view = await summary(a, '/gone');
    expect(view.lines).toHaveLength(1);
    server.fail({ op: 'getData', path: held.path, code: 'NOAUTH' });
    await expect(inspectLock(a, '/gone')).rejects.toMatchObject({ code: 'NOAUTH' });
    server.fail({ op: 'getChildren', path: '/gone', code: 'NOAUTH' });
    await expect(inspectLock(a, '/gone')).rejects.toMatchObject({ code: 'NOAUTH' });
    await held.release();
    await (await waiter).release();
  });
});
