// After a create whose reply was lost, the lock looks for its node. The client may then be on a
// follower that has not applied the create yet: the look must follow a sync(), or it misses the
// node, creates a second one and orphans the first (owned by our live session: everyone waits for
// ever). The server here is real; the lagging follower is modelled by the client wrapper, which
// answers reads from the state before the lost create until a sync() has gone through.
import { describe, expect, it } from 'vitest';
import { CreateMode } from '../../../src/client/types.js';
import { ZooKeeperError } from '../../../src/index.js';
import { ExclusiveLock, Mutex } from '../../../src/locks/index.js';
import { childrenOf, instrument, lockPath, newClient } from './helpers.js';

const lost = () => new ZooKeeperError('CONNECTIONLOSS', 'simulated: reply lost');
const noNode = (path: string) =>
  new ZooKeeperError('NONODE', 'simulated: not applied on this follower yet', { path });

async function preparedPath(): Promise<{
  zk: Awaited<ReturnType<typeof newClient>>;
  path: string;
}> {
  const zk = await newClient();
  const path = lockPath();
  await zk.create2(path.slice(0, path.lastIndexOf('/')));
  await zk.create2(path);
  return { zk, path };
}

describe('recovery reads after a lost create follow a sync()', () => {
  it('Mutex: finds its node despite a lagging listing, and creates no second one', async () => {
    const { zk, path } = await preparedPath();
    let lostName: string | undefined;
    let synced = false;
    const { client, calls } = instrument(zk, {
      create2: async (p, data, options) => {
        const result = await zk.create2(p, data, options);
        if (lostName === undefined) {
          lostName = result.path.slice(path.length + 1);
          throw lost(); // applied by the leader; the reply never arrived
        }
        return result;
      },
      sync: async (p, options) => {
        await zk.sync(p, options);
        if (lostName !== undefined) synced = true;
      },
      getChildren: async (p, options) => {
        const children = await zk.getChildren(p, options);
        return lostName !== undefined && !synced
          ? children.filter((name) => name !== lostName)
          : children;
      },
    });
    const lease = await new Mutex(client, path).acquire({ timeout: 3_000 });
    expect(calls.create2).toBe(1);
    expect(lease.path).toBe(`${path}/${lostName}`);
    await lease.release();
    expect(await childrenOf(zk, path)).toEqual([]);
  });

  it('ExclusiveLock: its ownership check reads after a sync', async () => {
    const { zk, path } = await preparedPath();
    const node = `${path}/x`;
    let lostOne = false;
    let synced = false;
    const { client, calls } = instrument(zk, {
      create2: async (p, data, options) => {
        const result = await zk.create2(p, data, options);
        if (!lostOne) {
          lostOne = true;
          throw lost();
        }
        return result;
      },
      sync: async (p, options) => {
        await zk.sync(p, options);
        if (lostOne) synced = true;
      },
      getData: async (p, options) => {
        if (p === node && lostOne && !synced) throw noNode(p);
        return zk.getData(p, options);
      },
    });
    const lease = await new ExclusiveLock(client, node).acquire({ timeout: 3_000 });
    expect(calls.create2).toBe(1);
    await lease.release();
    expect(await zk.exists(node)).toBeNull();
  });

  it('ExclusiveLock: remembers every token it may have written (a lost create that lands late)', async () => {
    const { zk, path } = await preparedPath();
    const node = `${path}/x`;
    let late: { data: Uint8Array | string | undefined } | undefined;
    let first = true;
    const { client } = instrument(zk, {
      create2: async (p, data, options) => {
        if (first) {
          first = false;
          late = { data };
          throw lost(); // still on its way: it lands after our first look
        }
        return zk.create2(p, data, options);
      },
      getData: async (p, options) => {
        try {
          return await zk.getData(p, options);
        } finally {
          if (late && p === node) {
            const { data } = late;
            late = undefined;
            await zk.create2(p, data, { mode: CreateMode.EPHEMERAL });
          }
        }
      },
    });
    // The second create finds the first one's node: ours, so it holds instead of waiting on it.
    const lease = await new ExclusiveLock(client, node).acquire({ timeout: 3_000 });
    await lease.release();
    expect(await zk.exists(node)).toBeNull();
  });
});
