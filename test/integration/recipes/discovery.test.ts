// Service discovery on the real server, in Curator's layout: registration as Curator writes it,
// queries, update and idempotent unregister, the cache and the provider, and the failure
// schedules: a renewal re-registers the updated instance, a lost create reply does not register
// twice, an unregister right after a register (still creating) leaves no node, a deleted
// registration comes back.
import { describe, expect, it } from 'vitest';
import { CreateMode } from '../../../src/index.js';
import {
  buildUri,
  createWithParents,
  ensurePath,
  ServiceCache,
  ServiceDiscovery,
  type ServiceInstance,
  ServiceProvider,
} from '../../../src/recipes/index.js';
import {
  expireSession,
  holdingCreateReplies,
  losingFirstCreateReply,
  newClient,
  proxiedClient,
  recipePath,
  until,
} from './helpers.js';

const json = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes)) as unknown;

describe('ServiceDiscovery', () => {
  it('registers in Curator’s layout and JSON; queries, updates, unregisters (idempotent)', async () => {
    const zk = await newClient();
    const base = recipePath('services');
    await using discovery = new ServiceDiscovery<{ weight: number }>(zk, base);
    const instance = await discovery.register({
      name: 'orders',
      id: 'orders-1',
      address: '10.0.0.7',
      port: 8080,
      payload: { weight: 3 },
      registrationTimeUTC: 1_700_000_000_000,
      uriSpec: '{scheme}://{address}:{port}/v1',
    });
    const { data, stat } = await zk.getData(`${base}/orders/orders-1`);
    expect(stat.ephemeralOwner).toBe(zk.sessionId);
    expect(json(data)).toEqual({
      name: 'orders',
      id: 'orders-1',
      address: '10.0.0.7',
      port: 8080,
      sslPort: null,
      payload: { weight: 3 },
      registrationTimeUTC: 1_700_000_000_000,
      serviceType: 'DYNAMIC',
      uriSpec: {
        parts: [
          { value: 'scheme', variable: true },
          { value: '://', variable: false },
          { value: 'address', variable: true },
          { value: ':', variable: false },
          { value: 'port', variable: true },
          { value: '/v1', variable: false },
        ],
      },
      enabled: true,
    });
    expect(buildUri(instance)).toBe('http://10.0.0.7:8080/v1');

    const other = await discovery.register({ name: 'billing', port: 9000, serviceType: 'STATIC' });
    expect(other.id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await zk.exists(`${base}/billing/${other.id}`))?.ephemeralOwner).toBe(0n);
    expect((await discovery.queryForNames()).sort()).toEqual(['billing', 'orders']);
    expect(await discovery.queryForInstances('orders')).toEqual([instance]);
    expect(await discovery.queryForInstance('billing', other.id)).toEqual(other);
    expect(await discovery.queryForInstance('billing', 'nobody')).toBeNull();

    await discovery.update({ ...instance, payload: { weight: 5 }, enabled: false });
    const updated = await discovery.queryForInstance('orders', 'orders-1');
    expect(updated?.payload).toEqual({ weight: 5 });
    expect(updated?.enabled).toBe(false);

    await discovery.unregister('orders-1');
    await discovery.unregister('orders-1');
    await discovery.unregister(instance);
    expect(await zk.exists(`${base}/orders/orders-1`)).toBeNull();
    await expect(discovery.update(instance)).rejects.toMatchObject({ code: 'BADARGUMENTS' });

    await discovery.close();
    expect(await zk.exists(`${base}/billing/${other.id}`)).toBeNull();
    await expect(discovery.register({ name: 'late' })).rejects.toMatchObject({ code: 'CLOSED' });
  });

  it('a renewal registers the updated instance again on the new session', async () => {
    const { client, proxy } = await proxiedClient();
    const watcher = await newClient();
    const base = recipePath('services');
    await using discovery = new ServiceDiscovery(client, base, {
      instance: { name: 'api', id: 'api-1', port: 1, payload: 'first' },
    });
    await discovery.start({ timeout: 10_000 });
    const [own] = discovery.registered();
    await discovery.update({ ...own!, payload: 'second' });
    const oldSession = client.sessionId;
    await expireSession(client, proxy);
    expect(client.sessionId).not.toBe(oldSession);
    await until(async () => {
      const stat = await watcher.exists(`${base}/api/api-1`);
      return stat?.ephemeralOwner === client.sessionId;
    }, 'the instance registered on the new session');
    expect((await discovery.queryForInstance('api', 'api-1'))?.payload).toBe('second');
  });

  it('an unregister while the link is down resolves, and the node is gone once it is back (CURATOR-164)', async () => {
    const { client, proxy } = await proxiedClient();
    const other = await newClient();
    const base = recipePath('services');
    await using discovery = new ServiceDiscovery(client, base);
    await discovery.register({ name: 'api', id: 'leaving', serviceType: 'STATIC' });
    proxy.refuse(true);
    proxy.cut();
    await until(() => client.state === 'suspended', 'the client to notice the cut');
    await discovery.unregister('leaving', { timeout: 5_000 });
    expect(discovery.registered()).toEqual([]);
    proxy.refuse(false);
    await until(() => client.state === 'connected', 'the reconnect');
    await until(
      async () => (await other.exists(`${base}/api/leaving`)) === null,
      'the delete after the reconnect',
    );
    // Nothing registers it again.
    await client.sync(`${base}/api`);
    expect(await other.getChildren(`${base}/api`)).toEqual([]);
  });

  it('a lost create reply registers once; a deleted registration comes back', async () => {
    const zk = await newClient();
    const base = recipePath('services');
    await using discovery = new ServiceDiscovery(losingFirstCreateReply(zk), base);
    await discovery.register({ name: 'api', id: 'api-1' }, { timeout: 10_000 });
    const first = await zk.exists(`${base}/api/api-1`);
    expect(first?.ephemeralOwner).toBe(zk.sessionId);
    await zk.delete(`${base}/api/api-1`);
    await until(async () => (await zk.exists(`${base}/api/api-1`)) !== null, 'the node back');
    expect(await zk.getChildren(`${base}/api`)).toEqual(['api-1']);
  });

  it('an unregister (or close) while the register is still creating leaves no node', async () => {
    const zk = await newClient();
    const base = recipePath('services');
    const discovery = new ServiceDiscovery(zk, base);
    for (const serviceType of ['STATIC', 'DYNAMIC'] as const) {
      const id = `${serviceType}-1`;
      const registering = discovery.register({ name: 'api', id, serviceType }).then(
        () => 'registered',
        (error: { code?: string }) => error.code,
      );
      await discovery.unregister(id);
      expect(await registering).toBe('CLOSED');
      expect(await zk.exists(`${base}/api/${id}`)).toBeNull();
    }
    const registering = discovery
      .register({ name: 'api', id: 'last', serviceType: 'PERMANENT' })
      .catch(() => {});
    await discovery.close();
    await registering;
    expect(await zk.exists(`${base}/api/last`)).toBeNull();
  });

  it('an unregister while the create is in flight deletes the node the create made', async () => {
    const zk = await newClient();
    const base = recipePath('services');
    await ensurePath(zk, `${base}/api`);
    const held = holdingCreateReplies(zk);
    const discovery = new ServiceDiscovery(held.client, base);
    const registering = discovery
      .register({ name: 'api', id: 'kept', serviceType: 'PERMANENT' })
      .then(
        () => 'registered',
        (error: { code?: string }) => error.code,
      );
    await until(async () => (await zk.exists(`${base}/api/kept`)) !== null, 'the create applied');
    const unregistered = discovery.unregister('kept');
    held.release();
    await unregistered;
    expect(await registering).toBe('CLOSED');
    expect(await zk.exists(`${base}/api/kept`)).toBeNull();
  });

  it('refuses bad arguments at once, and times a register out with TimeoutError', async () => {
    const zk = await newClient();
    const base = recipePath('services');
    const discovery = new ServiceDiscovery(zk, base);
    expect(() => new ServiceDiscovery(zk, 'relative')).toThrow(
      expect.objectContaining({ code: 'BADARGUMENTS' }),
    );
    await expect(discovery.register({ name: 'a/b' })).rejects.toMatchObject({
      code: 'BADARGUMENTS',
    });
    await expect(discovery.register({ name: 'a', port: 1.5 })).rejects.toMatchObject({
      code: 'BADARGUMENTS',
    });
    await expect(
      discovery.register({ name: 'a', serviceType: 'DYNAMIC_SEQUENTIAL' }),
    ).rejects.toMatchObject({ code: 'BADARGUMENTS' });
    // Another session holds the id's node: the register waits it out, and the wait times out.
    const other = await newClient();
    await createWithParents(other, `${base}/held/x`, '{}', { mode: CreateMode.EPHEMERAL });
    await expect(
      discovery.register({ name: 'held', id: 'x' }, { timeout: 200 }),
    ).rejects.toMatchObject({ code: 'TIMEOUT', name: 'TimeoutError' });
    await other.close();
    await until(
      async () => (await zk.exists(`${base}/held/x`))?.ephemeralOwner === zk.sessionId,
      'the registration once the other session left',
    );
    await discovery.close();
  });
});

