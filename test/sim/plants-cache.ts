// Planted bugs in the TreeCache (the `cache` workload, workloads-cache.ts). Like the other plants
// they reach the cache only through its public seam, the client it is given.
import type { Client } from '../../src/client/client.js';
import type { PersistentWatchIterator } from '../../src/client/persistent-watch.js';
import type { WatchedEvent } from '../../src/client/types.js';
import type { RecipeClient } from '../../src/recipes/index.js';
import { clientWith } from './plant-kit.js';
import type { Plant } from './plants.js';
import type { World } from './world.js';

/** `client` for the cache, with `watch` and `getData` replaced where given. */
function cacheClientWith(
  client: Client,
  replaced: { watch?: Client['watch']; getData?: Client['getData'] },
): RecipeClient {
  return clientWith(client, (prop) => {
    if (prop === 'watch' && replaced.watch) return replaced.watch;
    if (prop === 'getData' && replaced.getData) return replaced.getData;
    return undefined;
  });
}

/** The watch's events without its `Resync` ones: the cache never learns that it missed changes. */
function withoutResync(inner: PersistentWatchIterator): PersistentWatchIterator {
  const iterator: PersistentWatchIterator = {
    ready: inner.ready,
    async next(): Promise<IteratorResult<WatchedEvent>> {
      for (;;) {
        const result = await inner.next();
        if (result.done || (result.value.type as string) !== 'Resync') return result;
      }
    },
    return: (value?: unknown) =>
      inner.return ? inner.return(value) : Promise.resolve({ done: true, value: undefined }),
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

export const cachePlants: Record<string, Plant> = {
  'cache-resync-skips-reread': {
    name: 'cache-resync-skips-reread',
    description:
      'the cache is not told to re-read after a reconnect or renewal (the watch hides its Resync events), so changes made while its link was down stay missing',
    workload: 'cache',
    cacheClient: (client) =>
      cacheClientWith(client, {
        watch: ((path, options) => withoutResync(client.watch(path, options))) as Client['watch'],
      }),
  },
  'cache-applies-out-of-order': {
    name: 'cache-applies-out-of-order',
    description:
      "the cache applies its reads' answers out of order (some answers are held back a few ms), so an older state of a node can overwrite a newer one",
    workload: 'cache',
    cacheClient: (client: Client, world: World) =>
      cacheClientWith(client, {
        getData: (async (...args: Parameters<Client['getData']>) => {
          const answer = await client.getData(...args);
          if (world.rng.chance(0.3)) {
            await new Promise((resolve) => setTimeout(resolve, world.rng.int(1, 60)));
          }
          return answer;
        }) as Client['getData'],
      }),
  },
};
