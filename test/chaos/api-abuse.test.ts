// The public API fed wrong input, against the shared real server: bad paths, wrong types, huge
// data, bad versions, calls after close, lease misuse, locks on impossible paths. Every refusal
// is a typed ZooKeeperError, nothing reaches the server that should not, the abusing client's
// connection never drops, and a bystander client sees nothing at all.
// (Bugs this found are pinned in test/chaos/regressions/; here only what holds.)
import { beforeAll, describe, expect, it } from 'vitest';
import { type Client, CreateMode, connect, Op } from '../../src/index.js';
import { ExclusiveLock, Mutex, Semaphore } from '../../src/locks/index.js';
import { sharedServer } from '../harness/index.js';
import { abuseWorld, type Loose, label, refused } from './abuse-world.js';

const world = abuseWorld('abuse');
const { root, made, abuserStates } = world;
const open = world.open;
let zk: Client;
beforeAll(() => {
  zk = world.zk;
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
    expect(new TextDecoder().decode((await zk.getData(`${root}/node`)).data)).toBe('v1');
    await world.expectUntouched();
  });
});