describe('ServiceCache and ServiceProvider', () => {
  it('the cache follows registrations, updates and removals', async () => {
    const [a, b] = [await newClient(), await newClient()];
    const base = recipePath('services');
    const discovery = new ServiceDiscovery(a, base);
    const one = await discovery.register({ name: 'api', id: 'one', port: 1 });
    await using cache = new ServiceCache(b, base, { name: 'api' });
    const seen: (readonly ServiceInstance[])[] = [];
    cache.on('change', (instances) => seen.push(instances));
    await cache.start({ timeout: 10_000 });
    expect(cache.instances).toEqual([one]);
    const two = await discovery.register({ name: 'api', id: 'two', port: 2 });
    await until(() => cache.instances.length === 2, 'the second instance in the cache');
    expect(cache.instances).toEqual([one, two]);
    await discovery.update({ ...one, port: 11 });
    await until(() => cache.instances[0]?.port === 11, 'the update in the cache');
    await discovery.unregister('two');
    await until(() => cache.instances.length === 1, 'the removal in the cache');
    // Someone else's node that is not an instance is left out, and told as an error.
    const errors: Error[] = [];
    cache.on('error', (error) => errors.push(error));
    await a.create(`${base}/api/garbage`, 'not json');
    await until(() => errors.length > 0, 'the bad node reported');
    expect(errors[0]).toMatchObject({ code: 'MARSHALLINGERROR' });
    expect(cache.instances.map(({ id }) => id)).toEqual(['one']);
    expect(seen.length).toBeGreaterThanOrEqual(4);
    await discovery.close();
    await until(() => cache.instances.length === 0, 'the close seen by the cache');
  });

  it('the cache catches up after a reconnect and after a renewal (changes made meanwhile)', async () => {
    const { client, proxy } = await proxiedClient();
    const other = await newClient();
    const base = recipePath('services');
    const discovery = new ServiceDiscovery(other, base);
    await discovery.register({ name: 'api', id: 'before' });
    await using cache = new ServiceCache(client, base, { name: 'api' });
    await cache.start({ timeout: 10_000 });
    expect(cache.instances.map(({ id }) => id)).toEqual(['before']);

    // Cut off (same session): an instance joins and one leaves meanwhile.
    proxy.refuse(true);
    proxy.cut();
    await until(() => client.state === 'suspended', 'the client to notice the cut');
    await discovery.register({ name: 'api', id: 'while-cut' });
    await discovery.unregister('before');
    proxy.refuse(false);
    await until(
      () => cache.instances.map(({ id }) => id).join() === 'while-cut',
      'the cache after the reconnect',
    );

    // The session expires while cut off: the cache reads again on the new one.
    await expireSession(client, proxy, async () => {
      await discovery.register({ name: 'api', id: 'while-expired' });
    });
    await until(
      () => cache.instances.map(({ id }) => id).join() === 'while-cut,while-expired',
      'the cache after the renewal',
    );
    await discovery.close();
  });

  it('the provider picks round robin, random or sticky, never a disabled instance', async () => {
    const zk = await newClient();
    const base = recipePath('services');
    await using discovery = new ServiceDiscovery(zk, base);
    for (const id of ['a', 'b', 'c']) await discovery.register({ name: 'api', id });
    await discovery.register({ name: 'api', id: 'off', enabled: false });
    await using roundRobin = new ServiceProvider(zk, base, { name: 'api' });
    await roundRobin.start({ timeout: 10_000 });
    const picks = Array.from({ length: 6 }, () => roundRobin.getInstance()?.id);
    expect(picks).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
    await using sticky = new ServiceProvider(zk, base, { name: 'api', strategy: 'sticky' });
    await sticky.start();
    const kept = sticky.getInstance()?.id;
    expect([sticky.getInstance()?.id, sticky.getInstance()?.id]).toEqual([kept, kept]);
    await discovery.unregister(kept!);
    await until(() => sticky.allInstances().length === 2, 'the sticky instance gone');
    expect(sticky.getInstance()?.id).not.toBe(kept);
    await using random = new ServiceProvider(zk, base, {
      name: 'api',
      strategy: 'random',
      filter: (instance) => instance.id !== 'c',
    });
    await random.start();
    const ids = new Set(Array.from({ length: 20 }, () => random.getInstance()?.id));
    for (const id of ids) expect(['a', 'b']).toContain(id);
  });
});
