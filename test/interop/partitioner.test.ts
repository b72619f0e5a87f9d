// Our SetPartitioner with kazoo's on the same path (a real kazoo in Python): one party, one set,
// every item owned by exactly one member of either library, and the set divided again when a
// member of either side leaves or joins.
import { afterEach, describe, expect, it } from 'vitest';
import type { Client } from '../../src/index.js';
import { SetPartitioner } from '../../src/recipes/index.js';
import { uniquePath } from '../harness/index.js';
import { newClient } from '../support/clients.js';
import { reaches } from '../support/events.js';
import { killRecipePeers } from './curator-recipes.js';
import { startKazooQueue } from './queue-peers.js';

afterEach(() => killRecipePeers());

const ITEMS = ['a', 'b', 'c', 'd', 'e', 'f'];

function ours(client: Client, path: string, id: string) {
  return new SetPartitioner(client, path, { items: ITEMS, id, settleTime: 200 });
}

/** A kazoo SetPartitioner over ITEMS with the id k1 and a settle time of 0.2 s, on `path`. */
function kazooMember(path: string) {
  return startKazooQueue('partition', path, `${ITEMS.join(',')}:k1:0.2`);
}

describe("SetPartitioner with kazoo's SetPartitioner", () => {
  it('a kazoo member and two of ours divide one set; when kazoo leaves, ours divide its items', async () => {
    const path = `${uniquePath('interop')}/kazoo-partition`;
    const a = await newClient();
    const b = await newClient();
    const kazoo = await kazooMember(path);
    kazoo.go();
    const members = [ours(a, path, 't1'), ours(b, path, 't2')];
    await Promise.all(members.map((m) => m.start({ timeout: 10_000 })));
    // kazoo may acquire alone first, then see us join: it releases and acquires its share.
    const shares = await Promise.all(members.map((m) => m.acquired({ timeout: 30_000 })));
    let line = await kazoo.line('acquired');
    while (line !== 'acquired a,d') line = await kazoo.line('acquired');
    expect(shares).toEqual([
      ['b', 'e'],
      ['c', 'f'],
    ]);

    const released = members.map((m) => reaches(m, 'release'));
    kazoo.go(); // a second line: kazoo's finish() leaves the party
    expect(await kazoo.line('finished')).toBe('finished');
    await Promise.all(released);
    await Promise.all(members.map((m) => m.release()));
    expect(await Promise.all(members.map((m) => m.acquired({ timeout: 30_000 })))).toEqual([
      ['a', 'c', 'e'],
      ['b', 'd', 'f'],
    ]);
    await Promise.all(members.map((m) => m.close()));
  }, 90_000);

  it('kazoo divides again when our member leaves, and when another of ours joins', async () => {
    const path = `${uniquePath('interop')}/kazoo-partition-2`;
    const a = await newClient();
    const b = await newClient();
    const first = ours(a, path, 't1');
    await first.start({ timeout: 10_000 });
    expect(await first.acquired({ timeout: 30_000 })).toEqual(ITEMS);
    const kazoo = await kazooMember(path);
    kazoo.go();
    // Ours held the whole set alone: kazoo's joining moves it to release, and kazoo waits for
    // its locks until ours gives them back.
    await reaches(first, 'release');
    await first.release();
    expect(await first.acquired({ timeout: 30_000 })).toEqual(['b', 'd', 'f']);
    // Sorted ids [k1, t1]: kazoo deals itself the first item.
    expect(await kazoo.line('acquired')).toBe('acquired a,c,e');

    await first.close();
    expect(await kazoo.line('release')).toBe('release');
    expect(await kazoo.line('acquired')).toBe('acquired a,b,c,d,e,f');

    const second = ours(b, path, 't2');
    await second.start({ timeout: 10_000 });
    expect(await kazoo.line('release')).toBe('release');
    expect(await kazoo.line('acquired')).toBe('acquired a,c,e');
    expect(await second.acquired({ timeout: 30_000 })).toEqual(['b', 'd', 'f']);
    await second.close();
  }, 90_000);
});
