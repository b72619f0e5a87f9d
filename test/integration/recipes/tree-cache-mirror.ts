// The tree TreeCache mirrors, read fresh from the server, and the wait until the cache equals
// it: shared by the TreeCache tests.
import { expect } from 'vitest';
import type { Client } from '../../../src/index.js';
import type { TreeCache } from '../../../src/recipes/index.js';
import { sleep } from './helpers.js';

/** UTF-8 text of node data. */
export const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** The server's tree under `root` as path -> data, read fresh. */
export async function serverTree(zk: Client, root: string): Promise<Map<string, string>> {
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

/** The cache's mirror as path -> data. */
export function mirror(cache: TreeCache): Map<string, string> {
  return new Map([...cache.entries()].map((node) => [node.path, text(node.data)]));
}

/** A tree's entries sorted by path, to compare two trees. */
export const sorted = (map: Map<string, string>) => [...map].sort(([a], [b]) => a.localeCompare(b));

/** Waits until the mirror equals the server's tree (fails with both after `ms`). */
export async function converged(cache: TreeCache, zk: Client, root: string, ms = 5_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const [want, have] = [await serverTree(zk, root), mirror(cache)];
    if (JSON.stringify(sorted(want)) === JSON.stringify(sorted(have))) return;
    if (Date.now() > deadline) expect(sorted(have)).toEqual(sorted(want));
    await sleep(20);
  }
}

/** A seeded pseudo-random source (a linear congruential generator): `random(n)` is in [0, n). */
export function seededRandom(seed: number): (n: number) => number {
  let state = seed;
  return (n: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state % n;
  };
}
