// The public API fed wrong input, against the shared real server: bad paths, wrong types, huge
// data, bad versions, calls after close, lease misuse, locks on impossible paths. Every refusal
// is a typed ZooKeeperError, nothing reaches the server that should not, the abusing client's
// connection never drops, and a bystander client sees nothing at all.
// (Bugs this found are pinned in test/chaos/regressions/; here only what holds.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Client,
  CreateMode,
  connect,
  Op,
  type SessionState,
  type WatchedEvent,
  ZooKeeperError,
} from '../../src/index.js';
import {
  ExclusiveLock,
  type Lease,
  Mutex,
  ReadWriteLock,
  Semaphore,
} from '../../src/locks/index.js';
import { fourLetterWord, sharedServer, uniquePath } from '../harness/index.js';

const root = uniquePath('abuse');
let zk: Client;
let bystander: Client;
const clients: Client[] = [];
const abuserStates: SessionState[] = [];
const bystanderStates: SessionState[] = [];
const bystanderEvents: WatchedEvent[] = [];
let abuserSession: bigint;
let bystanderSession: bigint;
/** Every node valid calls made under root (besides lock nodes, which go away again). */
const made = new Set<string>();

async function open(): Promise<Client> {
  const client = await connect(sharedServer().connectString, { sessionTimeout: 10_000 });
  clients.push(client);
  return client;
}

/** `call` is refused (thrown or rejected) with a ZooKeeperError of `code`. */
async function refused(call: () => unknown, code = 'BADARGUMENTS', what = ''): Promise<void> {
  let error: unknown;
  try {
    await call();
  } catch (e) {
    error = e;
  }
  expect(error, `${what}: not refused`).toBeDefined();
  expect(error, `${what}: ${String(error)}`).toBeInstanceOf(ZooKeeperError);
  expect((error as ZooKeeperError).code, `${what}: ${String(error)}`).toBe(code);
}

const label = (value: unknown): string =>
  typeof value === 'symbol'
    ? value.toString()
    : typeof value === 'string'
      ? JSON.stringify(value)
      : Array.isArray(value)
        ? `[${value.map(label).join(',')}]`
        : value instanceof Object
          ? value.constructor.name
          : String(value);

// biome-ignore lint/suspicious/noExplicitAny: feeding wrong types on purpose
type Loose = any;

beforeAll(async () => {
  zk = await open();
  bystander = await open();
  abuserSession = zk.sessionId;
  bystanderSession = bystander.sessionId;
  zk.on('state', (s) => abuserStates.push(s));
  bystander.on('state', (s) => bystanderStates.push(s));
  await zk.create(root);
  await zk.create(`${root}/node`, 'v0');
  made.add(`${root}/node`);
  await bystander.create(`${root}/bystander`, 'b', { mode: CreateMode.EPHEMERAL });
  made.add(`${root}/bystander`);
  await bystander.getData(`${root}/bystander`, { watch: (e) => bystanderEvents.push(e) });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
});

