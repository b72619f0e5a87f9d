// TreeCache staying equal to the server: a randomized workload compared with a fresh read of the
// tree after every step, and sync(): the cache current at once after another client's writes,
// across a lost link, bounded, and reading again a node whose read failed.
import { describe, expect, it } from 'vitest';
import { type Client, ClosedError } from '../../../src/index.js';
import { makeError } from '../../../src/protocol/errors.js';
import { ensurePath, TreeCache } from '../../../src/recipes/index.js';
import { newClient, proxiedClient, recipePath, sleep, until } from './helpers.js';
import { converged, mirror, seededRandom, serverTree, sorted, text } from './tree-cache-mirror.js';

describe('TreeCache equals the server', () => {
  it('equals a fresh read of the tree after every step of a random workload', async () => {
    const { client, proxy } = await proxiedClient();
    const writer = await newClient();
    const root = recipePath('random');
    await ensurePath(writer, root, { containers: false });
    const cache = new TreeCache(client, root);
    await cache.start();
    const random = seededRandom(29);
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
    const random = seededRandom(7);
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
});
