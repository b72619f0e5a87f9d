// The queues on the real server: kazoo's LockingQueue layout (entries taken under an ephemeral
// lock, deleted only when consumed, given back when the consumer's session ends), kazoo's and
// Curator's lock-less layouts, and the interleavings that lose replies: a put's, a take's lock
// create, a consume's transaction, a lock-less take's delete.
import { describe, expect, it } from 'vitest';
import {
  type Client,
  ClosedError,
  CreateMode,
  TimeoutError,
  ZooKeeperError,
} from '../../../src/index.js';
import { LeaseReleasedError, LockLostError } from '../../../src/locks/index.js';
import type { RecipeClient } from '../../../src/recipes/index.js';
import {
  DistributedQueue,
  decodeCuratorItems,
  encodeCuratorItems,
  ensurePath,
  LockingQueue,
} from '../../../src/recipes/index.js';
import { cutAndPeer, expireSession, newClient, recipePath } from './helpers.js';

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const lost = () => new ZooKeeperError('CONNECTIONLOSS', 'simulated: reply lost');

/** `client` with some of its members replaced (to lose a reply after the server applied it). */
function withOverrides(client: Client, overrides: Partial<RecipeClient>): RecipeClient {
  return new Proxy(client, {
    get(target, property, receiver) {
      const replaced = (overrides as Record<PropertyKey, unknown>)[property];
      if (replaced !== undefined) return replaced;
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as RecipeClient;
}

describe('LockingQueue', () => {
  it("takes by priority then age, in kazoo's node names; consume deletes the entry and its lock", async () => {
    const zk = await newClient();
    const path = recipePath('jobs');
    await using queue = new LockingQueue(zk, path);
    await queue.put('a');
    await queue.put(new Uint8Array([1, 2, 3]), { priority: 5 });
    await queue.putAll(['c', 'd']);
    expect(await queue.size()).toBe(4);
    const names = (await zk.getChildren(`${path}/entries`)).sort();
    expect(names.map((name) => name.replace(/\d{10}$/, 'N'))).toEqual([
      'entry-005-N',
      'entry-100-N',
      'entry-100-N',
      'entry-100-N',
    ]);

    const first = await queue.take({ timeout: 5_000 });
    expect([...first.data]).toEqual([1, 2, 3]);
    expect(first.priority).toBe(5);
    const lock = await zk.getData(`${path}/taken/${first.name}`);
    expect(text(lock.data)).toBe(queue.id);
    expect(queue.id).toMatch(/^[0-9a-f]{32}$/);
    expect(lock.stat.ephemeralOwner).toBe(zk.sessionId);
    expect(await first.holds()).toBe(true);
    await first.consume();
    expect(first.signal.reason).toBeInstanceOf(LeaseReleasedError);
    expect(await zk.exists(first.path)).toBeNull();
    expect(await zk.exists(first.lockPath)).toBeNull();
    expect(await first.holds()).toBe(false);

    const taken = [];
    for (let i = 0; i < 3; i++) taken.push(await queue.take({ timeout: 5_000 }));
    expect(taken.map((entry) => entry.text())).toEqual(['a', 'c', 'd']);
    expect(queue.taken()).toHaveLength(3);
    await Promise.all(taken.map((entry) => entry.consume()));
    expect(await queue.size()).toBe(0);
    // Only the put markers' directory is ours; the last put's marker goes at close.
    await queue.close();
    expect(await zk.getChildren(`${path}/puts`)).toEqual([]);
  });

  it('an entry taken by a consumer whose client closes goes back to the queue', async () => {
    const [a, b] = [await newClient(), await newClient()];
    const path = recipePath('dies');
    const producer = new LockingQueue(b, path);
    await producer.put('job');
    const entry = await new LockingQueue(a, path).take({ timeout: 5_000 });
    const other = new LockingQueue(b, path);
    // Held: another consumer finds nothing free.
    expect(await other.tryTake()).toBeNull();
    await a.close();
    expect(entry.signal.reason).toBeInstanceOf(LockLostError);
    const again = await other.take({ timeout: 10_000 });
    expect(again.text()).toBe('job');
    await again.consume();
    await Promise.all([producer.close(), other.close()]);
  });

  it('a renewal loses the entries of the old session: consume rejects, another consumer takes it', async () => {
    const { client, proxy, peer: b, path } = await cutAndPeer('renewal', { sessionTimeout: 4_000 });
    await new LockingQueue(b, path).put('job');
    const queue = new LockingQueue(client, path);
    const entry = await queue.take({ timeout: 5_000 });
    await expireSession(client, proxy);
    expect(entry.signal.reason).toBeInstanceOf(LockLostError);
    await expect(entry.consume()).rejects.toBeInstanceOf(LockLostError);
    expect(await b.exists(entry.path)).not.toBeNull();
    // The queue goes on on the new session: the entry is free again.
    const again = await queue.take({ timeout: 10_000 });
    expect(again.name).toBe(entry.name);
    await again.consume();
    await queue.close();
  }, 60_000);

  it('release gives an entry back; `await using` gives back one whose work threw', async () => {
    const zk = await newClient();
    const path = recipePath('release');
    await using queue = new LockingQueue(zk, path);
    await queue.put('x');
    const entry = await queue.take({ timeout: 5_000 });
    await entry.release();
    await entry.release();
    expect(await entry.holds()).toBe(false);
    await expect(entry.consume()).rejects.toBeInstanceOf(LeaseReleasedError);
    const work = async () => {
      await using taken = await queue.take({ timeout: 5_000 });
      expect(taken.text()).toBe('x');
      throw new Error('the work failed');
    };
    await expect(work()).rejects.toThrow('the work failed');
    expect(await zk.getChildren(`${path}/taken`)).toEqual([]);
    const last = await queue.take({ timeout: 5_000 });
    await last.consume();
  });

  it('take waits for a put; times out with TimeoutError, aborts with the reason, closes with ClosedError', async () => {
    const [a, b] = [await newClient(), await newClient()];
    const path = recipePath('waits');
    const queue = new LockingQueue(a, path);
    await expect(queue.take({ timeout: 50 })).rejects.toBeInstanceOf(TimeoutError);
    const controller = new AbortController();
    const aborted = queue.take({ signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(aborted).rejects.toThrow('stop');
    const waiting = queue.take({ timeout: 10_000 });
    await new LockingQueue(b, path).put('late');
    expect((await waiting).text()).toBe('late');
    const pending = expect(queue.take()).rejects.toBeInstanceOf(ClosedError);
    await queue.close();
    await pending;
    await expect(queue.take()).rejects.toBeInstanceOf(ClosedError);
    // close() gave back the entry it held.
    expect(await a.getChildren(`${path}/taken`)).toEqual([]);
    expect(await new LockingQueue(b, path).size()).toBe(1);
  });

  it('a put whose reply was lost is found by its marker: put once, whether it applied or not', async () => {
    const zk = await newClient();
    const path = recipePath('lost-put');
    let mode: 'applied' | 'not-applied' | 'pass' = 'applied';
    const client = withOverrides(zk, {
      multi: async (ops, options) => {
        const now = mode;
        mode = 'pass';
        if (now === 'not-applied') throw lost();
        const results = await zk.multi(ops, options);
        if (now === 'applied') throw lost();
        return results;
      },
    });
    const queue = new LockingQueue(client, path);
    await queue.put('once');
    expect(await queue.size()).toBe(1);
    mode = 'not-applied';
    await queue.put('twice');
    expect(await queue.size()).toBe(2);
    const entries = [await queue.take(), await queue.take()];
    expect(entries.map((entry) => entry.text())).toEqual(['once', 'twice']);
    await queue.close();
    expect(await zk.getChildren(`${path}/puts`)).toEqual([]);
  });

  it('a take whose lock create reply was lost finds its own lock; a consume whose reply was lost is settled', async () => {
    const zk = await newClient();
    const path = recipePath('lost-take');
    let loseCreate = true;
    let loseMulti = false;
    const client = withOverrides(zk, {
      create2: async (p, data, options) => {
        const result = await zk.create2(p, data, options);
        if (loseCreate && p.includes('/taken/')) {
          loseCreate = false;
          throw lost();
        }
        return result;
      },
      multi: async (ops, options) => {
        const results = await zk.multi(ops, options);
        if (loseMulti) {
          loseMulti = false;
          throw lost();
        }
        return results;
      },
    });
    const queue = new LockingQueue(client, path);
    await queue.put('job');
    const entry = await queue.take({ timeout: 5_000 });
    expect(entry.text()).toBe('job');
    expect(await entry.holds()).toBe(true);
    loseMulti = true;
    await entry.consume();
    expect(loseMulti).toBe(false);
    expect(await zk.exists(entry.path)).toBeNull();
    expect(await queue.size()).toBe(0);
    await queue.close();
  });

  it('three consumers take 30 items: each consumed exactly once', async () => {
    const clients = [await newClient(), await newClient(), await newClient()];
    const path = recipePath('many');
    const producer = new LockingQueue(clients[0]!, path);
    await producer.putAll(Array.from({ length: 30 }, (_, i) => `item-${i}`));
    const seen: string[] = [];
    await Promise.all(
      clients.map(async (client) => {
        const queue = new LockingQueue(client, path);
        for (let entry = await queue.tryTake(); entry; entry = await queue.tryTake()) {
          seen.push(entry.text());
          await entry.consume();
        }
        await queue.close();
      }),
    );
    expect(seen.sort()).toEqual(Array.from({ length: 30 }, (_, i) => `item-${i}`).sort());
    await producer.close();
  });

  it('refuses bad arguments before sending anything', async () => {
    const zk = await newClient();
    expect(() => new LockingQueue(zk, 'relative')).toThrow(/invalid path/);
    expect(() => new LockingQueue(zk, '/q', { id: '' })).toThrow(/id/);
    const queue = new LockingQueue(zk, recipePath('bad'));
    await expect(queue.put('x', { priority: 1000 })).rejects.toThrow(/priority/);
    await expect(queue.put('x', { priority: 1.5 })).rejects.toThrow(/priority/);
    await expect(queue.take({ timeout: -1 })).rejects.toThrow(/timeout/);
  });
});

describe('DistributedQueue', () => {
  it.each([
    ['kazoo', /^entry-100-\d{10}$/],
    ['curator', /^queue-\d{10}$/],
    ['curator-simple', /^qn-\d{10}$/],
  ] as const)("layout %s: first in, first out, in that layout's names", async (layout, name) => {
    const zk = await newClient();
    const path = recipePath(`simple-${layout}`);
    await using queue = new DistributedQueue(zk, path, { layout });
    await queue.put('one');
    await queue.putAll(['two', 'three']);
    const children = await zk.getChildren(path);
    expect(children).toHaveLength(3);
    for (const child of children) expect(child).toMatch(name);
    const { data } = await zk.getData(`${path}/${children.sort()[0]}`);
    if (layout === 'curator') {
      expect(decodeCuratorItems(data)?.map(text)).toEqual(['one']);
    } else expect(text(data)).toBe('one');
    expect(await queue.size()).toBe(3);
    const taken = [await queue.take(), await queue.take(), await queue.take({ timeout: 1_000 })];
    expect(taken.map(text)).toEqual(['one', 'two', 'three']);
    expect(await queue.tryTake()).toBeNull();
    expect(await zk.getChildren(path)).toEqual([]);
  });

  it('kazoo layout: priority orders the entries; other layouts refuse a priority', async () => {
    const zk = await newClient();
    const path = recipePath('priority');
    const queue = new DistributedQueue(zk, path, { layout: 'kazoo' });
    await queue.put('later', { priority: 900 });
    await queue.put('sooner', { priority: 1 });
    expect(text(await queue.take())).toBe('sooner');
    expect(text(await queue.take())).toBe('later');
    const curator = new DistributedQueue(zk, path, { layout: 'curator' });
    await expect(curator.put('x', { priority: 1 })).rejects.toThrow(/kazoo layout/);
  });

  it("Curator's node of several items is taken one item at a time; a node not in its framing is dropped and reported", async () => {
    const zk = await newClient();
    const path = recipePath('multi-item');
    const queue = new DistributedQueue(zk, path, { layout: 'curator' });
    await ensurePath(zk, path);
    const enc = new TextEncoder();
    await zk.create(`${path}/queue-`, encodeCuratorItems([enc.encode('x'), enc.encode('y')]), {
      mode: CreateMode.PERSISTENT_SEQUENTIAL,
    });
    expect(text(await queue.take())).toBe('x');
    const [node] = await zk.getChildren(path);
    expect(decodeCuratorItems((await zk.getData(`${path}/${node}`)).data)?.map(text)).toEqual([
      'y',
    ]);
    expect(text(await queue.take())).toBe('y');
    const errors: Error[] = [];
    queue.on('error', (error) => errors.push(error));
    await zk.create(`${path}/queue-`, 'not framed', { mode: CreateMode.PERSISTENT_SEQUENTIAL });
    await queue.put('z');
    expect(text(await queue.take())).toBe('z');
    expect(errors.map((error) => error.message)).toEqual([
      expect.stringMatching(/not in Curator's framing/),
    ]);
    expect(await zk.getChildren(path)).toEqual([]);
  });

  it('a take whose delete reply was lost returns its item; close ends a waiting take', async () => {
    const zk = await newClient();
    const path = recipePath('lost-delete');
    let lose = true;
    const client = withOverrides(zk, {
      delete: async (p, version, options) => {
        await zk.delete(p, version, options);
        if (lose) {
          lose = false;
          throw lost();
        }
      },
    });
    const queue = new DistributedQueue(client, path, { layout: 'curator-simple' });
    await queue.put('kept');
    expect(text(await queue.take({ timeout: 5_000 }))).toBe('kept');
    expect(lose).toBe(false);
    await expect(queue.take({ timeout: 50 })).rejects.toBeInstanceOf(TimeoutError);
    const waiting = expect(queue.take()).rejects.toBeInstanceOf(ClosedError);
    await queue.close();
    await waiting;
    await expect(queue.put('x')).rejects.toBeInstanceOf(ClosedError);
    expect(() => new DistributedQueue(zk, path, { layout: 'x' as never })).toThrow(/layout/);
  });
});
