// A MultiLock acquire joins its bound (timeout, caller's signal) and the loss of a part taken
// already in one signal for the parts' waits (issue 41): no AbortSignal.any per round, one
// AbortController per round, and no listener of the acquire left on the caller's signal or on a
// part's lease once the MultiLease is handed out. Counted (test/support/signal-census.ts) on real
// Clients of the in-process server.
import { getEventListeners } from 'node:events';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { MultiLock, Mutex } from '../../../src/locks/index.js';
import { startServer, type TestServer } from '../../../src/testing/index.js';
import { signalCensus } from '../../support/signal-census.js';
import { waitFor } from '../../support/wait.js';

let server: TestServer;
let client: Client;
let census: ReturnType<typeof signalCensus> | undefined;
let paths = 0;

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

function multi(): MultiLock {
  const path = `/multi-${++paths}`;
  return new MultiLock([new Mutex(client, `${path}/a`), new Mutex(client, `${path}/b`)]);
}

/** The library's AbortSignal.any and AbortController calls during one acquire of a new MultiLock. */
async function counted(options?: { timeout?: number; signal?: AbortSignal }) {
  const lock = multi();
  census = signalCensus();
  const lease = await lock.acquire(options);
  const made = { joined: census.joined(), controllers: census.controllers() };
  census.stop();
  await lease.release();
  return made;
}

it('a timeout and a signal cost no AbortSignal.any and no AbortController more than no options', async () => {
  const plain = await counted();
  const caller = new AbortController();
  const bounded = await counted({ timeout: 600_000, signal: caller.signal });
  expect(bounded).toEqual(plain);
  expect(bounded.joined).toBe(0);
  expect(listeners(caller.signal)).toBe(0);
});

it("a MultiLease's parts carry only the MultiLease's own listener, none of the acquire's", async () => {
  const lock = multi();
  const lease = await lock.acquire({ timeout: 600_000 });
  // One listener each: the MultiLease forwards a part's loss for as long as it lives.
  expect(lease.leases.map((part) => listeners(part.signal))).toEqual([1, 1]);
  await lease.release();
});

it('a part lost while the acquire waits for the next: given back and taken again from the first', async () => {
  const path = `/multi-${++paths}`;
  const other = await Client.connect(server.connectString, { transport: server.transportFor('o') });
  const blocker = await new Mutex(other, `${path}/b`).acquire();
  const lock = new MultiLock([new Mutex(client, `${path}/a`), new Mutex(client, `${path}/b`)]);
  const acquiring = lock.acquire({ timeout: 600_000 });
  // Wait for our node under a, then delete it: the part is lost while b is waited for.
  const child = (what: string) =>
    waitFor(async () => (await client.getChildren(`${path}/a`).catch(() => []))[0], {
      timeoutMs: 10_000,
      intervalMs: 5,
      what,
    });
  const first = await child('our node under a');
  await other.delete(`${path}/a/${first}`);
  const again = await waitFor(
    async () => {
      const name = (await client.getChildren(`${path}/a`).catch(() => []))[0];
      return name !== undefined && name !== first ? name : undefined;
    },
    { timeoutMs: 10_000, intervalMs: 5, what: 'a new node under a' },
  );
  expect(again).not.toBe(first);
  await blocker.release();
  const lease = await acquiring;
  expect(lease.leases).toHaveLength(2);
  await lease.release();
  await other.close();
});
