// Our queues with kazoo's and Curator's on the same paths, both ways: kazoo's LockingQueue (an
// entry held by one side is not taken by the other, and goes back when its holder dies) and
// Queue, Curator's SimpleDistributedQueue and DistributedQueue (its framing, a putMulti node).
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from '../../src/index.js';
import { DistributedQueue, LockingQueue } from '../../src/recipes/index.js';
import { sharedServer, uniquePath } from '../harness/index.js';
import { killRecipePeers } from './curator-recipes.js';
import { linesOf, startCuratorQueue, startKazooQueue } from './queue-peers.js';

afterEach(() => killRecipePeers());

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

function ourClient() {
  return connect(sharedServer().connectString, { sessionTimeout: 10_000 });
}

describe("LockingQueue with kazoo's LockingQueue", () => {
  it('kazoo puts with priorities, we take in its order; we put, kazoo takes and consumes', async () => {
    const path = `${uniquePath('interop')}/kazoo-locking`;
    await using zk = await ourClient();
    await using queue = new LockingQueue(zk, path);
    const low = await startKazooQueue(sharedServer().connectString, 'locking-put', path, 'c,d:200');
    low.go();
    expect(await low.line('put')).toBe('put 2');
    const high = await startKazooQueue(sharedServer().connectString, 'locking-put', path, 'a,b:7');
    high.go();
    expect(await high.line('put')).toBe('put 2');
    const taken: string[] = [];
    for (let i = 0; i < 4; i++) {
      const entry = await queue.take({ timeout: 10_000 });
      taken.push(entry.text());
      await entry.consume();
    }
    expect(taken).toEqual(['a', 'b', 'c', 'd']);

    await queue.put('later', { priority: 500 });
    await queue.putAll(['first', 'second'], { priority: 3 });
    const consumer = await startKazooQueue(sharedServer().connectString, 'locking-take', path, '3');
    consumer.go();
    expect(await linesOf(consumer, 'took', 3)).toEqual(['first', 'second', 'later']);
    expect(await queue.size()).toBe(0);
    expect(await zk.getChildren(`${path}/taken`)).toEqual([]);
  }, 60_000);

  it('an entry kazoo holds is not ours to take; when kazoo dies it comes to us', async () => {
    const path = `${uniquePath('interop')}/kazoo-dies`;
    await using zk = await ourClient();
    await using queue = new LockingQueue(zk, path);
    await queue.put('job');
    const holder = await startKazooQueue(sharedServer().connectString, 'locking-hold', path);
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
    await using zk = await ourClient();
    await using queue = new LockingQueue(zk, path);
    await queue.put('job');
    const entry = await queue.take({ timeout: 10_000 });
    const none = await startKazooQueue(sharedServer().connectString, 'locking-none', path);
    none.go();
    expect(await none.line('got')).toBe('got None');
    await entry.release();
    const taker = await startKazooQueue(sharedServer().connectString, 'locking-take', path, '1');
    taker.go();
    expect(await taker.line('took')).toBe('took job');
  }, 60_000);
});

describe("DistributedQueue with kazoo's Queue", () => {
  it('kazoo puts, we take in its priority order; we put, kazoo takes', async () => {
    const path = `${uniquePath('interop')}/kazoo-queue`;
    await using zk = await ourClient();
    await using queue = new DistributedQueue(zk, path, { layout: 'kazoo' });
    const producer = await startKazooQueue(sharedServer().connectString, 'queue-put', path, 'y,z');
    producer.go();
    expect(await producer.line('put')).toBe('put 2');
    const urgent = await startKazooQueue(sharedServer().connectString, 'queue-put', path, 'x:1');
    urgent.go();
    expect(await urgent.line('put')).toBe('put 1');
    const taken = [];
    for (let i = 0; i < 3; i++) taken.push(text(await queue.take({ timeout: 10_000 })));
    expect(taken).toEqual(['x', 'y', 'z']);

    await queue.putAll(['m', 'n']);
    await queue.put('l', { priority: 2 });
    const consumer = await startKazooQueue(sharedServer().connectString, 'queue-take', path, '3');
    consumer.go();
    expect(await linesOf(consumer, 'took', 3)).toEqual(['l', 'm', 'n']);
  }, 60_000);
});

describe("DistributedQueue with Curator's queues", () => {
  it('SimpleDistributedQueue: Curator offers, we take; we put, Curator polls', async () => {
    const path = `${uniquePath('interop')}/curator-simple`;
    await using zk = await ourClient();
    await using queue = new DistributedQueue(zk, path, { layout: 'curator-simple' });
    const producer = await startCuratorQueue(
      sharedServer().connectString,
      'simple-offer',
      path,
      'a,b,c',
    );
    producer.go();
    expect(await producer.line('put')).toBe('put 3');
    const taken = [];
    for (let i = 0; i < 3; i++) taken.push(text(await queue.take({ timeout: 10_000 })));
    expect(taken).toEqual(['a', 'b', 'c']);

    await queue.putAll(['d', 'e']);
    const consumer = await startCuratorQueue(
      sharedServer().connectString,
      'simple-take',
      path,
      '2',
    );
    consumer.go();
    expect(await linesOf(consumer, 'took', 2)).toEqual(['d', 'e']);
  }, 90_000);

  it("DistributedQueue: Curator puts (one by one and putMulti), we take; we put, Curator's consumer gets each", async () => {
    const path = `${uniquePath('interop')}/curator-queue`;
    await using zk = await ourClient();
    await using queue = new DistributedQueue(zk, path, { layout: 'curator' });
    const single = await startCuratorQueue(sharedServer().connectString, 'queue-put', path, 'a,b');
    single.go();
    expect(await single.line('put')).toBe('put 2');
    const multi = await startCuratorQueue(
      sharedServer().connectString,
      'queue-put-multi',
      path,
      'c,d,e',
    );
    multi.go();
    expect(await multi.line('put')).toBe('put 3');
    // Three nodes: two of one item, one of three.
    expect(await queue.size()).toBe(3);
    const taken = [];
    for (let i = 0; i < 5; i++) taken.push(text(await queue.take({ timeout: 10_000 })));
    expect(taken).toEqual(['a', 'b', 'c', 'd', 'e']);

    await queue.putAll(['f', 'g', 'h']);
    const consumer = await startCuratorQueue(
      sharedServer().connectString,
      'queue-consume',
      path,
      '3',
    );
    consumer.go();
    expect(await linesOf(consumer, 'took', 3)).toEqual(['f', 'g', 'h']);
  }, 90_000);
});