describe('client operations fed wrong input', () => {
  const badPaths = (): unknown[] => [
    '',
    'relative',
    `${root}/`,
    `${root}//x`,
    `${root}/./x`,
    `${root}/../x`,
    `${root}/.`,
    `${root}/..`,
    `${root}/a\u0000b`,
    `${root}/\u0001`,
    `${root}/\ud800`,
    `${root}/\ufff0`,
    42,
    null,
    undefined,
    {},
    [`${root}/node`],
    Symbol('path'),
    true,
  ];

  it('refuses bad paths in every path operation (BADARGUMENTS, nothing sent)', async () => {
    const c = zk as Loose;
    const ops: [string, (path: unknown) => unknown][] = [
      ['create', (p) => c.create(p, 'x')],
      ['create2', (p) => c.create2(p, 'x')],
      ['delete', (p) => c.delete(p)],
      ['exists', (p) => c.exists(p)],
      ['getData', (p) => c.getData(p)],
      ['setData', (p) => c.setData(p, 'x')],
      ['getChildren', (p) => c.getChildren(p)],
      ['getChildren2', (p) => c.getChildren2(p)],
      ['getACL', (p) => c.getACL(p)],
      ['setACL', (p) => c.setACL(p, [{ perms: 31, id: { scheme: 'world', id: 'anyone' } }])],
      ['sync', (p) => c.sync(p)],
      ['getAllChildrenNumber', (p) => c.getAllChildrenNumber(p)],
      ['removeWatches', (p) => c.removeWatches(p, 'any')],
      ['watch', (p) => c.watch(p)],
      ['multi create', (p) => c.multi([Op.create(p as string, 'x')])],
      ['multi delete', (p) => c.multi([Op.delete(p as string)])],
      ['multiRead', (p) => c.multiRead([Op.getData(p as string)])],
    ];
    for (const [name, call] of ops) {
      for (const path of badPaths())
        await refused(() => call(path), 'BADARGUMENTS', `${name}(${label(path)})`);
    }
  });

  it('refuses data, versions, modes, TTLs, ACLs and watchers of the wrong type or range', async () => {
    const c = zk as Loose;
    const node = `${root}/node`;
    for (const data of [
      42,
      {},
      true,
      [1, 2],
      new Uint16Array(2),
      new ArrayBuffer(4),
      new DataView(new ArrayBuffer(2)),
    ] as Loose[]) {
      await refused(
        () => c.create(`${root}/typed`, data),
        'BADARGUMENTS',
        `create data ${label(data)}`,
      );
      await refused(() => c.setData(node, data), 'BADARGUMENTS', `setData data ${label(data)}`);
      await refused(
        () => c.multi([Op.setData(node, data)]),
        'BADARGUMENTS',
        `multi setData ${label(data)}`,
      );
    }
    for (const version of [
      -2,
      -100,
      1.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      '1',
      null,
      2 ** 31,
      {},
    ]) {
      await refused(
        () => c.delete(node, version),
        'BADARGUMENTS',
        `delete version ${label(version)}`,
      );
      await refused(
        () => c.setData(node, 'x', version),
        'BADARGUMENTS',
        `setData version ${label(version)}`,
      );
      await refused(
        () => c.setACL(node, [{ perms: 31, id: { scheme: 'world', id: 'anyone' } }], version),
        'BADARGUMENTS',
        `setACL version ${label(version)}`,
      );
    }
    for (const mode of [99, -1, 1.5, 'EPHEMERAL', {}]) {
      await refused(
        () => c.create(`${root}/typed`, 'x', { mode }),
        'BADARGUMENTS',
        `mode ${label(mode)}`,
      );
    }
    await refused(
      () => c.create(`${root}/typed`, 'x', { ttl: 1_000 }),
      'BADARGUMENTS',
      'ttl without a TTL mode',
    );
    for (const ttl of [0, -1, 1.5, 'x', undefined]) {
      await refused(
        () => c.create(`${root}/typed`, 'x', { mode: CreateMode.PERSISTENT_WITH_TTL, ttl }),
        'BADARGUMENTS',
        `ttl ${label(ttl)}`,
      );
    }
    for (const acl of [[], 'x']) {
      await refused(
        () => c.create(`${root}/typed`, 'x', { acl }),
        'INVALIDACL',
        `create acl ${label(acl)}`,
      );
      await refused(() => c.setACL(node, acl), 'INVALIDACL', `setACL acl ${label(acl)}`);
    }
    for (const watch of ['x', 42, {}]) {
      await refused(
        () => c.exists(node, { watch }),
        'BADARGUMENTS',
        `exists watch ${label(watch)}`,
      );
      await refused(
        () => c.getData(node, { watch }),
        'BADARGUMENTS',
        `getData watch ${label(watch)}`,
      );
      await refused(
        () => c.getChildren(node, { watch }),
        'BADARGUMENTS',
        `getChildren watch ${label(watch)}`,
      );
    }
    await refused(() => c.removeWatches(node, 'bogus'), 'BADARGUMENTS', 'removeWatches kind');
    for (const ops of ['x', null, 42, [{}], [{ type: 'bogus', path: node }]]) {
      await refused(() => c.multi(ops), 'BADARGUMENTS', `multi ${label(ops)}`);
    }
    await refused(
      () => c.multiRead([{ type: 'bogus', path: node }]),
      'BADARGUMENTS',
      'multiRead op',
    );
    await refused(() => c.on('bogus', () => {}), 'BADARGUMENTS', 'on(bogus)');
    await refused(() => c.addAuth('', 'x'), 'BADARGUMENTS', 'addAuth scheme');
    await refused(() => c.addAuth('digest', 42), 'BADARGUMENTS', 'addAuth credentials');
    await refused(() => c.getEphemerals(42), 'BADARGUMENTS', 'getEphemerals prefix');
    // None of it touched the node.
    const { data, stat } = await zk.getData(node);
    expect(new TextDecoder().decode(data)).toBe('v0');
    expect(stat.version).toBe(0);
  });

  it('refuses bad connect options before connecting', async () => {
    const at = sharedServer().connectString;
    for (const options of [
      { sessionTimeout: -1 },
      { sessionTimeout: Number.NaN },
      { sessionTimeout: 'x' },
      { connectTimeout: 0 },
      { connectTimeout: Number.POSITIVE_INFINITY },
    ]) {
      await refused(
        () => connect(at, options as Loose),
        'BADARGUMENTS',
        `connect ${JSON.stringify(options)}`,
      );
    }
  });

  it('refuses requests over the frame limit before sending them; the connection stays', async () => {
    const c = zk as Loose;
    const huge = new Uint8Array(2 * 1024 * 1024);
    await refused(() => c.create(`${root}/huge`, huge), 'BADARGUMENTS', 'create 2 MB');
    await refused(() => c.setData(`${root}/node`, huge), 'BADARGUMENTS', 'setData 2 MB');
    await refused(
      () => c.create(`${root}/${'p'.repeat(2_000_000)}`),
      'BADARGUMENTS',
      'path of 2 MB',
    );
    const many = Array.from({ length: 300 }, (_, i) =>
      Op.create(`${root}/m${i}`, new Uint8Array(4096)),
    );
    await refused(() => c.multi(many), 'BADARGUMENTS', 'multi of 1.2 MB');
    // The refusals cost nothing: pipelined calls around them still work, in order.
    const results = await Promise.allSettled([
      zk.exists(`${root}/node`),
      c.create(`${root}/huge`, huge),
      zk.setData(`${root}/node`, 'v1', 0),
      c.setData(`${root}/node`, huge),
      zk.getData(`${root}/node`),
    ]);
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    const last = results[4] as PromiseFulfilledResult<{ data: Uint8Array }>;
    expect(new TextDecoder().decode(last.value.data)).toBe('v1');
    expect(await zk.exists(`${root}/huge`)).toBeNull();
    expect(abuserStates).toEqual([]);
  });

  it("takes versions of -1 and above only; a wrong one is the server's BADVERSION", async () => {
    const node = `${root}/versioned`;
    await zk.create(node, 'a');
    made.add(node);
    await refused(() => zk.delete(node, -2), 'BADARGUMENTS', 'delete -2');
    await refused(() => zk.setData(node, 'b', -5), 'BADARGUMENTS', 'setData -5');
    await refused(() => zk.delete(node, 7), 'BADVERSION', 'delete 7');
    await refused(() => zk.setData(node, 'b', 2 ** 31 - 1), 'BADVERSION', 'setData 2^31-1');
    await refused(() => zk.multi([Op.delete(node, -5)]), 'BADVERSION', 'multi delete -5');
    await refused(
      () => zk.multi([Op.check(node, 3), Op.delete(node)]),
      'BADVERSION',
      'multi check 3',
    );
    expect((await zk.exists(node))?.version).toBe(0);
  });
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

describe('a closed client', () => {
  it('rejects every call with CLIENTCLOSED and closes again without complaint', async () => {
    const closed = await open();
    const path = `${root}/closed`;
    await closed.close();
    const calls: [string, () => unknown][] = [
      ['create', () => closed.create(path, 'x')],
      ['delete', () => closed.delete(`${root}/node`)],
      ['exists', () => closed.exists(path)],
      ['getData', () => closed.getData(`${root}/node`)],
      ['setData', () => closed.setData(`${root}/node`, 'x')],
      ['getChildren', () => closed.getChildren(root)],
      ['sync', () => closed.sync(root)],
      ['multi', () => closed.multi([Op.create(path, 'x')])],
      ['multiRead', () => closed.multiRead([Op.getData(root)])],
      ['addAuth', () => closed.addAuth('digest', 'u:p')],
      ['whoAmI', () => closed.whoAmI()],
      ['watch', () => closed.watch(root).next()],
      ['Mutex.acquire', () => new Mutex(closed, path).acquire({ timeout: 2_000 })],
      ['Mutex.tryAcquire', () => new Mutex(closed, path).tryAcquire()],
      [
        'Semaphore.acquire',
        () => new Semaphore(closed, path, { maxLeases: 2 }).acquire({ timeout: 2_000 }),
      ],
      ['ExclusiveLock.acquire', () => new ExclusiveLock(closed, path).acquire({ timeout: 2_000 })],
    ];
    for (const [name, call] of calls) await refused(call, 'CLIENTCLOSED', name);
    await closed.close();
    await closed[Symbol.asyncDispose]();
    expect(closed.state).toBe('closed');
    expect(await zk.exists(path)).toBeNull();
  });
});

describe('after all of it', () => {
  it('the server holds exactly what valid calls made, and nobody else noticed', async () => {
    const children = (await zk.getChildren(root)).map((name) => `${root}/${name}`);
    const expected = [...made];
    // The containers of the lock paths used above may still be there (the server reaps empty
    // containers later): nothing else, and nothing in them.
    const lockDirs = ['double', 'stale', 'reenter'].map((name) => `${root}/${name}`);
    for (const path of children.filter((p) => !made.has(p))) {
      expect(lockDirs, `unexpected ${path}`).toContain(path);
      expect(await zk.getAllChildrenNumber(path), `${path} is not empty`).toBe(0);
    }
    for (const path of expected) expect(children).toContain(path);
    expect(new TextDecoder().decode((await zk.getData(`${root}/node`)).data)).toBe('v1');

    // The abusing client never lost its connection; the bystander never saw a thing.
    expect(abuserStates).toEqual([]);
    expect(zk.sessionId).toBe(abuserSession);
    expect(zk.state).toBe('connected');
    expect(bystanderStates).toEqual([]);
    expect(bystander.sessionId).toBe(bystanderSession);
    expect(bystanderEvents).toEqual([]);
    expect((await zk.exists(`${root}/bystander`))?.ephemeralOwner).toBe(bystanderSession);

    // And no watch of the abuse is left on the server: only the bystander's own.
    const [host, port] = sharedServer().connectString.split(',')[0]!.split(':') as [string, string];
    const wchp = await fourLetterWord(host, Number(port), 'wchp');
    const watched = wchp
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.startsWith(`${root}/`) || line === root);
    expect(watched).toEqual([`${root}/bystander`]);
  });
});
