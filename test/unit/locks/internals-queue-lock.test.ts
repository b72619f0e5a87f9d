// What a Mutex / ReadWriteLock object says when a second acquire on it times out (it may be
// waiting for itself), and re-entry through tryAcquire. On the in-process server, through real
// Clients.
import { describe, expect, it } from 'vitest';
import { LockTimeoutError, Mutex, ReadWriteLock } from '../../../src/locks/index.js';
import { waitFor } from '../../support/wait.js';
import { inProcessServer } from './in-process.js';

describe('QueueLock timeouts and re-entry (in-process server)', () => {
  it('a Mutex object that already holds: the timeout says so and how to re-enter', async () => {
    const client = await (await inProcessServer()).connect();
    const mutex = new Mutex(client, '/self');
    const lease = await mutex.acquire();
    const error = await mutex.acquire({ timeout: 20 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockTimeoutError);
    expect((error as Error).message).toContain(
      `the lock /self, which this Mutex object already holds (its lease ${lease.path} is not released): to re-enter from the code that holds it, pass acquire({ reentrantFrom: lease })`,
    );
    await lease.release();
    // Released: a timeout names only the lock.
    const held = await new Mutex(client, '/self2').acquire();
    const plain = await new Mutex(client, '/self2').acquire({ timeout: 20 }).catch((e) => e);
    expect((plain as Error).message).toContain('the lock /self2');
    expect((plain as Error).message).not.toContain('already holds');
    await held.release();
  });

  it('a read side waiting behind a writer does not blame itself', async () => {
    const server = await inProcessServer();
    const [a, b] = [await server.connect(), await server.connect()];
    const rw = new ReadWriteLock(a, '/rw');
    const reading = await rw.read.acquire();
    const writer = await new ReadWriteLock(b, '/rw').write.acquire({ timeout: 20 }).catch((e) => e);
    expect(writer).toBeInstanceOf(LockTimeoutError);
    const writing = new ReadWriteLock(b, '/rw').write.acquire();
    // The writer is in the queue (its node is there) before the read side asks.
    await waitFor(async () => ((await a.getChildren('/rw')).length === 2 ? true : undefined), {
      what: "the writer's node",
      timeoutMs: 10_000,
    });
    const error = await rw.read.acquire({ timeout: 20 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockTimeoutError);
    expect((error as Error).message).not.toContain('already holds');
    await reading.release();
    await (await writing).release();
  });

  it('tryAcquire({ reentrantFrom }) re-enters the held lease at once', async () => {
    const client = await (await inProcessServer()).connect();
    const mutex = new Mutex(client, '/re');
    const lease = await mutex.acquire();
    const again = await mutex.tryAcquire({ reentrantFrom: lease });
    expect(again?.path).toBe(lease.path);
    await again!.release();
    expect(lease.released).toBe(false);
    await lease.release();
  });
});
