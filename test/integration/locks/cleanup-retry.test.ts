// Release and timed-out-waiter cleanup across a network blip with a requestTimeout: the delete
// fails with REQUESTTIMEOUT while the link is down, and must be tried again once it is back, or
// the node blocks every contender for as long as the session lives.
import { describe, expect, it } from 'vitest';
import { ZooKeeperError } from '../../../src/index.js';
import { type Lease, LockTimeoutError, Mutex } from '../../../src/locks/index.js';
import {
  childrenOf,
  instrument,
  lockPath,
  newClient,
  proxiedClient,
  sleep,
  untilChildren,
} from './helpers.js';

const OUTAGE_MS = 5_000;

describe('cleanup keeps trying after REQUESTTIMEOUT until the node is gone', () => {
  it('a release during an outage deletes the node once the link is back, and the waiter gets the lock', async () => {
    const path = lockPath();
    const { proxy, client: a } = await proxiedClient({
      requestTimeout: 1_000,
      sessionTimeout: 30_000,
    });
    const b = await newClient();
    const held = await new Mutex(a, path).acquire({ timeout: 5_000 });
    const waiting = new Mutex(b, path).acquire({ timeout: 25_000 });
    waiting.catch(() => {});
    await untilChildren(b, path, 2, 'B queued');
    proxy.refuse(true);
    proxy.cut();
    const released = held.release();
    released.catch(() => {});
    await sleep(OUTAGE_MS);
    proxy.refuse(false);
    const lease: Lease = await waiting;
    expect(await childrenOf(b, path)).toEqual([lease.path.slice(path.length + 1)]);
    await expect(released).resolves.toBeUndefined();
    await lease.release();
  }, 45_000);

  it('a waiter whose timeout fires during an outage removes its node once the link is back', async () => {
    const path = lockPath();
    const { proxy, client: w } = await proxiedClient({
      requestTimeout: 1_000,
      sessionTimeout: 30_000,
    });
    const [h, c] = [await newClient(), await newClient()];
    const held = await new Mutex(h, path).acquire({ timeout: 5_000 });
    const timedOut = new Mutex(w, path).acquire({ timeout: 2_000 });
    timedOut.catch(() => {});
    await untilChildren(h, path, 2, 'W queued');
    const third = new Mutex(c, path).acquire({ timeout: 30_000 });
    third.catch(() => {});
    await untilChildren(h, path, 3, 'C queued');
    proxy.refuse(true);
    proxy.cut();
    await expect(timedOut).rejects.toBeInstanceOf(LockTimeoutError);
    await sleep(OUTAGE_MS - 2_000);
    proxy.refuse(false);
    // W's node must go although its delete timed out while the link was down.
    await untilChildren(h, path, 2, "W's node removed", 15_000);
    await held.release();
    await (await third).release();
    expect(await childrenOf(h, path)).toEqual([]);
  }, 45_000);

  it('a release that failed is not cached: calling release() again deletes the node', async () => {
    const path = lockPath();
    const zk = await newClient();
    let refuse = true;
    const { client } = instrument(zk, {
      delete: async (p, version, options) => {
        if (refuse) {
          refuse = false;
          throw new ZooKeeperError('NOAUTH', 'simulated: not allowed this time', { path: p });
        }
        return zk.delete(p, version, options);
      },
    });
    const lease = await new Mutex(client, path).acquire({ timeout: 5_000 });
    await expect(lease.release()).rejects.toMatchObject({ code: 'NOAUTH' });
    expect(await childrenOf(zk, path)).toHaveLength(1);
    await expect(lease.release()).resolves.toBeUndefined();
    expect(await childrenOf(zk, path)).toEqual([]);
    // Done now: later calls hand back the same settled promise.
    await expect(lease.release()).resolves.toBeUndefined();
  });
});
