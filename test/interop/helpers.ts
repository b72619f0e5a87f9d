// Fixtures of the interop tests: TypeScript clients on the shared server, one fresh lock path per
// test, and a teardown that checks no lock node was left behind before it stops every peer.
import { afterEach } from 'vitest';
import { type Client, connect } from '../../src/index.js';
import { sharedServer, type TcpProxy, uniquePath, waitFor } from '../harness/index.js';
import { newClient } from '../support/clients.js';
import { type CuratorRecipe, startCuratorPeer } from './curator.js';
import { type KazooRecipe, startKazooPeer } from './kazoo.js';
import { closeAllPeers, type LockPeer, sleep } from './peer.js';

/** Lock paths of the running test, checked for leftovers at its end. */
const lockPaths: string[] = [];

afterEach(async (context) => {
  try {
    // A test that already failed would only add noise here: its holders may still hold.
    if (context.task.result?.state !== 'fail') {
      const observer = await newClient();
      for (const path of lockPaths) {
        const left = await leftovers(observer, path);
        if (left.length > 0)
          throw new Error(`lock nodes left behind under ${path}: ${left.join(', ')}`);
      }
    }
  } finally {
    lockPaths.length = 0;
    // The clients close after this (test/support/clients.ts): its hook was registered first.
    await closeAllPeers();
  }
});

export function connectString(): string {
  return sharedServer().connectString;
}

/** TypeScript clients on the shared server (closed after the test). */
export { newClient, newClients } from '../support/clients.js';

/** A fresh lock path, checked after the test for nodes left behind. */
export function lockPath(): string {
  const path = `${uniquePath('interop')}/lock`;
  lockPaths.push(path);
  return path;
}

/** A fresh lock path, a peer of the other library on it and one of our clients, both connected. */
export interface PeerOnLock {
  readonly path: string;
  readonly peer: LockPeer;
  readonly zk: Client;
}

/** A Curator contender running `recipe` on a fresh lock path, beside one of our clients. */
export function curatorOnLock(recipe: CuratorRecipe): Promise<PeerOnLock> {
  return peerOnLock((path) => startCuratorPeer(connectString(), path, recipe));
}

/** A kazoo contender running `recipe` on a fresh lock path, beside one of our clients. */
export function kazooOnLock(recipe: KazooRecipe): Promise<PeerOnLock> {
  return peerOnLock((path) => startKazooPeer(connectString(), path, recipe));
}

async function peerOnLock(start: (path: string) => Promise<LockPeer>): Promise<PeerOnLock> {
  const path = lockPath();
  const [peer, zk] = await Promise.all([start(path), newClient()]);
  return { path, peer, zk };
}

/** Curator's protected node name (`_c_<uuid>-<lockName><seq10>`) as a pattern. */
export function protectedName(lockName: string): RegExp {
  const uuid = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
  return new RegExp(`^_c_${uuid}-${lockName}\\d{10}$`);
}

/**
 * The server expires `zk`'s session, which reaches it through `link`: the link is cut and
 * refused, and once `zk` has noticed, another client takes the session over and closes it.
 */
export async function expireThroughLink(zk: Client, link: TcpProxy): Promise<void> {
  link.refuse(true);
  link.cut();
  await waitFor(async () => (zk.state !== 'connected' ? true : undefined), {
    what: 'our client to notice the cut',
    timeoutMs: 30_000,
    intervalMs: 10,
  });
  const thief = await connect(sharedServer().connectString, {
    session: { id: zk.sessionId, password: zk.sessionPassword },
    renewSession: false,
  });
  await thief.close();
  link.refuse(false);
}

/** The last segment of a node path. */
export function nameOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Children of `path` in creation (sequence) order of their 10-digit suffix; [] when it is missing. */
export async function childrenOf(client: Client, path: string): Promise<string[]> {
  try {
    const children = await client.getChildren(path);
    return children.sort((a, b) => a.slice(-10).localeCompare(b.slice(-10)));
  } catch (error) {
    if ((error as { code?: string }).code === 'NONODE') return [];
    throw error;
  }
}

/** Polls until `path` has `count` children (a contender of another process has queued). */
export async function untilChildren(client: Client, path: string, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const children = await childrenOf(client, path);
    if (children.length === count) return;
    if (Date.now() > deadline)
      throw new Error(`expected ${count} children under ${path}, found ${children.join(', ')}`);
    await sleep(20);
  }
}

/** Creates `path` and its missing ancestors as persistent nodes. */
export async function createPath(client: Client, path: string): Promise<void> {
  const segments = path.split('/').filter(Boolean);
  for (let i = 1; i <= segments.length; i++) {
    try {
      await client.create2(`/${segments.slice(0, i).join('/')}`);
    } catch (error) {
      if ((error as { code?: string }).code !== 'NODEEXISTS') throw error;
    }
  }
}

/**
 * Every node under `path` except the semaphore's `locks` and `leases` directories (persistent or
 * container nodes, which the server reaps on its own): any other is a lock node nobody removed.
 */
async function leftovers(client: Client, path: string): Promise<string[]> {
  const found: string[] = [];
  for (const child of await childrenOf(client, path)) {
    const childPath = `${path}/${child}`;
    const stat = await client.exists(childPath);
    const isDirectory = (child === 'locks' || child === 'leases') && stat?.ephemeralOwner === 0n;
    if (isDirectory) found.push(...(await leftovers(client, childPath)));
    else found.push(childPath);
  }
  return found;
}

/**
 * `promise`, marked as handled: an acquire a test leaves waiting may reject when the test fails
 * early and teardown closes its client, which must not surface as an unhandled rejection.
 * Awaiting the returned promise still sees the rejection.
 */
export function inBackground<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}
