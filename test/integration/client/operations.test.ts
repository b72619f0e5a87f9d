import { describe, expect, it } from 'vitest';
import {
  ClientClosedError,
  CreateMode,
  Ids,
  Op,
  Perms,
  ZooKeeperError,
} from '../../../src/index.js';
import { sharedServer } from '../../harness/index.js';
import { chrooted, client, rejection, text } from './setup.js';

describe('operations against a real server', () => {
  it('creates, reads, updates and deletes with versions, through a chroot', async () => {
    const { zk, chroot, root } = await chrooted();
    expect(await zk.create('/a', 'one')).toBe('/a');
    const { data, stat } = await zk.getData('/a');
    expect(text(data)).toBe('one');
    expect(stat.version).toBe(0);
    expect(stat.dataLength).toBe(3);
    expect(typeof stat.ctime).toBe('number');
    expect(Math.abs(stat.ctime - Date.now())).toBeLessThan(60_000);
    // The same node seen from outside the chroot.
    expect(text((await root.getData(`${chroot}/a`)).data)).toBe('one');

    const updated = await zk.setData('/a', new Uint8Array([0, 255, 1]), 0);
    expect(updated.version).toBe(1);
    expect([...(await zk.getData('/a')).data]).toEqual([0, 255, 1]);
    expect((await rejection(zk.setData('/a', 'x', 0))).code).toBe('BADVERSION');
    expect((await rejection(zk.delete('/a', 0))).code).toBe('BADVERSION');
    await zk.delete('/a', 1);
    expect(await zk.exists('/a')).toBeNull();
  });

  it('hands data back as plain Uint8Arrays, never Node Buffers, small or spanning chunks', async () => {
    const { zk } = await chrooted();
    // 600 KB arrives in many socket chunks: the frame is assembled from them.
    const big = new Uint8Array(600_000).map((_, i) => i % 251);
    await zk.create('/small', 'tiny');
    await zk.create('/big', big);
    const [small, large] = await Promise.all([zk.getData('/small'), zk.getData('/big')]);
    for (const { data } of [small, large]) {
      expect(Object.getPrototypeOf(data)).toBe(Uint8Array.prototype);
      expect(Buffer.isBuffer(data)).toBe(false);
    }
    expect(text(small.data)).toBe('tiny');
    expect(large.data).toEqual(big);
  });

  it('reports server errors with the Java code name, the path and the operation', async () => {
    const { zk } = await chrooted();
    const missing = await rejection(zk.getData('/missing'));
    expect(missing).toBeInstanceOf(ZooKeeperError);
    expect(missing).toMatchObject({ code: 'NONODE', path: '/missing', op: 'getData' });
    await zk.create('/p');
    await zk.create('/p/c');
    expect(await rejection(zk.create('/p'))).toMatchObject({
      code: 'NODEEXISTS',
      path: '/p',
      op: 'create',
    });
    expect(await rejection(zk.delete('/p'))).toMatchObject({ code: 'NOTEMPTY' });
    expect(await rejection(zk.create('/nope/child'))).toMatchObject({ code: 'NONODE' });
    const eph = await zk.create('/e', '', { mode: CreateMode.EPHEMERAL });
    expect(await rejection(zk.create(`${eph}/x`))).toMatchObject({
      code: 'NOCHILDRENFOREPHEMERALS',
    });
  });

  it('creates every mode: sequential suffixes, ephemeral owner, container, TTL', async () => {
    const { zk } = await chrooted();
    await zk.create('/seq');
    const s1 = await zk.create('/seq/n-', 'x', { mode: CreateMode.PERSISTENT_SEQUENTIAL });
    const s2 = await zk.create('/seq/n-', 'x', { mode: CreateMode.EPHEMERAL_SEQUENTIAL });
    expect(s1).toBe('/seq/n-0000000000');
    expect(s2).toBe('/seq/n-0000000001');
    const { stat: ephStat } = await zk.create2('/eph', 'x', { mode: CreateMode.EPHEMERAL });
    expect(ephStat.ephemeralOwner).toBe(zk.sessionId);
    // Sequential create on a path ending in "/" is legal (validated as path + "1").
    expect(await zk.create('/seq/', '', { mode: CreateMode.PERSISTENT_SEQUENTIAL })).toBe(
      '/seq/0000000002',
    );

    // The server hides the container/TTL markers from clients (ephemeralOwner 0); that they
    // really are containers and TTL nodes is proven in container-ttl.test.ts.
    expect(await zk.create('/box', '', { mode: CreateMode.CONTAINER })).toBe('/box');
    const ttl = await zk.create2('/ttl', '', { mode: CreateMode.PERSISTENT_WITH_TTL, ttl: 60_000 });
    expect(ttl.stat.ephemeralOwner).toBe(0n);
    const ttlSeq = await zk.create('/ttl-', '', {
      mode: CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL,
      ttl: 1,
    });
    expect(ttlSeq).toMatch(/^\/ttl-\d{10}$/);
  });

  it("lists children, counts descendants and this session's ephemerals", async () => {
    const { zk, root, chroot } = await chrooted();
    await zk.create('/d');
    await zk.create('/d/a');
    await zk.create('/d/b');
    await zk.create('/d/b/x', '', { mode: CreateMode.EPHEMERAL });
    expect((await zk.getChildren('/d')).sort()).toEqual(['a', 'b']);
    const two = await zk.getChildren2('/d');
    expect(two.stat.numChildren).toBe(2);
    expect(two.stat.cversion).toBe(2);
    expect(await zk.getAllChildrenNumber('/d')).toBe(3);
    expect(await zk.getEphemerals()).toEqual(['/d/b/x']);
    expect(await zk.getEphemerals('/d/b')).toEqual(['/d/b/x']);
    expect(await zk.getEphemerals('/zzz')).toEqual([]);
    // The root client sees the server path, and has no ephemerals of its own.
    expect(await root.getEphemerals()).toEqual([]);
    expect(await root.exists(`${chroot}/d/b/x`)).not.toBeNull();
  });

  it('runs atomic multi: all results on success, per-op codes and nothing applied on failure', async () => {
    const { zk } = await chrooted();
    await zk.create('/m', 'v0');
    const results = await zk.multi([
      Op.create('/m/a', 'a'),
      Op.create('/m/s-', 's', { mode: CreateMode.PERSISTENT_SEQUENTIAL }),
      Op.setData('/m', 'v1', 0),
      Op.check('/m', 1),
      Op.delete('/m/a'),
    ]);
    expect(results.map((r) => r.type)).toEqual(['create', 'create', 'setData', 'check', 'delete']);
    expect(results[1]).toMatchObject({ type: 'create', path: '/m/s-0000000001' });
    const failure = await rejection(
      zk.multi([Op.create('/m/b'), Op.check('/m', 99), Op.delete('/m')]),
    );
    expect(failure).toMatchObject({ code: 'BADVERSION', op: 'multi', path: '/m' });
    expect(failure.results).toEqual([
      { type: 'error', code: 'OK', errno: 0 },
      { type: 'error', code: 'BADVERSION', errno: -103 },
      { type: 'error', code: 'RUNTIMEINCONSISTENCY', errno: -2 },
    ]);
    expect(await zk.exists('/m/b')).toBeNull();
    expect(await zk.multi([])).toEqual([]);
  });

  it('runs multiRead: reads succeed or fail one by one', async () => {
    const { zk } = await chrooted();
    await zk.create('/r', 'data');
    await zk.create('/r/kid');
    const results = await zk.multiRead([
      Op.getData('/r'),
      Op.getChildren('/r'),
      Op.getData('/none'),
    ]);
    expect(results[0]).toMatchObject({ type: 'getData' });
    expect(text((results[0] as { data: Uint8Array }).data)).toBe('data');
    expect(results[1]).toEqual({ type: 'getChildren', children: ['kid'] });
    expect(results[2]).toEqual({ type: 'error', code: 'NONODE', errno: -101 });
  });

  it('reads and sets ACLs, and the server enforces them', async () => {
    const { zk, chroot } = await chrooted();
    await zk.create('/open');
    expect((await zk.getACL('/open')).acl).toEqual([
      { perms: Perms.ALL, id: { scheme: 'world', id: 'anyone' } },
    ]);
    await zk.setACL('/open', Ids.READ_ACL_UNSAFE, 0);
    const { acl, stat } = await zk.getACL('/open');
    expect(acl).toEqual([{ perms: Perms.READ, id: { scheme: 'world', id: 'anyone' } }]);
    expect(stat.aversion).toBe(1);
    expect(await rejection(zk.setData('/open', 'x'))).toMatchObject({ code: 'NOAUTH' });
    expect(await rejection(zk.setACL('/open', Ids.OPEN_ACL_UNSAFE, 0))).toMatchObject({
      code: 'NOAUTH',
    });

    await zk.addAuth('digest', 'alice:secret');
    await zk.create('/mine', 'x', { acl: Ids.CREATOR_ALL_ACL });
    const other = await client(sharedServer().connectString + chroot);
    expect(await rejection(other.getData('/mine'))).toMatchObject({ code: 'NOAUTH' });
    await other.addAuth('digest', 'alice:secret');
    expect(text((await other.getData('/mine')).data)).toBe('x');
    const ids = await other.whoAmI();
    expect(ids).toContainEqual({ authScheme: 'digest', user: 'alice' });
    expect(ids).toContainEqual({ authScheme: 'ip', user: '127.0.0.1' });
  });

  it('syncs, and accepts strings and bytes as data', async () => {
    const { zk } = await chrooted();
    await zk.sync('/');
    await zk.create('/u', 'héllo ✓');
    expect(text((await zk.getData('/u')).data)).toBe('héllo ✓');
    await zk.create('/empty');
    expect((await zk.getData('/empty')).data).toEqual(new Uint8Array(0));
  });
});

