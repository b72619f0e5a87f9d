// Our queues with kazoo's and Curator's on the same paths, both ways: kazoo's LockingQueue (an
// entry held by one side is not taken by the other, and goes back when its holder dies) and
// Queue, Curator's SimpleDistributedQueue and DistributedQueue (its framing, a putMulti node).
import { afterEach, describe, expect, it } from 'vitest';
import { DistributedQueue, LockingQueue } from '../../src/recipes/index.js';
import { uniquePath } from '../harness/index.js';
import { newClient } from '../support/clients.js';
import { goAndRead, killRecipePeers } from './curator-recipes.js';
import { linesOf, startCuratorQueue, startKazooQueue } from './queue-peers.js';

afterEach(() => killRecipePeers());

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("LockingQueue with kazoo's LockingQueue", () => {
  it('kazoo puts with priorities, we take in its order; we put, kazoo takes and consumes', async () => {
    const path = `${uniquePath('interop')}/kazoo-locking`;
    const zk = await newClient();
    await using queue = new LockingQueue(zk, path);
    expect(await goAndRead(startKazooQueue('locking-put', path, 'c,d:200'), 'put')).toBe('put 2');
    expect(await goAndRead(startKazooQueue('locking-put', path, 'a,b:7'), 'put')).toBe('put 2');
    const taken: string[] = [];
    for (let i = 0; i < 4; i++) {
      const entry = await queue.take({ timeout: 10_000 });
      taken.push(entry.text());
      await entry.consume();
    }
    expect(taken).toEqual(['a', 'b', 'c', 'd']);

    await queue.put('later', { priority: 500 });
    await queue.putAll(['first', 'second'], { priority: 3 });
    const consumer = await startKazooQueue('locking-take', path, '3');
    consumer.go();
    expect(await linesOf(consumer, 'took', 3)).toEqual(['first', 'second', 'later']);
    expect(await queue.size()).toBe(0);
    expect(await zk.getChildren(`${path}/taken`)).toEqual([]);
  }, 60_000);

  it('an entry kazoo holds is not ours to take; when kazoo dies it comes to us', async () => {
    const path = `${uniquePath('interop')}/kazoo-dies`;
    const zk = await newClient();
    await using queue = new LockingQueue(zk, path);
    await queue.put('job');
    const holder = await startKazooQueue('locking-hold', path);
    holder.go();
    expect(await holder.line('took')).toBe('took job');
    expect(await holder.line('holds')).toBe('holds True');
    expect(await queue.tryTake()).toBeNull();
    holder.kill(); // no consume, no close: the server ends its session after its 4 s timeout
    const entry = await queue.take({ timeout: 30_000 });
    expect(entry.text()).toBe('job');
    await entry.consume();
  }, 60_000);

  it("an entry we hold is not kazoo's to take; given back, kazoo takes it", async () => {
    const path = `${uniquePath('interop')}/kazoo-ours`;
    const zk = await newClient();
    await using queue = new LockingQueue(zk, path);
    await queue.put('job');
    const entry = await queue.take({ timeout: 10_000 });
    expect(await goAndRead(startKazooQueue('locking-none', path), 'got')).toBe('got None');
    await entry.release();
    expect(await goAndRead(startKazooQueue('locking-take', path, '1'), 'took')).toBe('took job');
  }, 60_000);
});

describe("DistributedQueue with kazoo's Queue", () => {
  it('kazoo puts, we take in its priority order; we put, kazoo takes', async () => {
    const path = `${uniquePath('interop')}/kazoo-queue`;
    const zk = await newClient();
    await using queue = new DistributedQueue(zk, path, { layout: 'kazoo' });
    expect(await goAndRead(startKazooQueue('queue-put', path, 'y,z'), 'put')).toBe('put 2');
    expect(await goAndRead(startKazooQueue('queue-put', path, 'x:1'), 'put')).toBe('put 1');
    const taken = [];
    for (let i = 0; i < 3; i++) taken.push(text(await queue.take({ timeout: 10_000 })));
    expect(taken).toEqual(['x', 'y', 'z']);

    await queue.putAll(['m', 'n']);
    await queue.put('l', { priority: 2 });
    const consumer = await startKazooQueue('queue-take', path, '3');
    consumer.go();
    expect(await linesOf(consumer, 'took', 3)).toEqual(['l', 'm', 'n']);
  }, 60_000);
});

describe("DistributedQueue with Curator's queues", () => {
  it('SimpleDistributedQueue: Curator offers, we take; we put, Curator polls', async () => {
    const path = `${uniquePath('interop')}/curator-simple`;
    const zk = await newClient();
    await using queue = new DistributedQueue(zk, path, { layout: 'curator-simple' });
    expect(await goAndRead(startCuratorQueue('simple-offer', path, 'a,b,c'), 'put')).toBe('put 3');
    const taken = [];
    for (let i = 0; i < 3; i++) taken.push(text(await queue.take({ timeout: 10_000 })));
    expect(taken).toEqual(['a', 'b', 'c']);

    await queue.putAll(['d', 'e']);
    const consumer = await startCuratorQueue('simple-take', path, '2');
    consumer.go();
    expect(await linesOf(consumer, 'took', 2)).toEqual(['d', 'e']);
  }, 90_000);

  it("DistributedQueue: Curator puts (one by one and putMulti), we take; we put, Curator's consumer gets each", async () => {
    const path = `${uniquePath('interop')}/curator-queue`;
    const zk = await newClient();
    await using queue = new DistributedQueue(zk, path, { layout: 'curator' });
    expect(await goAndRead(startCuratorQueue('queue-put', path, 'a,b'), 'put')).toBe('put 2');
    expect(await goAndRead(startCuratorQueue('queue-put-multi', path, 'c,d,e'), 'put')).toBe(
      'put 3',
    );
    // Three nodes: two of one item, one of three.
    expect(await queue.size()).toBe(3);
    const taken = [];
    for (let i = 0; i < 5; i++) taken.push(text(await queue.take({ timeout: 10_000 })));
    expect(taken).toEqual(['a', 'b', 'c', 'd', 'e']);

    await queue.putAll(['f', 'g', 'h']);
    const consumer = await startCuratorQueue('queue-consume', path, '3');
    consumer.go();
    expect(await linesOf(consumer, 'took', 3)).toEqual(['f', 'g', 'h']);
  }, 90_000);
});
