// TreeCache.sync() on a real 3-node ensemble: the writer talks to the leader, the cache to a
// follower, which may not have applied a change yet when the writer hears it committed. After
// `await cache.sync()` the cache must hold every change the writer saw committed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, connect } from '../../../src/index.js';
import { ensurePath, TreeCache } from '../../../src/recipes/index.js';
import { startEnsemble, uniquePath, type ZkEnsemble } from '../../harness/index.js';

let ensemble: ZkEnsemble;
const clients: Client[] = [];

beforeAll(async () => {
  ensemble = await startEnsemble({ size: 3 });
}, 90_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await ensemble?.close();
});

async function open(connectString: string): Promise<Client> {
  const zk = await connect(connectString, { sessionTimeout: 10_000, connectTimeout: 15_000 });
  clients.push(zk);
  return zk;
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe('TreeCache.sync() across an ensemble', () => {
  it("holds every change the leader's client saw committed, read at once after sync(), every time", async () => {
    const leader = await ensemble.leader();
    const [follower] = await ensemble.followers();
    const writer = await open(ensemble.members[leader]!.connectString);
    const zk = await open(ensemble.members[follower!]!.connectString);
    const root = uniquePath('cache-ensemble');
    await ensurePath(writer, root, { containers: false });
    const cache = new TreeCache(zk, root);
    await zk.sync(root);
    await cache.start();
    for (let round = 0; round < 60; round++) {
      // Creates on two levels, a change and a delete of the round before, sent together.
      const previous = `${root}/r${round - 1}`;
      await Promise.all([
        writer.create(`${root}/r${round}`, `v${round}`),
        writer.create(`${root}/r${round}-x`, 'x'),
        ...(round > 0
          ? [
              writer.create(`${previous}/child`, `c${round}`),
              writer.setData(`${root}/r0`, `changed ${round}`),
              writer.delete(`${root}/r${round - 1}-x`),
            ]
          : []),
      ]);
      await cache.sync({ timeout: 10_000 });
      expect(text(cache.get(`${root}/r${round}`)?.data ?? new Uint8Array())).toBe(`v${round}`);
      expect(cache.get(`${root}/r${round}-x`)).toBeDefined();
      if (round > 0) {
        expect(text(cache.get(`${previous}/child`)?.data ?? new Uint8Array())).toBe(`c${round}`);
        expect(text(cache.get(`${root}/r0`)!.data)).toBe(`changed ${round}`);
        expect(cache.get(`${root}/r${round - 1}-x`)).toBeUndefined();
      }
    }
    // And the whole copy equals the tree as the leader has it.
    const want = new Map<string, string>();
    const walk = async (path: string) => {
      want.set(path, text((await writer.getData(path)).data));
      for (const name of await writer.getChildren(path)) await walk(`${path}/${name}`);
    };
    await walk(root);
    const have = new Map([...cache.entries()].map((n) => [n.path, text(n.data)]));
    expect([...have].sort()).toEqual([...want].sort());
    await cache.close();
  }, 120_000);
});
