// TreeCache against the real server: initial load, events, depth and filter, the iterator, a
// resync after a cut link, and a randomized workload compared with a fresh read of the tree
// after every step.
import { describe, expect, it } from 'vitest';
import { type Client, connect } from '../../../src/index.js';
import { ensurePath, TreeCache, type TreeCacheEvent } from '../../../src/recipes/index.js';
import { sharedServer } from '../../harness/index.js';
import { newClient, proxiedClient, recipePath, sleep, until } from './helpers.js';

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** The server's tree under `root` as path -> data, read fresh. */
async function serverTree(zk: Client, root: string): Promise<Map<string, string>> {
  const tree = new Map<string, string>();
  const walk = async (path: string) => {
    try {
      const { data } = await zk.getData(path);
      tree.set(path, text(data));
      for (const name of await zk.getChildren(path)) await walk(`${path}/${name}`);
    } catch (error) {
      if ((error as { code?: string }).code !== 'NONODE') throw error;
    }
  };
  await walk(root);
  return tree;
}

function mirror(cache: TreeCache): Map<string, string> {
  return new Map([...cache.entries()].map((node) => [node.path, text(node.data)]));
}

const sorted = (map: Map<string, string>) => [...map].sort(([a], [b]) => a.localeCompare(b));

/** Waits until the mirror equals the server's tree (fails with both after `ms`). */
async function converged(cache: TreeCache, zk: Client, root: string, ms = 5_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const [want, have] = [await serverTree(zk, root), mirror(cache)];
    if (JSON.stringify(sorted(want)) === JSON.stringify(sorted(have))) return;
    if (Date.now() > deadline) expect(sorted(have)).toEqual(sorted(want));
    await sleep(20);
  }
}

