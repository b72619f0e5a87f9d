// TreeCache against the real server: initial load, events, depth and filter, the iterator, a
// resync after a cut link, a randomized workload compared with a fresh read of the tree after
// every step, and sync(): the cache current at once after another client's writes.
import { describe, expect, it, vi } from 'vitest';
import {
  type Client,
  ClosedError,
  connect,
  ListenerError,
  TimeoutError,
} from '../../../src/index.js';
import { makeError } from '../../../src/protocol/errors.js';
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
    cache.on('event', (event) => events.push(event));
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
    cache.on('event', (event) => events.push(event));
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
    cache.on('event', (event) => events.push(event));
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

  it('sync(): after another client writes, the cache equals a fresh read of the tree at once, every time', async () => {
    const [zk, writer] = [await newClient(), await newClient()];
    const root = recipePath('sync');
    await ensurePath(writer, root, { containers: false });
    const cache = new TreeCache(zk, root);
    await cache.start();
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const names = ['a', 'b', 'c', 'd'];
    let changed = 0;
    for (let round = 0; round < 40; round++) {
      const known = [...(await serverTree(writer, root)).keys()];
      // A burst of writes sent together (their events come in one batch), on several levels.
      const writes = Array.from({ length: 12 }, (_, i) => {
        const near = known[random(known.length)]!;
        const action = random(3);
        if (action === 0 && near.split('/').length - root.split('/').length < 4) {
          return writer.create(`${near}/${names[random(4)]}`, `r${round}.${i}`);
        }
        if (action === 1 && near !== root) return writer.delete(near);
        return writer.setData(near, `r${round}.${i}`);
      });
      const settled = await Promise.allSettled(writes);
      changed += settled.filter((r) => r.status === 'fulfilled').length;
      await cache.sync({ timeout: 10_000 });
      expect(sorted(mirror(cache))).toEqual(sorted(await serverTree(writer, root)));
    }
    expect(changed).toBeGreaterThan(200);
    await cache.close();
  }, 120_000);

  it('sync() waits out a lost link: the resync of the reconnect is in the cache when it resolves', async () => {
    const { client, proxy } = await proxiedClient();
    const writer = await newClient();
    const root = recipePath('sync-cut');
    await ensurePath(writer, `${root}/gone`, { containers: false });
    const cache = new TreeCache(client, root);
    await cache.start();
    proxy.freeze('drop');
    await writer.delete(`${root}/gone`);
    await writer.create(`${root}/added`, 'a');
    const syncing = cache.sync({ timeout: 15_000 });
    await sleep(100);
    proxy.thaw();
    proxy.cut();
    await syncing;
    expect(sorted(mirror(cache))).toEqual(sorted(await serverTree(writer, root)));
    expect(cache.get(`${root}/added`)).toBeDefined();
    await cache.close();
  }, 30_000);

  it('sync() is bounded: TimeoutError after its timeout, the reason when its signal aborts, ClosedError when the cache closes', async () => {
    const { client, proxy } = await proxiedClient();
    const root = recipePath('sync-bounds');
    await ensurePath(client, root, { containers: false });
    const unstarted = new TreeCache(client, root);
    await expect(unstarted.sync()).rejects.toMatchObject({ code: 'BADARGUMENTS' });
    const cache = new TreeCache(client, root);
    await cache.start();
    await expect(cache.sync({ timeout: -1 })).rejects.toMatchObject({ code: 'BADARGUMENTS' });
    proxy.freeze('drop');
    const started = Date.now();
    await expect(cache.sync({ timeout: 300 })).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(Date.now() - started).toBeLessThan(3_000);
    const stop = new AbortController();
    const aborted = cache.sync({ signal: stop.signal });
    const reason = new Error('enough');
    stop.abort(reason);
    await expect(aborted).rejects.toBe(reason);
    const closedMeanwhile = cache.sync();
    const closing = cache.close();
    await expect(closedMeanwhile).rejects.toBeInstanceOf(ClosedError);
    proxy.thaw();
    await closing;
    await expect(cache.sync()).rejects.toMatchObject({ code: 'CLOSED' });
  }, 30_000);

  it('sync() lets every event that came before the reply reach the cache, however many promise steps the iterator takes', async () => {
    const [zk, writer] = [await newClient(), await newClient()];
    const root = recipePath('sync-slow');
    await ensurePath(writer, root, { containers: false });
    // The real client, but its watch iterator hands each event on 200 promise steps later.
    const slow = new Proxy(zk, {
      get(target, prop) {
        if (prop === 'watch') {
          return (path: string, options: Parameters<Client['watch']>[1]) => {
            const inner = target.watch(path, options);
            const iterator: ReturnType<Client['watch']> = {
              ready: inner.ready,
              async next() {
                const result = await inner.next();
                for (let i = 0; i < 200; i++) await null;
                return result;
              },
              return: () => inner.return!(),
              [Symbol.asyncIterator]: () => iterator,
            };
            return iterator;
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const cache = new TreeCache(slow, root);
    await cache.start();
    for (let round = 0; round < 10; round++) {
      await Promise.all(
        ['a', 'b', 'c', 'd', 'e'].map((name) => writer.create(`${root}/${round}-${name}`, 'x')),
      );
      await cache.sync({ timeout: 10_000 });
      expect(sorted(mirror(cache))).toEqual(sorted(await serverTree(writer, root)));
    }
    await cache.close();
  }, 60_000);

  it('sync() reads again a node whose read failed without a reconnect (a request given up), before or during the call', async () => {
    const [zk, writer] = [await newClient(), await newClient()];
    const root = recipePath('sync-failed');
    await ensurePath(writer, `${root}/n`, { containers: false });
    let fail: 'at once' | 'later' | undefined;
    let failed = 0;
    const flaky = new Proxy(zk, {
      get(target, prop) {
        if (prop === 'getData') {
          return (path: string, options?: Parameters<Client['getData']>[1]) => {
            const how = path === `${root}/n` ? fail : undefined;
            if (how === undefined) return target.getData(path, options);
            fail = undefined;
            const error = makeError('REQUESTTIMEOUT', 'given up (injected)');
            // 'later': given up a while after, as a request timeout does, while sync() waits.
            const wait = how === 'later' ? sleep(200) : Promise.resolve();
            return wait.then(() => {
              failed++;
              throw error;
            });
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const cache = new TreeCache(flaky, root);
    await cache.start();
    // The read fails before sync() is called.
    fail = 'at once';
    await writer.setData(`${root}/n`, 'one');
    await until(() => failed === 1, 'the failed read');
    await cache.sync({ timeout: 10_000 });
    expect(text(cache.get(`${root}/n`)!.data)).toBe('one');
    // The read fails while sync() waits for it.
    fail = 'later';
    await writer.setData(`${root}/n`, 'two');
    await cache.sync({ timeout: 10_000 });
    expect(failed).toBe(2);
    expect(text(cache.get(`${root}/n`)!.data)).toBe('two');
    await cache.close();
  });

  it('reads again by itself a node whose read failed without a reconnect (a request given up): no later event or sync() needed', async () => {
    const [zk, writer] = [await newClient(), await newClient()];
    const root = recipePath('reread-failed');
    await ensurePath(writer, `${root}/n`, { containers: false });
    let failNext = false;
    let failed = 0;
    const flaky = new Proxy(zk, {
      get(target, prop) {
        if (prop === 'getData') {
          return (path: string, options?: Parameters<Client['getData']>[1]) => {
            if (!(failNext && path === `${root}/n`)) return target.getData(path, options);
            failNext = false;
            failed++;
            return Promise.reject(makeError('REQUESTTIMEOUT', 'given up (injected)'));
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const cache = new TreeCache(flaky, root);
    await cache.start();
    failNext = true;
    await writer.setData(`${root}/n`, 'one');
    await until(() => failed === 1, 'the failed read');
    await until(() => text(cache.get(`${root}/n`)!.data) === 'one', 'the node read again');
    await cache.close();
  });

  it('get()/childrenOf(): BADARGUMENTS outside the mirrored tree, undefined for a missing node, [] for no children', async () => {
    const [zk, writer] = [await newClient(), await newClient()];
    const root = recipePath('scope');
    await ensurePath(writer, `${root}/a/deep`, { containers: false });
    await ensurePath(writer, `${root}/skip`, { containers: false });
    const cache = new TreeCache(zk, root, {
      maxDepth: 1,
      filter: (path) => !path.endsWith('/skip'),
    });
    await cache.start();
    const refused = expect.objectContaining({ code: 'BADARGUMENTS' });
    // Outside the root (a sibling sharing its prefix too), below maxDepth, rejected by the filter.
    for (const path of ['/elsewhere', `${root}x`, `${root}/a/deep`, `${root}/skip`]) {
      expect(() => cache.get(path), path).toThrow(refused);
    }
    // Children at depth 2 are not mirrored: no answer for them either.
    for (const path of ['/elsewhere', `${root}/a`, `${root}/skip`]) {
      expect(() => cache.childrenOf(path), path).toThrow(refused);
    }
    expect(cache.childrenOf(root)).toEqual(['a']);
    expect(cache.get(`${root}/missing`)).toBeUndefined();
    await writer.delete(`${root}/a/deep`);
    await writer.delete(`${root}/a`);
    await cache.sync({ timeout: 10_000 });
    expect(cache.childrenOf(root)).toEqual([]);
    await writer.delete(`${root}/skip`);
    await writer.delete(root);
    await cache.sync({ timeout: 10_000 });
    expect(cache.childrenOf(root)).toBeUndefined();
    await cache.close();
  });

  it('a listener that throws goes to the error listeners as a ListenerError; the cache and the other listeners carry on', async () => {
    const [zk, writer] = [await newClient(), await newClient()];
    const root = recipePath('throwing');
    await ensurePath(writer, root, { containers: false });
    await using cache = new TreeCache(zk, root);
    const errors: Error[] = [];
    const heard: string[] = [];
    cache.on('error', (error) => errors.push(error));
    cache.on('event', () => {
      throw new Error('listener bug');
    });
    cache.on('created', async () => {
      throw new Error('async listener bug');
    });
    cache.on('event', (event) => heard.push(event.type));
    await cache.start();
    await writer.create(`${root}/a`, 'x');
    await until(() => heard.length === 3, 'the events after the throwing listener');
    expect(heard).toEqual(['created', 'initialized', 'created']);
    await until(() => errors.length === 5, 'every failure reported');
    expect(errors.every((error) => error instanceof ListenerError)).toBe(true);
    expect(errors.map((error) => (error as ListenerError).event).sort()).toEqual([
      'created',
      'created',
      'event',
      'event',
      'event',
    ]);
    await cache.sync({ timeout: 10_000 });
    expect(cache.childrenOf(root)).toEqual(['a']);
  });

  it('a listener that throws with no error listener is written to console.error, never thrown', async () => {
    const [zk, writer] = [await newClient(), await newClient()];
    const root = recipePath('throwing-unheard');
    await ensurePath(writer, root, { containers: false });
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      await using cache = new TreeCache(zk, root);
      cache.on('initialized', () => {
        throw new Error('listener bug');
      });
      await cache.start();
      expect(logged).toHaveBeenCalledTimes(1);
      expect(logged.mock.calls[0]![1]).toBeInstanceOf(ListenerError);
    } finally {
      logged.mockRestore();
    }
  });

  it('on(kind) hears only that kind, and its unsubscribe stops it', async () => {
    const [zk, writer] = [await newClient(), await newClient()];
    const root = recipePath('kinds');
    await ensurePath(writer, `${root}/a`, { containers: false });
    await using cache = new TreeCache(zk, root);
    const changed: string[] = [];
    const all: string[] = [];
    const off = cache.on('changed', ({ node, previous }) =>
      changed.push(`${text(previous.data)}->${text(node.data)}`),
    );
    cache.on('event', (event) => all.push(event.type));
    await cache.start();
    await writer.setData(`${root}/a`, 'one');
    await until(() => changed.length === 1, 'the change');
    off();
    await writer.setData(`${root}/a`, 'two');
    await until(() => all.filter((type) => type === 'changed').length === 2, 'the next change');
    expect(changed).toEqual(['->one']);
    expect(() => cache.on('nothing' as 'event', () => {})).toThrow(/unknown event/);
  });

  it('start() is bounded by its timeout and signal, keeps loading in the background, and waits for one outcome', async () => {
    const { client, proxy } = await proxiedClient();
    const writer = await newClient();
    const root = recipePath('start-bounds');
    await ensurePath(writer, `${root}/a`, { containers: false });
    proxy.freeze('drop');
    const cache = new TreeCache(client, root);
    const events: string[] = [];
    cache.on('event', (event) => events.push(event.type));
    const started = Date.now();
    await expect(cache.start({ timeout: 300 })).rejects.toBeInstanceOf(TimeoutError);
    expect(Date.now() - started).toBeLessThan(3_000);
    const stop = new AbortController();
    const aborted = cache.start({ signal: stop.signal });
    stop.abort(new Error('enough'));
    await expect(aborted).rejects.toThrow('enough');
    // The load goes on: once the link is back, a later start() resolves with it.
    const later = cache.start({ timeout: 15_000 });
    proxy.thaw();
    proxy.cut();
    await later;
    expect(events.filter((type) => type === 'initialized')).toHaveLength(1);
    expect(cache.childrenOf(root)).toEqual(['a']);
    await cache.close();
  }, 30_000);

  it('close(): the same promise each call, a start() waiting rejects with ClosedError, and so does one after it', async () => {
    const { client, proxy } = await proxiedClient();
    const root = recipePath('close-start');
    await ensurePath(client, root, { containers: false });
    proxy.freeze('drop');
    const cache = new TreeCache(client, root);
    const waiting = cache.start();
    const closing = cache.close();
    expect(cache.close()).toBe(closing);
    await expect(waiting).rejects.toBeInstanceOf(ClosedError);
    proxy.thaw();
    await closing;
    await expect(cache.start()).rejects.toBeInstanceOf(ClosedError);
    let kept: TreeCache | undefined;
    {
      await using disposed = new TreeCache(client, root);
      await disposed.start();
      kept = disposed;
    }
    await expect(kept.sync()).rejects.toBeInstanceOf(ClosedError);
  }, 30_000);
});
