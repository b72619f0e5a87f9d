// A recipe's wait joins the caller's signal, its timeout and its object's close (or retry
// policy's signal) in one Bound on a shared timer (issue 41): no AbortSignal.any per wait, no
// AbortController where the wait has one signal to hand on, and no listener left on any of the
// signals once the wait is over. Counted, not assumed: the library's AbortSignal.any and
// AbortController calls are counted (test/support/signal-census.ts) and the signals' listeners
// are read as the runtime sees them, on real Clients of the in-process server.
import { getEventListeners } from 'node:events';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { deadlinesOf } from '../../../src/coordination/deadline.js';
import { LeaderSelector, Mutex } from '../../../src/locks/index.js';
import {
  DistributedAtomicLong,
  DistributedBarrier,
  DistributedDoubleBarrier,
  DistributedQueue,
  PersistentNode,
  TimeLease,
  TreeCache,
} from '../../../src/recipes/index.js';
import { within } from '../../../src/recipes/membership-view.js';
import { startServer, type TestServer } from '../../../src/testing/index.js';
import { signalCensus } from '../../support/signal-census.js';
import { waitFor } from '../../support/wait.js';

let server: TestServer;
let client: Client;
let census: ReturnType<typeof signalCensus> | undefined;
let paths = 0;
const path = () => `/joined-${++paths}`;
const open: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  server = await startServer({ listen: false });
  client = await Client.connect(server.connectString, { transport: server.transportFor('c') });
});
afterEach(async () => {
  census?.stop();
  census = undefined;
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

/** The listeners on `signal` (the runtime's count). */
const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

/** A private signal of `object`, read for its listeners only. */
function own(object: object, field: string): AbortSignal {
  return (object as unknown as Record<string, AbortController>)[field]!.signal;
}

describe('TreeCache.sync', () => {
  async function started(on = client): Promise<TreeCache> {
    const cache = new TreeCache(on, path());
    open.push(cache);
    await cache.start();
    return cache;
  }

  it('with no options hands on the cache close signal: no AbortSignal.any, no AbortController', async () => {
    const cache = await started();
    const before = listeners(own(cache, 'stop')); // the cache's own, for its whole life
    census = signalCensus();
    await cache.sync();
    expect({ joined: census.joined(), controllers: census.controllers() }).toEqual({
      joined: 0,
      controllers: 0,
    });
    expect(listeners(own(cache, 'stop'))).toBe(before);
  });

  it('with a timeout and a signal makes no AbortSignal.any, no AbortController, leaves no listener', async () => {
    const cache = await started();
    const caller = new AbortController();
    const before = listeners(own(cache, 'stop'));
    census = signalCensus();
    await cache.sync({ timeout: 600_000, signal: caller.signal });
    expect(census.joined()).toBe(0);
    // The bound itself stops the sync request (no AbortSignal made per wait to hand on).
    expect(census.controllers()).toBe(0);
    expect(listeners(caller.signal)).toBe(0);
    expect(listeners(own(cache, 'stop'))).toBe(before);
  });

  it('a timeout rejects with the TimeoutError at its time, and the late reply is still consumed', async () => {
    const stuck = await Client.connect(server.connectString, {
      transport: server.transportFor('slow-sync'),
    });
    open.push(stuck);
    const cache = await started(stuck);
    census = signalCensus();
    // Replies come 300 ms late: well past the timeout, well within the session's ping timeout.
    server.delayReplies(300, { client: 'slow-sync' });
    const began = performance.now();
    const error = await cache.sync({ timeout: 50 }).catch((e: unknown) => e);
    expect(performance.now() - began).toBeGreaterThanOrEqual(49);
    expect(error).toMatchObject({ name: 'TimeoutError', timeout: 50 });
    expect(census.controllers()).toBe(0);
    expect(deadlinesOf(stuck).size).toBe(0);
    // The sync request given up was written: its reply, once it comes, is read in order and the
    // next call on the same session gets its own reply.
    await expect(stuck.exists('/')).resolves.not.toBeNull();
    server.delayReplies(0, { client: 'slow-sync' });
    await cache.sync({ timeout: 600_000 });
  });

  it('still ends with the cache close, with its ClosedError', async () => {
    const stuck = await Client.connect(server.connectString, {
      transport: server.transportFor('stuck'),
    });
    open.push(stuck);
    const cache = await started(stuck);
    server.delayReplies(600_000, { client: 'stuck' });
    const outcome = cache.sync({ timeout: 600_000 }).catch((error: unknown) => error);
    await cache.close();
    server.delayReplies(0, { client: 'stuck' });
    expect((await outcome) as Error).toMatchObject({ name: 'ClosedError' });
  });
});

describe('DistributedDoubleBarrier', () => {
  it('enter and leave with a signal and a timeout make no AbortSignal.any, no AbortController, leave no listener', async () => {
    const barrier = new DistributedDoubleBarrier(client, path(), { memberQty: 1 });
    open.push(barrier);
    const caller = new AbortController();
    const before = listeners(own(barrier, 'closing'));
    census = signalCensus();
    await barrier.enter({ signal: caller.signal, timeout: 600_000 });
    await barrier.leave({ signal: caller.signal });
    expect(census.joined()).toBe(0);
    expect(census.controllers()).toBe(0);
    expect(listeners(caller.signal)).toBe(0);
    expect(listeners(own(barrier, 'closing'))).toBe(before);
  });

  it('with no options hands on the barrier close signal: no AbortController', async () => {
    const barrier = new DistributedDoubleBarrier(client, path(), { memberQty: 1 });
    open.push(barrier);
    census = signalCensus();
    await barrier.enter();
    await barrier.leave();
    expect({ joined: census.joined(), controllers: census.controllers() }).toEqual({
      joined: 0,
      controllers: 0,
    });
  });

  it('a signal aborted during enter rejects with its reason', async () => {
    const barrier = new DistributedDoubleBarrier(client, path(), { memberQty: 2 });
    open.push(barrier);
    const caller = new AbortController();
    const entering = barrier.enter({ signal: caller.signal }).catch((error: unknown) => error);
    const reason = new Error('stop');
    caller.abort(reason);
    expect(await entering).toBe(reason);
    expect(listeners(caller.signal)).toBe(0);
  });
});

describe('DistributedAtomicLong', () => {
  it('a change with a timeout under a policy signal makes no AbortSignal.any, no AbortController, leaves no listener', async () => {
    const policySignal = new AbortController().signal;
    const counter = new DistributedAtomicLong(client, path(), { retry: { signal: policySignal } });
    const caller = new AbortController();
    census = signalCensus();
    await counter.increment({ timeout: 600_000, signal: caller.signal });
    expect(census.joined()).toBe(0);
    expect(census.controllers()).toBe(0);
    expect(listeners(caller.signal)).toBe(0);
    expect(listeners(policySignal)).toBe(0);
  });
});

describe("the client's one timer", () => {
  it('a recipe wait with a timeout is on its client timer while it waits, and off it after', async () => {
    const barrier = new DistributedBarrier(client, path());
    await barrier.raise();
    const timer = deadlinesOf(client);
    const before = timer.size;
    const waiting = barrier.wait({ timeout: 600_000 });
    expect(timer.size).toBe(before + 1);
    await barrier.lower();
    await waiting;
    expect(timer.size).toBe(before);
  });

  it("a recipe's start() with a timeout is on its client timer too", async () => {
    const stuck = await Client.connect(server.connectString, {
      transport: server.transportFor('stuck-start'),
    });
    open.push(stuck);
    server.delayReplies(600_000, { client: 'stuck-start' });
    const cache = new TreeCache(stuck, path());
    open.push({ close: () => cache.close() });
    const starting = cache.start({ timeout: 600_000 }).catch((error: unknown) => error);
    expect(deadlinesOf(stuck).size).toBe(1);
    await cache.close();
    server.delayReplies(0, { client: 'stuck-start' });
    await starting;
    expect(deadlinesOf(stuck).size).toBe(0);
  });
});

describe('PersistentNode', () => {
  it('each watch of its node makes no AbortSignal.any and leaves no listener on its stop', async () => {
    const at = path();
    const node = new PersistentNode(client, at);
    open.push(node);
    await node.start();
    const stop = own(node, 'stop');
    const before = listeners(stop);
    census = signalCensus();
    // Deleted under it: the watch fires, the node is made again and watched again.
    const first = (await client.exists(at))!.czxid;
    await client.delete(at);
    await waitFor(async () => ((await client.exists(at))?.czxid ?? first) !== first || undefined, {
      timeoutMs: 10_000,
      intervalMs: 5,
      what: 'the node made again',
    });
    expect(census.joined()).toBe(0);
    expect(listeners(stop)).toBe(before);
  });
});

describe('LeaderSelector', () => {
  it("a term's signal is no AbortSignal.any and leaves no listener once the term is over", async () => {
    let terms = 0;
    let given: AbortSignal | undefined;
    const selector = new LeaderSelector(client, path(), {
      task: ({ signal }) => {
        terms++;
        given = signal;
      },
    });
    census = signalCensus();
    await selector.start();
    await selector.done;
    expect(terms).toBe(1);
    expect(census.joined()).toBe(0);
    expect(given?.aborted).toBe(true); // the term ended: its lease was released
    expect(listeners(own(selector, 'closing'))).toBe(0);
  });
});

describe('the discovery recipes’ bounded waits (GroupMember, ServiceDiscovery: within)', () => {
  it('a wait with a timeout and a signal makes no AbortController and leaves no listener', async () => {
    const caller = new AbortController();
    census = signalCensus();
    const reason = new Error('given up');
    const owner = {};
    const waiting = within(
      new Promise(() => {}),
      { timeout: 600_000, signal: caller.signal },
      '/x',
      owner,
    );
    // On its client's one timer while it waits, as the other recipes' waits are.
    expect(deadlinesOf(owner).size).toBe(1);
    caller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    expect({ joined: census.joined(), controllers: census.controllers() }).toEqual({
      joined: 0,
      controllers: 0,
    });
    expect(listeners(caller.signal)).toBe(0);
    expect(deadlinesOf(owner).size).toBe(0);
  });

  it('a timeout rejects with the TimeoutError; the outcome, when first, is answered', async () => {
    const owner = {};
    await expect(within(new Promise(() => {}), { timeout: 1 }, '/x', owner)).rejects.toMatchObject({
      name: 'TimeoutError',
    });
    await expect(within(Promise.resolve(7), { timeout: 600_000 }, '/x', owner)).resolves.toBe(7);
  });
});

describe('DistributedBarrier.wait', () => {
  it('with a timeout and a signal makes no AbortController and leaves no listener', async () => {
    const barrier = new DistributedBarrier(client, path());
    await barrier.raise();
    const caller = new AbortController();
    census = signalCensus();
    const waiting = barrier.wait({ timeout: 600_000, signal: caller.signal });
    await barrier.lower();
    await waiting;
    expect({ joined: census.joined(), controllers: census.controllers() }).toEqual({
      joined: 0,
      controllers: 0,
    });
    expect(listeners(caller.signal)).toBe(0);
  });
});

describe('TimeLease.obtain', () => {
  it('with a timeout and a signal makes no AbortController and leaves no listener', async () => {
    const lease = new TimeLease(client, path(), { duration: 60_000, id: 'a' });
    const caller = new AbortController();
    census = signalCensus();
    const grant = await lease.obtain({ timeout: 600_000, signal: caller.signal });
    expect(grant?.holder).toBe('a');
    expect({ joined: census.joined(), controllers: census.controllers() }).toEqual({
      joined: 0,
      controllers: 0,
    });
    expect(listeners(caller.signal)).toBe(0);
    expect(deadlinesOf(client).size).toBe(0);
  });

  it("a slot's mutex held by another: the TimeoutError at its time, nothing left on the signal, no write after", async () => {
    const at = path();
    const lease = new TimeLease(client, at, { duration: 60_000, id: 'b' });
    // Another process in the middle of its look-and-write: holds the slot's mutex.
    const held = await new Mutex(client, at, { naming: 'kazoo' }).acquire();
    census = signalCensus();
    const caller = new AbortController();
    const began = performance.now();
    const error = await lease
      .obtain({ timeout: 50, signal: caller.signal })
      .catch((e: unknown) => e);
    expect(performance.now() - began).toBeGreaterThanOrEqual(49);
    // The mutex's wait, on the caller's signal too, was over before the caller heard.
    expect(listeners(caller.signal)).toBe(0);
    expect(error).toMatchObject({ name: 'TimeoutError', timeout: 50 });
    expect(census.controllers()).toBe(0);
    await held.release();
    // The given-up obtain's mutex contender goes, and it wrote no grant.
    await waitFor(
      async () =>
        (await client.getChildren(at)).every((name) => !name.includes('__lock__')) || undefined,
      { timeoutMs: 10_000, intervalMs: 5, what: "the given-up obtain's contender gone" },
    );
    expect(await lease.holders()).toEqual([null]);
  });
});

describe('DistributedQueue.take', () => {
  it('with no options hands on the queue close signal: no AbortController, no listener left', async () => {
    const queue = new DistributedQueue(client, path(), { layout: 'curator' });
    open.push(queue);
    await queue.put('one');
    const closed = own(queue, 'closed');
    const before = listeners(closed);
    census = signalCensus();
    await queue.take();
    expect({ joined: census.joined(), controllers: census.controllers() }).toEqual({
      joined: 0,
      controllers: 0,
    });
    expect(listeners(closed)).toBe(before);
  });

  it('with a timeout and a signal makes no AbortController and leaves no listener', async () => {
    const queue = new DistributedQueue(client, path(), { layout: 'curator' });
    open.push(queue);
    await queue.put('one');
    const caller = new AbortController();
    census = signalCensus();
    await queue.take({ timeout: 600_000, signal: caller.signal });
    expect({ joined: census.joined(), controllers: census.controllers() }).toEqual({
      joined: 0,
      controllers: 0,
    });
    expect(listeners(caller.signal)).toBe(0);
    expect(listeners(own(queue, 'closed'))).toBe(0);
  });

  it('a take that waits for an entry, with a timeout, makes no AbortController; its timeout rejects at its time', async () => {
    const queue = new DistributedQueue(client, path(), { layout: 'curator' });
    open.push(queue);
    census = signalCensus();
    const waiting = queue.take({ timeout: 600_000 });
    await queue.put('late');
    expect(new TextDecoder().decode((await waiting) as Uint8Array)).toBe('late');
    const began = performance.now();
    const error = await queue.take({ timeout: 50 }).catch((e: unknown) => e);
    expect(performance.now() - began).toBeGreaterThanOrEqual(49);
    expect(error).toMatchObject({ name: 'TimeoutError', timeout: 50 });
    expect({ joined: census.joined(), controllers: census.controllers() }).toEqual({
      joined: 0,
      controllers: 0,
    });
    expect(deadlinesOf(client).size).toBe(0);
  });
});
