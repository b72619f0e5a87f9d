// No herd: each lock node is watched by at most one waiter, and a release wakes one waiter.
import { describe, expect, it } from 'vitest';
import type { Lease } from '../../../src/locks/index.js';
import { Mutex } from '../../../src/locks/index.js';
import {
  childrenOf,
  instrument,
  lockPath,
  newClient,
  newClients,
  sleep,
  until,
  watchesByPath,
} from './helpers.js';

const WAITERS = 15;

describe('Mutex herd-freedom', () => {
  it(`with ${WAITERS} waiters, every node has at most one foreign watcher and one release wakes one waiter`, async () => {
    const holderZk = await newClient();
    const zks = await newClients(WAITERS);
    const path = lockPath();
    const holder = await new Mutex(holderZk, path).acquire();
    const waiters = zks.map((zk) => ({ zk, ...instrument(zk) }));
    const acquired: (Lease | undefined)[] = [];
    const done = waiters.map(async (w, i) => {
      // Queue strictly one after the other, so waiter i's node is the (i+1)-th in line.
      await until(
        async () => (await childrenOf(holderZk, path)).length === i + 1,
        `waiter ${i - 1} queued`,
      );
      const lease = await new Mutex(w.client, path).acquire({ timeout: 30_000 });
      acquired[i] = lease;
      return lease;
    });
    await until(
      async () => (await childrenOf(holderZk, path)).length === WAITERS + 1,
      'all waiters queued',
    );

    // Who watches what, from the server itself.
    const nodes = [holder.path];
    const owners = new Map<string, bigint>([[holder.path, holderZk.sessionId]]);
    const byOwner = new Map<bigint, string>();
    for (const name of await childrenOf(holderZk, path)) {
      const node = `${path}/${name}`;
      const owner = (await holderZk.exists(node))!.ephemeralOwner;
      owners.set(node, owner);
      byOwner.set(owner, node);
    }
    for (const w of waiters) nodes.push(byOwner.get(w.zk.sessionId)!);
    let watches = new Map<string, bigint[]>();
    await until(async () => {
      watches = await watchesByPath(path);
      return [...watches.values()].flat().length === WAITERS; // the holder never read its signal
    }, 'every waiter watching');
    // Nobody watches the children of the lock path (wchp lists data watches only: count the calls).
    expect(waiters.map((w) => w.calls.childWatches ?? 0)).toEqual(Array(WAITERS).fill(0));
    for (const [node, sessions] of watches) {
      const foreign = sessions.filter((s) => s !== owners.get(node));
      expect(foreign.length, node).toBeLessThanOrEqual(1);
    }
    // Precisely: each node is watched by the waiter right behind it.
    for (let i = 0; i < WAITERS; i++) {
      expect(
        watches.get(nodes[i]!)?.filter((s) => s !== owners.get(nodes[i]!)),
        `node ${i}`,
      ).toEqual([waiters[i]!.zk.sessionId]);
    }
    expect(watches.get(nodes[WAITERS]!)).toBeUndefined();

    // One release wakes exactly one waiter.
    for (const w of waiters) {
      w.calls.getChildren = 0;
      w.wakes.count = 0;
    }
    await holder.release();
    await until(() => acquired[0] !== undefined, 'first waiter holds');
    await sleep(200); // room for any wrongly woken waiter to show itself
    expect(waiters.map((w) => w.wakes.count)).toEqual([1, ...Array(WAITERS - 1).fill(0)]);
    expect(waiters.map((w) => w.calls.getChildren ?? 0)).toEqual([
      1,
      ...Array(WAITERS - 1).fill(0),
    ]);

    // Drain the queue in order.
    for (let i = 0; i < WAITERS; i++) {
      const lease = await done[i]!;
      await lease.release();
    }
    expect(await childrenOf(holderZk, path)).toEqual([]);
  });
});
