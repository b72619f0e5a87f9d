// Shared fixtures of the lock tests: clients on the shared server, one fresh root per test.

import { type Client, ZooKeeperError } from '../../../src/index.js';
import { type Lease, Mutex, type RecipeClient } from '../../../src/locks/index.js';
import { fourLetterWord, sharedServer, uniquePath } from '../../harness/index.js';
import { newClient } from '../../support/clients.js';
import { forwardLockClient, type LockOperations } from '../../support/forward-lock-client.js';

export { newClient, newClients, proxiedClient } from '../../support/clients.js';

/** A fresh lock path for one test. */
export function lockPath(name = 'lock'): string {
  return `${uniquePath('locks')}/${name}`;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls until `probe` returns true (fails the test after `timeoutMs`). */
export async function until(
  probe: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** A Mutex held by a new client on a fresh path, and a second client (`admin`) to meddle with it. */
export async function heldMutex(): Promise<{
  zk: Client;
  admin: Client;
  path: string;
  lease: Lease;
}> {
  const [zk, admin] = [await newClient(), await newClient()];
  const path = lockPath();
  const lease = await new Mutex(zk, path).acquire();
  return { zk, admin, path, lease };
}

/** Children of `path`, or [] when it does not exist. */
export async function childrenOf(client: Client, path: string): Promise<string[]> {
  try {
    return (await client.getChildren(path)).sort();
  } catch (error) {
    if ((error as { code?: string }).code === 'NONODE') return [];
    throw error;
  }
}

/** Polls until `path` has exactly `count` children (a queue reached its length), as seen by `client`. */
export function untilChildren(
  client: Client,
  path: string,
  count: number,
  what: string,
  timeoutMs?: number,
): Promise<void> {
  return until(async () => (await childrenOf(client, path)).length === count, what, timeoutMs);
}

/** What the clients saw while taking turns at a lock (see `takeTurns`). */
export interface Turns {
  /** The most holders inside at one time. */
  maxInside: number;
  /** Turns taken, all clients together. */
  turns: number;
  /** Each turn's fencing token, in the order the turns began. */
  tokens: bigint[];
}

/**
 * Every client takes `rounds` turns, one after the other, at the lock `lockOf(client)` makes
 * once per client: acquire (20 s timeout), run `inside()` while holding, release. Counts how
 * many were inside at once, so a test can tell exclusion (or a semaphore's limit) held.
 */
export async function takeTurns(
  clients: Client[],
  rounds: number,
  lockOf: (client: Client) => { acquire(options: { timeout: number }): Promise<Lease> },
  inside: () => Promise<void>,
): Promise<Turns> {
  const seen: Turns = { maxInside: 0, turns: 0, tokens: [] };
  let now = 0;
  await Promise.all(
    clients.map(async (client) => {
      const lock = lockOf(client);
      for (let i = 0; i < rounds; i++) {
        await using lease = await lock.acquire({ timeout: 20_000 });
        now++;
        seen.turns++;
        seen.maxInside = Math.max(seen.maxInside, now);
        seen.tokens.push(lease.fencingToken);
        await inside();
        now--;
      }
    }),
  );
  return seen;
}

/** Data watches per path on the shared server (`wchp`: child watches are not listed): path -> session ids. */
export async function watchesByPath(prefix: string): Promise<Map<string, bigint[]>> {
  const { connectString } = sharedServer();
  const [host, port] = connectString.split(',')[0]!.split(':') as [string, string];
  const text = await fourLetterWord(host, Number(port), 'wchp');
  const result = new Map<string, bigint[]>();
  let current: bigint[] | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('/')) {
      current = line.startsWith(prefix) ? [] : undefined;
      if (current) result.set(line.trim(), current);
    } else if (current && line.trim().startsWith('0x')) {
      current.push(BigInt(line.trim()));
    }
  }
  return result;
}

/** Polls the server's data watches under `prefix` until `accept` takes them; answers them. */
export async function watchesWhen(
  prefix: string,
  accept: (watches: Map<string, bigint[]>) => boolean,
  what: string,
): Promise<Map<string, bigint[]>> {
  let watches = new Map<string, bigint[]>();
  await until(async () => {
    watches = await watchesByPath(prefix);
    return accept(watches);
  }, what);
  return watches;
}

/**
 * A client wrapper that counts calls (`childWatches`: getChildren calls that set a watch; `wchp`
 * shows data watches only) and watcher firings (`wakes`), and lets a test replace operations (to
 * simulate a lost reply deterministically). Everything else goes to the real client.
 */
export function instrument(
  client: Client,
  overrides: Partial<LockOperations> = {},
): { client: RecipeClient; calls: Record<string, number>; wakes: { count: number } } {
  const calls: Record<string, number> = {};
  const wakes = { count: 0 };
  const count = (name: string) => {
    calls[name] = (calls[name] ?? 0) + 1;
  };
  // The plain operations: counted, then sent on (or to their override).
  const counted = <K extends 'sync' | 'create2' | 'delete' | 'exists'>(
    name: K,
  ): LockOperations[K] => {
    const send = (overrides[name] ?? client[name].bind(client)) as (...args: unknown[]) => unknown;
    return ((...args: unknown[]) => {
      count(name);
      return send(...args);
    }) as LockOperations[K];
  };
  const wrapped = forwardLockClient(client, {
    sync: counted('sync'),
    create2: counted('create2'),
    delete: counted('delete'),
    exists: counted('exists'),
    getChildren: (...args) => {
      count('getChildren');
      if (args[1]?.watch) count('childWatches');
      return (overrides.getChildren ?? client.getChildren.bind(client))(...args);
    },
    getData: (path, options = {}) => {
      count('getData');
      const watch = options.watch;
      const withWakes = watch
        ? {
            ...options,
            watch: (event: Parameters<typeof watch>[0]) => {
              wakes.count++;
              watch(event);
            },
          }
        : options;
      return (overrides.getData ?? client.getData.bind(client))(path, withWakes);
    },
  });
  return { client: wrapped, calls, wakes };
}

/**
 * `instrument(zk)` whose first create2 fails with CONNECTIONLOSS: once the server applied it
 * (`applied`, only the reply is lost), or before it was sent (`applied` false).
 */
export function losingFirstCreate(zk: Client, applied: boolean): ReturnType<typeof instrument> {
  let first = true;
  return instrument(zk, {
    create2: async (path, data, options) => {
      if (!first) return zk.create2(path, data, options);
      first = false;
      if (applied) await zk.create2(path, data, options);
      throw new ZooKeeperError('CONNECTIONLOSS', 'simulated: reply lost');
    },
  });
}

export { registeredWatchers } from '../../support/registered-watchers.js';