describe('TreeCache', () => {
  it('loads the tree, then reports created, changed and deleted', async () => {
    const [zk, writer] = [await newClient(), await newClient()];
    const root = recipePath('cache');
    await ensurePath(writer, `${root}/a/b`, { containers: false });
    await writer.setData(`${root}/a`, 'one');
    const cache = new TreeCache(zk, root);
    const events: TreeCacheEvent[] = [];
    cache.on((event) => events.push(event));
    await cache.start();
    expect(events.map((e) => e.type)).toEqual(['created', 'created', 'created', 'initialized']);
    expect(text(cache.get(`${root}/a`)!.data)).toBe('one');
    expect(cache.childrenOf(root)).toEqual(['a']);
    events.length = 0;
    await writer.create(`${root}/c`, 'new');
    await writer.setData(`${root}/a`, 'two');
    await writer.delete(`${root}/a/b`);
    await until(() => events.length >= 3, 'three events');
    expect(events).toEqual([
      { type: 'created', node: expect.objectContaining({ path: `${root}/c` }) },
      expect.objectContaining({
        type: 'changed',
        node: expect.objectContaining({ path: `${root}/a` }),
      }),
      { type: 'deleted', previous: expect.objectContaining({ path: `${root}/a/b` }) },
    ]);
    expect(text(cache.get(`${root}/a`)!.data)).toBe('two');
    expect(cache.get(`${root}/a/b`)).toBeUndefined();
    await cache.close();
  });

  it('keeps nodes within maxDepth and passing the filter only', async () => {
    const [zk, writer] = [await newClient(), await newClient()];
    const root = recipePath('bounded');
    for (const p of ['a/b/c', 'skip/x', 'k'])
      await ensurePath(writer, `${root}/${p}`, { containers: false });
    const cache = new TreeCache(zk, root, { maxDepth: 2, filter: (p) => !p.endsWith('/skip') });
    await cache.start();
    expect([...cache.entries()].map((n) => n.path.slice(root.length)).sort()).toEqual([
      '',
      '/a',
      '/a/b',
      '/k',
    ]);
    await writer.create(`${root}/a/b/c/deep`);
    await writer.create(`${root}/skip/y`);
    await writer.create(`${root}/k/in`);
    await until(() => cache.get(`${root}/k/in`) !== undefined, 'the node within bounds');
    expect(cache.size).toBe(5);
    await cache.close();
  });

  it('hands events to an async iterator, which ends at close', async () => {
    const [zk, writer] = [await newClient(), await newClient()];
    const root = recipePath('iter');
    await ensurePath(writer, root, { containers: false });
    const cache = new TreeCache(zk, root);
    const events = cache.events();
    await cache.start();
    await writer.create(`${root}/n`, 'x');
    const seen: string[] = [];
    for await (const event of events) {
      seen.push(event.type);
      if (event.type === 'created' && event.node.path === `${root}/n`) await cache.close();
    }
    expect(seen).toEqual(['created', 'initialized', 'created']);
  });

  it('re-reads the tree after a cut link and reports what changed meanwhile, then resync', async () => {
    const { client, proxy } = await proxiedClient();
    const writer = await newClient();
    const root = recipePath('resync');
    await ensurePath(writer, `${root}/gone`, { containers: false });
    await ensurePath(writer, `${root}/stays`, { containers: false });
    const cache = new TreeCache(client, root);
    const events: TreeCacheEvent[] = [];
    cache.on((event) => events.push(event));
    await cache.start();
    events.length = 0;
    proxy.freeze('drop');
    await writer.delete(`${root}/gone`);
    await writer.create(`${root}/added`, 'a');
    await writer.setData(`${root}/stays`, 's');
    proxy.thaw();
    proxy.cut();
    await until(() => events.some((e) => e.type === 'resync'), 'the resync event', 15_000);
    await converged(cache, writer, root);
    expect(events.find((e) => e.type === 'resync')).toEqual({ type: 'resync', cause: 'reconnect' });
    await cache.close();
  });

  it('after a session expiry: re-reads on the new session, reports what changed, then resync (renewal), once', async () => {
    const { client, proxy } = await proxiedClient({ sessionTimeout: 4_000 });
    const writer = await newClient();
    const root = recipePath('renewal');
    await ensurePath(writer, `${root}/gone`, { containers: false });
    const cache = new TreeCache(client, root);
    const events: TreeCacheEvent[] = [];
    cache.on((event) => events.push(event));
    await cache.start();
    events.length = 0;
    const oldSession = client.sessionId;
    // The server expires the session: cut off, another client resumes it and closes it.
    proxy.refuse(true);
    proxy.cut();
    await until(() => client.state === 'suspended', 'suspended');
    const thief = await connect(sharedServer().connectString, {
      session: { id: client.sessionId, password: client.sessionPassword },
      renewSession: false,
    });
    await thief.close();
    await writer.delete(`${root}/gone`);
    await writer.create(`${root}/added`, 'a');
    proxy.refuse(false);
    await until(() => events.some((e) => e.type === 'resync'), 'the resync event', 15_000);
    expect(client.sessionId).not.toBe(oldSession);
    await converged(cache, writer, root);
    await sleep(300);
    expect(events.filter((e) => e.type === 'resync')).toEqual([
      { type: 'resync', cause: 'renewal' },
    ]);
    // And it follows changes on the new session.
    await writer.setData(`${root}/added`, 'b');
    await converged(cache, writer, root);
    await cache.close();
  });

  it('equals a fresh read of the tree after every step of a random workload', async () => {
    const { client, proxy } = await proxiedClient();
    const writer = await newClient();
    const root = recipePath('random');
    await ensurePath(writer, root, { containers: false });
    const cache = new TreeCache(client, root);
    await cache.start();
    let seed = 29;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const names = ['a', 'b', 'c'];
    let applied = 0; // steps the server accepted (the rest hit NONODE, NODEEXISTS, NOTEMPTY)
    for (let step = 0; step < 80; step++) {
      // Work near the nodes that exist, so that most steps change something.
      const known = [...(await serverTree(writer, root)).keys()];
      const near = known[random(known.length)]!;
      const action = random(10);
      try {
        if (action < 4) {
          if (near.length - root.length < 6)
            await writer.create(`${near}/${names[random(3)]}`, `v${step}`);
          else await writer.setData(near, `v${step}`);
        } else if (action < 7) await writer.setData(near, `v${step}`);
        else if (action < 9 && near !== root) await writer.delete(near);
        else proxy.cut(); // a reconnect: the cache resyncs
        applied++;
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (!['NONODE', 'NODEEXISTS', 'NOTEMPTY'].includes(code ?? '')) throw error;
      }
      await converged(cache, writer, root, 10_000);
    }
    expect(applied).toBeGreaterThan(40);
    await cache.close();
  }, 120_000);
});
