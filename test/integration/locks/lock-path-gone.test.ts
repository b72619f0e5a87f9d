// A waiter whose lock path disappears: its node and the one ahead of it are deleted, and the lock's
// directory (a container) with them, as when the waiter's session expired and the server swept
// the empty container before the client renewed. The waiter lists the directory on its wake-up
// and gets NONODE; it must queue again (making the path), as Curator retries a NoNodeException
// in its lock loop, not reject its acquire with NONODE.
import { describe, expect, it } from 'vitest';
import { Op } from '../../../src/index.js';
import { Mutex, Semaphore } from '../../../src/locks/index.js';
import { childrenOf, lockPath, newClient, untilChildren } from './helpers.js';

describe('a waiting acquire whose lock path was removed', () => {
  it('queues again on a new node and gets the lock, instead of failing with NONODE', async () => {
    const path = lockPath();
    const [a, b, admin] = [await newClient(), await newClient(), await newClient()];
    const held = await new Mutex(a, path).acquire({ timeout: 5_000 });
    const waiting = new Mutex(b, path).acquire({ timeout: 20_000 });
    waiting.catch(() => {});
    await untilChildren(admin, path, 2, 'B queued');
    const [first, second] = (await childrenOf(admin, path)).sort((x, y) =>
      x.slice(-10) < y.slice(-10) ? -1 : 1,
    );
    expect(held.path).toBe(`${path}/${first}`);
    // B watches A's node only: deleting its own node first tells it nothing. Then A's node and
    // the directory go together, so B's wake-up listing finds no directory.
    await admin.delete(`${path}/${second}`);
    await admin.multi([Op.delete(`${path}/${first}`), Op.delete(path)]);
    const lease = await waiting;
    expect(lease.path.startsWith(`${path}/`)).toBe(true);
    expect(await childrenOf(admin, path)).toEqual([lease.path.slice(path.length + 1)]);
    await lease.release();
    await held.release().catch(() => {});
  }, 30_000);

  it('a Semaphore waiter takes a new lease node when the lease directory is gone, instead of failing with NONODE', async () => {
    const path = lockPath('sem');
    const leases = `${path}/leases`;
    const [a, b, admin] = [await newClient(), await newClient(), await newClient()];
    const held = await new Semaphore(a, path, { maxLeases: 1 }).acquire({ timeout: 5_000 });
    const waiting = new Semaphore(b, path, { maxLeases: 1 }).acquire({ timeout: 20_000 });
    waiting.catch(() => {});
    await untilChildren(admin, leases, 2, 'B has a lease node');
    // Both lease nodes and their directory in one step: B's wake-up listing finds no directory.
    const nodes = await childrenOf(admin, leases);
    await admin.multi([...nodes.map((n) => Op.delete(`${leases}/${n}`)), Op.delete(leases)]);
    const lease = await waiting;
    expect(await childrenOf(admin, leases)).toEqual([lease.path.slice(leases.length + 1)]);
    await lease.release();
    await held.release().catch(() => {});
  }, 30_000);
});
