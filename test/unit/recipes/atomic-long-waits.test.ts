// DistributedAtomicLong's operations are waits of the contract (docs/contract.md): each takes
// `{ timeout, signal }`, a timeout rejects with the one TimeoutError and an abort with the
// signal's reason, at once, through every step: reads and their retries, the rounds, the
// promoted change's wait for its lock (its contender node removed) and its rounds under the lock.
// `promotedToLock.timeout` stays what it was: one more lost round. Against the in-process model.
import { getEventListeners } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { Mutex } from '../../../src/locks/index.js';
import { InvalidArgumentError, TimeoutError } from '../../../src/protocol/errors.js';
import { type AtomicResult, DistributedAtomicLong } from '../../../src/recipes/index.js';
import { startServer, type TestServer } from '../../../src/testing/index.js';
import { rejection } from '../../support/thrown.js';
import { waitFor } from '../../support/wait.js';

let server: TestServer;
let other: Client;
let counter = 0;
const clients: Client[] = [];
const stuckNames: string[] = [];

beforeAll(async () => {
  server = await startServer({ listen: false });
  other = await open();
});
afterAll(async () => {
  // The stuck clients' close is answered at once (not waited out).
  for (const name of stuckNames) server.delayReplies(0, { client: name });
  await Promise.all(clients.map((client) => client.close()));
  await server?.close();
});

/** A client of the model server, closed after the file; `name` names its links for faults. */
async function open(name = `client-${clients.length}`): Promise<Client> {
  const client = await Client.connect(server.connectString, {
    transport: server.transportFor(name),
  });
  clients.push(client);
  return client;
}

/** A client whose replies never come from now on (the server is stuck for it). */
async function stuck(): Promise<Client> {
  const name = `stuck-${++counter}`;
  const client = await open(name);
  server.delayReplies(600_000, { client: name });
  stuckNames.push(name);
  return client;
}

const path = () => `/atomic-${++counter}`;

/**
 * `client` with a getData that lets `other` bump the node just after each read, so that every
 * compare-and-set loses (BADVERSION) and a promoted change goes to its lock.
 */
function losingEveryRound(client: Client): Client {
  return new Proxy(client, {
    get(target, prop) {
      if (prop === 'getData') {
        return async (node: string, options?: { signal?: AbortSignal }) => {
          const read = await target.getData(node, options);
          await other.setData(node, read.data, -1);
          return read;
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

type Operation = [string, (counter: DistributedAtomicLong, options: object) => Promise<unknown>];
const OPERATIONS: Operation[] = [
  ['get', (c, o) => c.get(o)],
  ['increment', (c, o) => c.increment(o)],
  ['decrement', (c, o) => c.decrement(o)],
  ['add', (c, o) => c.add(5, o)],
  ['subtract', (c, o) => c.subtract(5n, o)],
  ['trySet', (c, o) => c.trySet(7, o)],
  ['compareAndSet', (c, o) => c.compareAndSet(0, 1, o)],
  ['forceSet', (c, o) => c.forceSet(9, o)],
];

describe('DistributedAtomicLong operations take { timeout, signal }', () => {
  it.each(OPERATIONS)(
    '%s: a timeout on a stuck server rejects with a TimeoutError',
    async (_, run) => {
      const counter = new DistributedAtomicLong(await stuck(), path());
      const error = await rejection(run(counter, { timeout: 50 }));
      expect(error).toBeInstanceOf(TimeoutError);
      expect(error).toMatchObject({ code: 'TIMEOUT', timeout: 50 });
    },
  );

  it.each(OPERATIONS)('%s: an abort rejects at once with the signal’s reason', async (_, run) => {
    const counter = new DistributedAtomicLong(await stuck(), path());
    const controller = new AbortController();
    const reason = new Error('the caller gave up');
    const running = run(counter, { signal: controller.signal });
    controller.abort(reason);
    expect(await rejection(running)).toBe(reason);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it.each(OPERATIONS)(
    '%s: a bad timeout is refused with an InvalidArgumentError',
    async (_, run) => {
      const counter = new DistributedAtomicLong(other, path());
      expect(await rejection(run(counter, { timeout: -1 }))).toBeInstanceOf(InvalidArgumentError);
    },
  );

  it('bounds the pauses of the retry loop: lost rounds with long pauses end at the timeout', async () => {
    const node = path();
    await new DistributedAtomicLong(other, node).forceSet(1);
    const counter = new DistributedAtomicLong(losingEveryRound(await open()), node, {
      retry: { maxAttempts: 100, baseDelay: 60_000, maxDelay: 60_000, jitter: 'none' },
    });
    const started = performance.now();
    expect(await rejection(counter.increment({ timeout: 100 }))).toBeInstanceOf(TimeoutError);
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('leaves no listener on the caller’s signal once it resolved, and answers as before', async () => {
    const node = path();
    const counter = new DistributedAtomicLong(await open(), node);
    const controller = new AbortController();
    const result = await counter.add(3, { timeout: 10_000, signal: controller.signal });
    expect(result).toMatchObject({ succeeded: true, preValue: 0n, postValue: 3n });
    expect(await counter.get({ signal: controller.signal })).toBe(3n);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});

describe('a change promoted to a lock, bounded by the caller', () => {
  /** A counter whose every round loses, promoted to `lock`, which another session holds. */
  async function promotedWhileHeld(extra: { timeout?: number } = {}) {
    const node = path();
    const lock = `${node}-lock`;
    await new DistributedAtomicLong(other, node).forceSet(1);
    const held = await new Mutex(other, lock).acquire();
    const counter = new DistributedAtomicLong(losingEveryRound(await open()), node, {
      retry: { maxAttempts: 1 },
      promotedToLock: { path: lock, ...extra },
    });
    return { counter, lock, held };
  }

  it('a timeout while waiting for the lock rejects with a TimeoutError and leaves no contender node', async () => {
    const { counter, lock, held } = await promotedWhileHeld();
    try {
      const error = await rejection(counter.increment({ timeout: 200 }));
      expect(error).toBeInstanceOf(TimeoutError);
      expect(error).toMatchObject({ code: 'TIMEOUT' });
      expect(await other.getChildren(lock)).toEqual([held.path.slice(lock.length + 1)]);
    } finally {
      await held.release();
    }
  });

  it('an abort while waiting for the lock rejects with the signal’s reason and leaves no contender node', async () => {
    const { counter, lock, held } = await promotedWhileHeld();
    try {
      const controller = new AbortController();
      const reason = new Error('the caller gave up');
      const running = counter.increment({ signal: controller.signal });
      // Aborted once the change waits in line behind the holder.
      await waitFor(async () => ((await other.getChildren(lock)).length === 2 ? true : undefined), {
        what: 'the change to wait in line for the lock',
        timeoutMs: 5_000,
        intervalMs: 5,
      });
      controller.abort(reason);
      expect(await rejection(running)).toBe(reason);
      expect(await other.getChildren(lock)).toEqual([held.path.slice(lock.length + 1)]);
    } finally {
      await held.release();
    }
  });

  it('promotedToLock.timeout is still one more lost round, not the caller’s timeout', async () => {
    const { counter, held } = await promotedWhileHeld({ timeout: 50 });
    try {
      const result: AtomicResult = await counter.increment({ timeout: 10_000 });
      expect(result.succeeded).toBe(false);
    } finally {
      await held.release();
    }
  });
});
