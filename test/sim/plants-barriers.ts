// Planted bugs for the barriers workload (workloads-barriers.ts), through the client the barrier
// is given.
import type { Client } from '../../src/client/client.js';
import type { RecipeClient } from '../../src/locks/index.js';
import { clientWith } from './plant-kit.js';
import type { Plant } from './plants.js';

/** `client` with its `exists` replaced; everything else forwarded. */
function withExists(client: Client, exists: Client['exists']): Client {
  return clientWith(client, { exists });
}

export const barrierPlants: Record<string, Plant> = {
  'barrier-trusts-old-look': {
    name: 'barrier-trusts-old-look',
    description:
      "a barrier wait answers from the first look this process took at the barrier's node (absent once, absent for good): it passes a barrier raised since",
    workload: 'barriers',
    wrap: (client) => {
      const first = new Map<string, null>();
      return withExists(client, async (path, options) => {
        if (first.has(path)) return null;
        const stat = await client.exists(path, options);
        if (stat === null) first.set(path, stat);
        return stat;
      }) as RecipeClient;
    },
  },
  'barrier-watch-dropped': {
    name: 'barrier-watch-dropped',
    description:
      "a barrier wait's watch on the raised node is never set: the waiter is not released when the barrier is lowered",
    workload: 'barriers',
    wrap: (client) =>
      withExists(client, (path, options) =>
        client.exists(path, options?.watch ? { ...options, watch: () => {} } : options),
      ) as RecipeClient,
  },
};