describe('bad input is refused locally, before anything is sent', () => {
  it.each([
    ['', 'length must be > 0'],
    ['a', 'start with'],
    ['/a/', 'end with'],
    ['/a//b', 'empty node name'],
    ['/a/./b', 'relative'],
    ['/a/../b', 'relative'],
    ['/a\u0000b', 'null character'],
    ['/a\u0001', 'invalid character'],
    ['/\ud800', 'invalid character'],
  ])('path %j', async (path, reason) => {
    const { zk } = await chrooted();
    const error = await rejection(zk.getData(path));
    expect(error).toMatchObject({ code: 'BADARGUMENTS' });
    expect(error.message.toLowerCase()).toContain(reason);
  });

  it('wrong types, versions, modes, TTLs and ACLs', async () => {
    const { zk } = await chrooted();
    const bad = [
      zk.create('/x', 42 as unknown as string),
      zk.setData('/x', null as unknown as string),
      zk.delete('/x', 1.5),
      zk.setData('/x', 'd', -2),
      zk.create('/x', '', { mode: 9 as never }),
      zk.create('/x', '', { mode: CreateMode.PERSISTENT_WITH_TTL }),
      zk.create('/x', '', { mode: CreateMode.PERSISTENT, ttl: 5 }),
      zk.getData('/x', { watch: 'yes' as never }),
      zk.removeWatches('/x', 'bogus' as never),
    ];
    for (const call of bad) expect(await rejection(call)).toMatchObject({ code: 'BADARGUMENTS' });
    expect(await rejection(zk.create('/x', '', { acl: [] }))).toMatchObject({ code: 'INVALIDACL' });
    // Nothing reached the server.
    expect(await zk.exists('/x')).toBeNull();
  });

  it('an oversized request is refused with a clear error and the connection stays usable', async () => {
    const { zk } = await chrooted();
    const sessionId = zk.sessionId;
    const error = await rejection(zk.create('/big', new Uint8Array(1_100_000)));
    expect(error).toMatchObject({ code: 'BADARGUMENTS', path: '/big' });
    expect(error.message).toContain('frame limit');
    // Under the limit still works, on the same connection and session.
    await zk.create('/big', new Uint8Array(1_000_000));
    expect((await zk.getData('/big')).data.length).toBe(1_000_000);
    expect(zk.sessionId).toBe(sessionId);
    expect(zk.state).toBe('connected');
  });

  it('a reply over maxFrameSize fails that call with the reason; the session carries on', async () => {
    const { zk, chroot } = await chrooted();
    await zk.create('/many');
    const name = 'n'.repeat(200);
    await Promise.all(Array.from({ length: 400 }, (_, i) => zk.create(`/many/${name}${i}`)));
    const small = await client(sharedServer().connectString + chroot, { maxFrameSize: 64 * 1024 });
    const sessionId = small.sessionId;
    const error = await rejection(small.getChildren('/many'));
    expect(error).toMatchObject({ code: 'MARSHALLINGERROR', op: 'getChildren', path: '/many' });
    expect(error.message).toContain('maxFrameSize');
    expect(await small.getAllChildrenNumber('/many')).toBe(400);
    expect(small.sessionId).toBe(sessionId);
  });

  it('calls after close reject at once; close is idempotent', async () => {
    const { zk } = await chrooted();
    await zk.create('/e', '', { mode: CreateMode.EPHEMERAL });
    await Promise.all([zk.close(), zk.close()]);
    await zk.close();
    expect(zk.state).toBe('closed');
    const error = await rejection(zk.getData('/e'));
    expect(error).toBeInstanceOf(ClientClosedError);
    expect(error).toMatchObject({ code: 'CLIENTCLOSED', op: 'getData', path: '/e' });
    expect(error.message).toContain('closed');
  });
});
