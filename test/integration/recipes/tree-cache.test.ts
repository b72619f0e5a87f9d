// TreeCache against the real server: initial load, events, depth and filter, the iterator, a
// resync after a cut link or a session expiry, reads within the mirrored tree, listeners, and
// the bounds of start() and close(). sync() and the randomized workloads: tree-cache-sync.test.ts.
import { describe, expect, it, vi } from 'vitest';
import { ClosedError, ListenerError, TimeoutError } from '../../../src/index.js';
import { ensurePath, TreeCache, type TreeCacheEvent } from '../../../src/recipes/index.js';
import { recorded, takeSessionAway } from '../../support/integration.js';
import { newClient, proxiedClient, recipePath, sleep, until } from './helpers.js';
import { converged, text } from './tree-cache-mirror.js';

describe('TreeCache', () => {
  it('loads the tree, then reports created, changed and deleted', async () => {
    const [zk, writer] = [await newClient(), await newClient()];
    const root = recipePath('cache');
    await ensurePath(writer, `${root}/a/b`, { containers: false });
    await writer.setData(`${root}/a`, 'one');
    const cache = new TreeCache(zk, root);
    const events = recorded<TreeCacheEvent>((push) => cache.on('event', push));
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
    const events = recorded<TreeCacheEvent>((push) => cache.on('event', push));
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
    const events = recorded<TreeCacheEvent>((push) => cache.on('event', push));
    await cache.start();
    events.length = 0;
    const oldSession = client.sessionId;
    // The server expires the session: cut off, another client resumes it and closes it.
    const thief = await takeSessionAway(client, proxy, { keepAlive: true });
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
