// Closing the client gives every lock back: the server deletes the session's ephemeral lock nodes
// as soon as closeSession reaches it, so another process may hold the lock before this client
// even hears the close reply. A lease must therefore count as lost from the moment close() is
// called, not when the close completes. (Found by the simulator: a semaphore holder still held a
// valid lease while another process had taken its slot, during a slow close.)
import { describe, expect, it } from 'vitest';
import { Mutex, Semaphore } from '../../../src/locks/index.js';
import { lockPath, newClient, proxiedClient, until } from './helpers.js';

/** Each way; long enough that the close reply comes well after the server released the node. */
const LINK_DELAY_MS = 1_500;

describe('close() ends the leases it gives back', () => {
  it("Mutex: the holder's signal is aborted before anyone else can hold the lock", async () => {
    const path = lockPath();
    const { proxy, client: zk } = await proxiedClient({ sessionTimeout: 20_000 });
    const lease = await new Mutex(zk, path).acquire({ timeout: 10_000 });
    const signal = lease.signal;
    const other = await newClient();
    const waiting = new Mutex(other, path).acquire({ timeout: 20_000 });
    // Awaited below; a failed assertion before that must not leave it rejecting unhandled.
    waiting.catch(() => {});
    // The waiter is queued behind the holder before the link slows down.
    await until(async () => (await other.getChildren(path)).length === 2, 'the waiter queued');
    proxy.delay(LINK_DELAY_MS);
    const closing = zk.close();
    expect(signal.aborted).toBe(true);
    const next = await waiting;
    // The other process holds the lock now; the old holder must not think it still does.
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toMatchObject({ name: 'LockLostError', reason: 'closed' });
    await next.release();
    await closing;
  });

  it('Semaphore: a lease is lost at close(), while the slot it freed is already taken', async () => {
    const path = lockPath('sem');
    const { proxy, client: zk } = await proxiedClient({ sessionTimeout: 20_000 });
    const held = await new Semaphore(zk, path, { maxLeases: 1 }).acquire({ timeout: 10_000 });
    const signal = held.signal;
    const other = await newClient();
    const waiting = new Semaphore(other, path, { maxLeases: 1 }).acquire({ timeout: 20_000 });
    waiting.catch(() => {});
    await until(
      async () =>
        (await other.getChildren(`${path}/leases`).catch(() => [])).length === 1 &&
        (await other.getChildren(`${path}/locks`).catch(() => [])).length === 1,
      'the waiter queued',
    );
    proxy.delay(LINK_DELAY_MS);
    const closing = zk.close();
    const next = await waiting;
    expect(signal.aborted).toBe(true);
    await next.release();
    await closing;
  });
});
