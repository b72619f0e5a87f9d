// A Semaphore's acquire with a timeout or a signal makes no AbortController and no
// AbortSignal.any of its own (issue 41): its one bound stops the guard's wait, the lease node's
// create and the wait for the lease list, as it does a lock's. Counted
// (test/support/signal-census.ts) on real Clients of the in-process server, with the semantics
// the change could break: the timeout's error at its time, the caller's signal at once, nothing
// left on the caller's signal.
import { getEventListeners } from 'node:events';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { deadlinesOf } from '../../../src/coordination/deadline.js';
import { LockTimeoutError, Mutex, Semaphore } from '../../../src/locks/index.js';
import { startServer, type TestServer } from '../../../src/testing/index.js';
import { signalCensus } from '../../support/signal-census.js';
import { waitFor } from '../../support/wait.js';

let server: TestServer;
let client: Client;
let census: ReturnType<typeof signalCensus> | undefined;
let paths = 0;
const path = () => `/sem-signals-${++paths}`;

beforeAll(async () => {
  server = await startServer({ listen: false });
  client = await Client.connect(server.connectString, { transport: server.transportFor('c') });
});
afterEach(() => {
  census?.stop();
  census = undefined;
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;
const counted = () => ({ joined: census!.joined(), controllers: census!.controllers() });

describe('Semaphore.acquire with a timeout', () => {
  it('a free lease: no AbortController, no AbortSignal.any, nothing left on the signal', async () => {
    const semaphore = new Semaphore(client, path(), { maxLeases: 1 });
    const caller = new AbortController();
    census = signalCensus();
    const lease = await semaphore.acquire({ timeout: 600_000, signal: caller.signal });
    expect(counted()).toEqual({ joined: 0, controllers: 0 });
    await lease.release();
    expect(listeners(caller.signal)).toBe(0);
    expect(deadlinesOf(client).size).toBe(0);
  });

  it('a wait for a lease another holds: no AbortController, and nothing left once granted', async () => {
    const at = path();
    const holder = await new Semaphore(client, at, { maxLeases: 1 }).acquire();
    const semaphore = new Semaphore(client, at, { maxLeases: 1 });
    const caller = new AbortController();
    census = signalCensus();
    const waiting = semaphore.acquire({ timeout: 600_000, signal: caller.signal });
    await holder.release();
    const lease = await waiting;
    expect(counted()).toEqual({ joined: 0, controllers: 0 });
    await lease.release();
    expect(listeners(caller.signal)).toBe(0);
    expect(deadlinesOf(client).size).toBe(0);
  });

  it("times out with the semaphore's LockTimeoutError, no AbortController, its node gone", async () => {
    const at = path();
    const holder = await new Semaphore(client, at, { maxLeases: 1 }).acquire();
    const semaphore = new Semaphore(client, at, { maxLeases: 1 });
    census = signalCensus();
    const started = performance.now();
    const error = await semaphore.acquire({ timeout: 50 }).catch((e: unknown) => e);
    expect(performance.now() - started).toBeGreaterThanOrEqual(49);
    expect(error).toBeInstanceOf(LockTimeoutError);
    expect((error as Error).message).toBe(
      `timed out after 50 ms waiting for one of the 1 leases of the semaphore ${at}`,
    );
    expect(counted()).toEqual({ joined: 0, controllers: 0 });
    await holder.release();
    // The waiter's guard and lease attempt clean up after the caller heard: nothing stays.
    const leases = async () => (await client.getChildren(`${at}/leases`)).length;
    const guards = async () => (await client.getChildren(`${at}/locks`)).length;
    await waitFor(async () => (await leases()) + (await guards()) === 0 || undefined, {
      timeoutMs: 10_000,
      intervalMs: 5,
      what: "the timed-out waiter's nodes gone",
    });
  });

  it("a guard held by another: the semaphore's LockTimeoutError at its time, not the guard's, and nothing left on the signal", async () => {
    const at = path();
    // Another process between taking the guard and releasing it: the waiter's guard wait runs
    // out with the acquire's deadline.
    const guard = await new Mutex(client, `${at}/locks`).acquire();
    const semaphore = new Semaphore(client, at, { maxLeases: 3 });
    census = signalCensus();
    for (const timeout of [50, 20]) {
      const caller = new AbortController();
      const started = performance.now();
      const error = await semaphore
        .acquire({ timeout, signal: caller.signal })
        .catch((e: unknown) => e);
      expect(performance.now() - started).toBeGreaterThanOrEqual(timeout - 1);
      // The guard's wait, on the caller's signal too, ends by the acquire's deadline (a process
      // stalled between the two readings of the clock may end it a moment after the caller heard).
      await waitFor(async () => listeners(caller.signal) === 0 || undefined, {
        timeoutMs: 1_000,
        intervalMs: 1,
        what: "the guard's listener off the caller's signal",
      });
      expect(error).toBeInstanceOf(LockTimeoutError);
      expect((error as Error).message).toBe(
        `timed out after ${timeout} ms waiting for one of the 3 leases of the semaphore ${at}`,
      );
    }
    expect(counted()).toEqual({ joined: 0, controllers: 0 });
    // The waiters' guard contender nodes go: only the holder's stays.
    await waitFor(async () => (await client.getChildren(`${at}/locks`)).length === 1 || undefined, {
      timeoutMs: 10_000,
      intervalMs: 5,
      what: "the timed-out waiters' guard nodes gone",
    });
    await guard.release();
    expect(deadlinesOf(client).size).toBe(0);
  });

  it("the caller's signal rejects at once with its reason, no AbortController", async () => {
    const at = path();
    const holder = await new Semaphore(client, at, { maxLeases: 1 }).acquire();
    const semaphore = new Semaphore(client, at, { maxLeases: 1 });
    const caller = new AbortController();
    census = signalCensus();
    const waiting = semaphore.acquire({ timeout: 600_000, signal: caller.signal });
    const outcome = waiting.catch((e: unknown) => e);
    const reason = new Error('stop');
    caller.abort(reason);
    expect(await outcome).toBe(reason);
    expect(counted()).toEqual({ joined: 0, controllers: 0 });
    expect(listeners(caller.signal)).toBe(0);
    await holder.release();
  });
});
