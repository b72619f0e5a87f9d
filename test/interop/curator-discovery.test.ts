// Service discovery against Apache Curator's own (curator-x-discovery 5.x, in a JVM:
// java/DiscoveryPeer.java) on the same base path, both ways: instances Curator registers,
// updates and removes are seen by our queries, cache and provider; instances we register,
// update, disable and remove are seen by Curator's queries, ServiceCache and ServiceProvider,
// payload included. A missing Curator, Jackson or JDK fails (never skips).
import { describe, expect, it } from 'vitest';
import {
  ServiceCache,
  ServiceDiscovery,
  type ServiceInstance,
  ServiceProvider,
} from '../../src/recipes/index.js';
import { uniquePath } from '../harness/index.js';
import { eventually } from '../support/events.js';
import { startDiscoveryPeer } from './curator-discovery.js';
import { connectString, newClient } from './helpers.js';
import { askJson, tell } from './peer.js';

describe('service discovery with Curator’s ServiceDiscovery', () => {
  it('Curator registers, updates, unregisters: our queries, cache and provider follow', async () => {
    const base = `${uniquePath('interop')}/services`;
    const [curator, zk] = await Promise.all([
      startDiscoveryPeer(connectString(), base),
      newClient(),
    ]);
    await tell(curator, 'register api java-1 8001 {"zone":"a"}', 'registered');
    await using discovery = new ServiceDiscovery<{ zone: string }>(zk, base);
    expect(await discovery.queryForNames()).toEqual(['api']);
    const [seen] = await discovery.queryForInstances('api');
    expect(seen).toMatchObject({
      name: 'api',
      id: 'java-1',
      address: '127.0.0.1',
      port: 8001,
      sslPort: null,
      payload: { zone: 'a' },
      payloadClass: 'java.util.LinkedHashMap',
      serviceType: 'DYNAMIC',
      enabled: true,
    });
    expect(Math.abs((seen?.registrationTimeUTC ?? 0) - Date.now())).toBeLessThan(600_000);

    await using cache = new ServiceCache<{ zone: string }>(zk, base, { name: 'api' });
    await using provider = new ServiceProvider(zk, base, { name: 'api' });
    await Promise.all([cache.start({ timeout: 10_000 }), provider.start({ timeout: 10_000 })]);
    expect(cache.instances.map(({ id }) => id)).toEqual(['java-1']);
    expect(provider.getInstance()?.id).toBe('java-1');

    await tell(curator, 'update java-1 {"zone":"b"}', 'updated');
    await eventually(() => expect(cache.instances[0]?.payload).toEqual({ zone: 'b' }));
    await tell(curator, 'unregister java-1', 'unregistered');
    await eventually(() => expect(cache.instances).toEqual([]));
    // The provider follows through a cache of its own, which hears the removal on its own turn.
    await eventually(() => expect(provider.getInstance()).toBeNull());
  });

  it('we register, update, disable, unregister: Curator’s queries, cache and provider follow', async () => {
    const base = `${uniquePath('interop')}/services`;
    const [curator, zk] = await Promise.all([
      startDiscoveryPeer(connectString(), base),
      newClient(),
    ]);
    await using discovery = new ServiceDiscovery(zk, base);
    const instance: ServiceInstance = await discovery.register({
      name: 'api',
      id: 'ts-1',
      address: '10.1.2.3',
      port: 9001,
      payload: { zone: 'b', weight: 2, tags: ['x', 'y'] },
    });
    expect(await askJson(curator, 'names')).toEqual(['api']);
    expect(await askJson(curator, 'instances api')).toEqual([
      {
        name: 'api',
        id: 'ts-1',
        address: '10.1.2.3',
        port: 9001,
        payload: { zone: 'b', weight: 2, tags: ['x', 'y'] },
        enabled: true,
      },
    ]);
    await eventually(async () =>
      expect(await askJson(curator, 'cache api')).toMatchObject([{ id: 'ts-1' }]),
    );
    expect(await askJson(curator, 'provider api')).toBe('ts-1');

    await discovery.update({ ...instance, payload: ['a', 1] });
    expect(await askJson(curator, 'instances api')).toMatchObject([{ payload: ['a', 1] }]);
    await eventually(async () =>
      expect(await askJson(curator, 'cache api')).toMatchObject([{ payload: ['a', 1] }]),
    );
    // Disabled: still registered, never picked by Curator's provider.
    await discovery.update({ ...instance, enabled: false });
    await eventually(async () =>
      expect(await askJson(curator, 'cache api')).toMatchObject([{ enabled: false }]),
    );
    expect(await askJson(curator, 'provider api')).toBeNull();

    await discovery.unregister('ts-1');
    expect(await askJson(curator, 'instances api')).toEqual([]);
    await eventually(async () => expect(await askJson(curator, 'cache api')).toEqual([]));
  });
});
