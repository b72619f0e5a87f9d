// Planted bugs for the counters workload (workloads-counters.ts): the three mistakes issue 38
// found, put back through the recipes' one seam, the client they are given.
import type { Client } from '../../src/client/client.js';
import type { Stat } from '../../src/client/types.js';
import { clientWith } from './plant-kit.js';
import type { Plant } from './plants.js';

/** Stats whose czxid is always the first one seen for the path: node lives look like one. */
function oneLife(client: Client): Client {
  const first = new Map<string, bigint>();
  const pinned = (path: string, stat: Stat): Stat => {
    const czxid = first.get(path) ?? stat.czxid;
    first.set(path, czxid);
    return { ...stat, czxid };
  };
  return clientWith(client, {
    getData: async (path: string, options?: Parameters<Client['getData']>[1]) => {
      const answer = await client.getData(path, options);
      return { ...answer, stat: pinned(path, answer.stat) };
    },
    setData: async (path: string, data: Uint8Array, version?: number) =>
      pinned(path, await client.setData(path, data, version)),
    exists: async (path: string, options?: Parameters<Client['exists']>[1]) => {
      const stat = await client.exists(path, options);
      return stat && { ...pinned(path, stat), ephemeralOwner: 0n };
    },
  });
}

export const countersPlants: Record<string, Plant> = {
  'count-version-across-lives': {
    name: 'count-version-across-lives',
    description:
      "the SharedCount cannot tell a replaced node from the old one (every stat carries the first czxid), so a new node's low versions are dropped as older than the known one",
    workload: 'counters',
    countersClient: (client, _world, use) => (use === 'count' ? oneLife(client) : client),
  },
  'count-gives-up-after-renewal': {
    name: 'count-gives-up-after-renewal',
    description:
      'the SharedCount gives up on a re-read that a session renewal rejected (its SESSIONEXPIRED turned into a final error), so with the watch used up it never reads again',
    workload: 'counters',
    countersClient: (client, _world, use) =>
      use === 'delete'
        ? client
        : clientWith(client, {
            getData: (path: string, options?: Parameters<Client['getData']>[1]) =>
              client.getData(path, options).catch((error: unknown) => {
                if ((error as { code?: string }).code !== 'SESSIONEXPIRED') throw error;
                throw new Error('gave up (planted)');
              }),
          }),
  },
  'delete-any-node': {
    name: 'delete-any-node',
    description:
      'guaranteedDelete deletes whatever node is at its path when it tries again (the look reports the first czxid, no ephemeral owner, and the delete goes at any version)',
    workload: 'counters',
    countersClient: (client, _world, use) =>
      use === 'count'
        ? client
        : clientWith(oneLife(client), {
            delete: (path: string, _version?: number, options?: Parameters<Client['delete']>[2]) =>
              client.delete(path, -1, options),
            get sessionId() {
              return client.sessionId;
            },
          }),
  },
};
