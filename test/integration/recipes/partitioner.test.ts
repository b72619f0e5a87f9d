// SetPartitioner on the real server: kazoo's layout (ShallowParty members, a kazoo lock per
// item), every item owned by exactly one member once the party settles, and the set divided again
// when a member joins, leaves, or has its session renewed.
import { describe, expect, it } from 'vitest';
import { ClosedError, TimeoutError } from '../../../src/index.js';
import {
  type PartitionState,
  type RecipeClient,
  SetPartitioner,
} from '../../../src/recipes/index.js';
import { stateReached } from '../../support/integration.js';
import { expireSession, newClient, proxiedClient, recipePath } from './helpers.js';

const ITEMS = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];

/** Resolves once `partitioner` is in `state` (at once when it is). */

function member(client: RecipeClient, path: string, id: string, items = ITEMS) {
  return new SetPartitioner(client, path, { items, id, settleTime: 200 });
}

/** Every item owned by exactly one of `members`. */
function expectDivided(members: readonly SetPartitioner[], items = ITEMS) {
  const owned = members.flatMap((m) => m.partition);
  expect([...owned].sort()).toEqual([...items].sort());
}

describe('SetPartitioner', () => {
  it("divides the set among the members in kazoo's layout, each item to one member", async () => {
    const path = recipePath('divide');
    const clients = [await newClient(), await newClient(), await newClient()];
    const members = clients.map((client, i) => member(client, path, `m${i + 1}`));
    await Promise.all(members.map((m) => m.start({ timeout: 10_000 })));
    const shares = await Promise.all(members.map((m) => m.acquired({ timeout: 20_000 })));
    // kazoo's default: the sorted items dealt over the sorted ids.
    expect(shares).toEqual([
      ['a', 'd', 'g'],
      ['b', 'e'],
      ['c', 'f'],
    ]);
    expect(members.map((m) => m.state)).toEqual(['acquired', 'acquired', 'acquired']);
    expectDivided(members);
    const party = await clients[0]!.getChildren(`${path}/party`);
    expect(party.map((name) => name.replace(/^[0-9a-f]{32}-/, '')).sort()).toEqual([
      'm1',
      'm2',
      'm3',
    ]);
    const node = party.find((name) => name.endsWith('-m2'))!;
    expect(
      new TextDecoder().decode((await clients[0]!.getData(`${path}/party/${node}`)).data),
    ).toBe('m2');
    const locks = await clients[0]!.getChildren(`${path}/locks/e`);
    expect(locks).toHaveLength(1);
    expect(locks[0]).toMatch(/^[0-9a-f]{32}__lock__\d{10}$/);
    expect((await clients[0]!.exists(`${path}/locks/e/${locks[0]}`))?.ephemeralOwner).toBe(
      clients[1]!.sessionId,
    );
    await Promise.all(members.map((m) => m.close()));
    expect(await clients[0]!.getChildren(`${path}/party`)).toEqual([]);
    expect(await clients[0]!.getChildren(`${path}/locks/e`).catch(() => [])).toEqual([]);
  });

  it('a member joining moves the owners to release; after release() the set is divided among all', async () => {
    const path = recipePath('join');
    const [a, b, c] = [await newClient(), await newClient(), await newClient()];
    const first = [member(a, path, 'm1'), member(b, path, 'm2')];
    const states: PartitionState[] = [];
    first[0]!.on('state', (state) => states.push(state));
    await Promise.all(first.map((m) => m.start()));
    await Promise.all(first.map((m) => m.acquired({ timeout: 20_000 })));
    expectDivided(first);
    const third = member(c, path, 'm3');
    const released = first.map((m) => stateReached(m, 'release'));
    await third.start();
    await Promise.all(released);
    expect(first.map((m) => m.partition)).toEqual([[], []]);
    // The owners stop their work, then give the items back.
    await Promise.all(first.map((m) => m.release()));
    const all = [...first, third];
    const shares = await Promise.all(all.map((m) => m.acquired({ timeout: 20_000 })));
    expect(shares).toEqual([
      ['a', 'd', 'g'],
      ['b', 'e'],
      ['c', 'f'],
    ]);
    expect(states).toEqual(['acquired', 'release', 'allocating', 'acquired']);
    await Promise.all(all.map((m) => m.close()));
  });

  it("a member's client closes: the others divide its items", async () => {
    const path = recipePath('leave');
    const clients = [await newClient(), await newClient(), await newClient()];
    const members = clients.map((client, i) => member(client, path, `m${i + 1}`));
    await Promise.all(members.map((m) => m.start()));
    await Promise.all(members.map((m) => m.acquired({ timeout: 20_000 })));
    const rest = members.slice(0, 2);
    const released = rest.map((m) => stateReached(m, 'release'));
    await clients[2]!.close();
    await Promise.all(released);
    await Promise.all(rest.map((m) => m.release()));
    await Promise.all(rest.map((m) => m.acquired({ timeout: 20_000 })));
    expect(rest.map((m) => m.partition)).toEqual([
      ['a', 'c', 'e', 'g'],
      ['b', 'd', 'f'],
    ]);
    await Promise.all(rest.map((m) => m.close()));
  });

  it('a renewed session: the owner goes to release, then joins again on the new session', async () => {
    const path = recipePath('renewal');
    const { client, proxy } = await proxiedClient({ sessionTimeout: 4_000 });
    const other = await newClient();
    const mine = member(client, path, 'm1');
    const theirs = member(other, path, 'm2');
    await Promise.all([mine.start(), theirs.start()]);
    await Promise.all([mine.acquired({ timeout: 20_000 }), theirs.acquired({ timeout: 20_000 })]);
    const released = [stateReached(mine, 'release'), stateReached(theirs, 'release')];
    await expireSession(client, proxy);
    await Promise.all(released);
    await Promise.all([mine.release(), theirs.release()]);
    await Promise.all([mine.acquired({ timeout: 20_000 }), theirs.acquired({ timeout: 20_000 })]);
    expectDivided([mine, theirs]);
    const party = await other.getChildren(`${path}/party`);
    expect(party).toHaveLength(2);
    const own = party.find((name) => name.endsWith('-m1'))!;
    expect((await other.exists(`${path}/party/${own}`))?.ephemeralOwner).toBe(client.sessionId);
    await Promise.all([mine.close(), theirs.close()]);
  }, 60_000);

  it('waits are bounded; a partition function naming foreign items fails it; close ends it', async () => {
    const path = recipePath('bounds');
    const zk = await newClient();
    const slow = new SetPartitioner(zk, path, { items: ITEMS, settleTime: 60_000 });
    await slow.start({ timeout: 10_000 });
    await expect(slow.acquired({ timeout: 50 })).rejects.toBeInstanceOf(TimeoutError);
    const pending = expect(slow.acquired()).rejects.toBeInstanceOf(ClosedError);
    await slow.close();
    await pending;
    expect(slow.state).toBe('closed');
    await expect(slow.start()).rejects.toBeInstanceOf(ClosedError);

    const wrong = new SetPartitioner(zk, `${path}-2`, {
      items: ITEMS,
      settleTime: 0,
      partition: () => ['zz'],
    });
    const errors: Error[] = [];
    wrong.on('error', (error) => errors.push(error));
    await wrong.start();
    await expect(wrong.acquired({ timeout: 10_000 })).rejects.toThrow(/not in the set: zz/);
    expect(wrong.state).toBe('failure');
    expect(errors).toHaveLength(1);
    // A failed member has left the party.
    expect(await zk.getChildren(`${path}-2/party`)).toEqual([]);
    await wrong.close();

    expect(() => new SetPartitioner(zk, path, { items: ['a/b'] })).toThrow(/items/);
    expect(() => new SetPartitioner(zk, path, { items: ['a', 'a'] })).toThrow(/distinct/);
    expect(() => new SetPartitioner(zk, path, { items: [], id: 'x/y' })).toThrow(/id/);
    expect(() => new SetPartitioner(zk, path, { items: [], settleTime: -1 })).toThrow(/settleTime/);
    expect(() => new SetPartitioner(zk, 'rel', { items: [] })).toThrow(/invalid path/);
  });
});
