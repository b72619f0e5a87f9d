// Planted bugs: variants of the recipes' behaviour that live here, in test code, and reach the
// real recipes only through their public seams (the client a lock is given, its options, the
// transport). Each must be caught by the invariants within the CI seed budget.

import type { Client } from '../../src/client/client.js';
import type { ClientEvents, WatchedEvent, Watcher } from '../../src/client/types.js';
import type { Leadership, Lease, LockOptions } from '../../src/locks/index.js';
import { encodeRequest } from '../../src/protocol/codecs.js';
import { OpCode } from '../../src/protocol/ops.js';
import { Reader } from '../../src/protocol/reader.js';
import type { RecipeClient } from '../../src/recipes/index.js';
import type { Connection, Transport } from '../../src/session/transport.js';
import { serverCodecs as codecs, readRequestHeader } from '../../src/testing/wire/server-codecs.js';
import { forwardLockClient } from '../support/forward-lock-client.js';
import { withOwnNodes } from './plant-kit.js';
import { barrierPlants } from './plants-barriers.js';
import { cachePlants } from './plants-cache.js';
import { countersPlants } from './plants-counters.js';
import { guardedPlants } from './plants-guarded.js';
import { leasePlants } from './plants-leases.js';
import { recipePlants } from './plants-recipes.js';
import { sessionPlants } from './plants-session.js';
import type { World } from './world.js';

export interface Plant {
  name: string;
  description: string;
  /** The workload the bug shows in. */
  workload?: string;
  nearWrap?: boolean;
  /** The ensemble's size, when the bug needs followers. */
  members?: number;
  /** Connect with this chroot. */
  chroot?: string;
  /** Extra options for every lock. */
  lockOptions?: LockOptions;
  /** Enable the slow-follower fault (stale reads after a reconnect). */
  slowFollowers?: boolean;
  /** The faults to draw from, and the gap between two (virtual ms), instead of the usual mix. */
  faultKinds?: string[];
  faultGap?: [number, number];
  /** The client the lock sees. */
  wrap?(client: Client, world: World, process: string): RecipeClient;
  /** The holds drawn for the world (see world.ts), when the bug needs a kind. */
  holds?: 'short' | 'mixed' | 'long';
  /** The lease the holder sees, in place of the one the recipe granted. */
  lease?(lease: Lease, client: Client, world: World): Lease;
  /** The leadership term the leader sees, in place of the one the latch granted. */
  term?(term: Leadership, client: Client, world: World): Leadership;
  /** The transport the client uses. */
  transport?(transport: Transport): Transport;
  /** Enforce digest auth on the ensemble (every client sends the credentials). */
  auth?: boolean;
  /** Reset connections just after a watch is set (a reconnect between a watch and its event). */
  watchResets?: boolean;
  /** `Math.random` for the world (the library's source of randomness, the reconnect pauses'). */
  random?: () => number;
  /** The client the TreeCache sees (the `cache` workload). */
  cacheClient?(client: Client, world: World): RecipeClient;
  /** The client the SharedCount (`use` 'count') or guaranteedDelete (`'delete'`) sees (the `counters` workload). */
  countersClient?(client: Client, world: World, use: 'count' | 'delete'): Client;
}

/**
 * `client` as the lock sees it when it never hears of a session expiry: the `expired` state change
 * and the `None` events of the one-shot watches the expiry ended are not passed on.
 */
function hideExpiry(client: Client): RecipeClient {
  const hideEnding = <O extends { watch?: Watcher }>(options: O | undefined): O | undefined => {
    const watch = options?.watch;
    if (!watch) return options;
    return { ...options, watch: (event: WatchedEvent) => event.type !== 'None' && watch(event) };
  };
  return lockClientWith(client, {
    on: (event, listener) =>
      event === 'state'
        ? client.on('state', (state, change) => {
            if (state !== 'expired') (listener as ClientEvents['state'])(state, change);
          })
        : client.on(event, listener),
    getData: (path, options) => client.getData(path, hideEnding(options)),
    exists: (path, options) => client.exists(path, hideEnding(options)),
  });
}

/** `client` as a RecipeClient with some members replaced (beyond what forwardLockClient offers). */
function lockClientWith(
  client: Client,
  replaced: {
    on?: <E extends keyof ClientEvents>(event: E, listener: ClientEvents[E]) => () => void;
    sessionId?: () => bigint;
    getData?: Client['getData'];
    exists?: Client['exists'];
  },
): RecipeClient {
  const base = forwardLockClient(client, {
    ...(replaced.getData ? { getData: replaced.getData } : {}),
    ...(replaced.exists ? { exists: replaced.exists } : {}),
  });
  return {
    create2: base.create2,
    delete: base.delete,
    exists: base.exists,
    getData: base.getData,
    getChildren: base.getChildren,
    sync: base.sync,
    setData: base.setData,
    multi: base.multi,
    watch: base.watch,
    on: replaced.on ?? base.on,
    get state() {
      return client.state;
    },
    get closing() {
      return client.closing;
    },
    get sessionId() {
      return replaced.sessionId ? replaced.sessionId() : client.sessionId;
    },
    get lastZxid() {
      return client.lastZxid;
    },
    get chroot() {
      return client.chroot;
    },
  };
}

/** The sequence suffix of a Curator-style mutex node (after `lock-`; signed past the wrap). */
function sequenceOf(name: string): number {
  const match = /lock-(-?\d+)$/.exec(name);
  return match ? Number(match[1]) : Number.NaN;
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash <= 0 ? '/' : path.slice(0, slash);
}

/**
 * The world of a plant that hides session expiry from a lock or an election (under the 'expired'
 * loss policy): holds that span a black hole longer than the session timeout.
 */
const expiryHidden = {
  lockOptions: { lossPolicy: 'expired' },
  holds: 'long',
  faultKinds: ['holeLong', 'holeLong', 'reset'],
  faultGap: [500, 3_000],
  wrap: hideExpiry,
} as const satisfies Partial<Plant>;

export const plants: Record<string, Plant> = {
  'skip-relist': {
    name: 'skip-relist',
    description:
      'a waiter woken by its predecessor going assumes everyone ahead of it is gone (no fresh listing)',
    workload: 'mutex',
    wrap(client) {
      const listings = new Map<string, string[]>();
      let woke: { dir: string; sequence: number } | null = null;
      return withOwnNodes(client, (own) => ({
        getChildren: (async (path: string, options?: Parameters<Client['getChildren']>[1]) => {
          if (woke && woke.dir === path && listings.has(path)) {
            const after = woke.sequence;
            woke = null;
            return listings.get(path)!.filter((name) => sequenceOf(name) > after);
          }
          const children = await client.getChildren(path, options);
          listings.set(path, children);
          return children;
        }) as Client['getChildren'],
        getData: ((path: string, options?: Parameters<Client['getData']>[1]) => {
          const watch = options?.watch;
          return client.getData(path, {
            ...options,
            watch: watch
              ? (event) => {
                  // A predecessor went (not our own node's loss watch).
                  if (event.type === 'NodeDeleted' && !own.has(path)) {
                    woke = { dir: parentOf(path), sequence: sequenceOf(path) };
                  }
                  watch(event);
                }
              : undefined,
          });
        }) as Client['getData'],
      }));
    },
  },
  'cleanup-gives-up': {
    name: 'cleanup-gives-up',
    description: 'deleting a lock node stops after one failed delete (the node stays)',
    workload: 'mutex',
    // Many releases (each a delete that may fail) per world.
    holds: 'short',
    // Cuts break the link just as a reply comes back: deletes fail in flight.
    faultKinds: ['cut', 'cut', 'reset'],
    faultGap: [200, 1500],
    wrap(client) {
      const failed = new Set<string>();
      return forwardLockClient(client, {
        delete: (async (
          path: string,
          version?: number,
          options?: Parameters<Client['delete']>[2],
        ) => {
          // After one failure the retry pretends success: the node is left behind.
          if (failed.has(path)) return;
          try {
            await client.delete(path, version, options);
          } catch (error) {
            failed.add(path);
            throw error;
          }
        }) as Client['delete'],
      });
    },
  },
  'restore-forgets-chroot': {
    name: 'restore-forgets-chroot',
    description: 'SetWatches after a reconnect names the watched paths without the chroot',
    workload: 'mutex',
    chroot: '/app',
    transport(inner) {
      return {
        async connect(options) {
          const connection = await inner.connect(options);
          return stripChrootFromSetWatches(connection, '/app');
        },
      };
    },
  },
  'restore-drops-watches': {
    name: 'restore-drops-watches',
    description: 'SetWatches after a reconnect restores none of the watches (empty path lists)',
    workload: 'mutex',
    transport(inner) {
      return {
        async connect(options) {
          return rewriteSetWatches(await inner.connect(options), () => []);
        },
      };
    },
  },
  'recovery-read-without-sync': {
    name: 'recovery-read-without-sync',
    description:
      'after a create whose reply was lost, the lock lists the children to find its node without a sync first',
    workload: 'mutex',
    // Followers whose apply pipeline stalls now and then, and replies of writes lost: a create
    // lands, its reply does not, and the reconnect may reach a follower that has not applied it.
    slowFollowers: true,
    members: 3,
    faultKinds: ['lostReplyStall', 'lostReplyStall', 'lostReply', 'reset'],
    faultGap: [200, 1500],
    wrap(client) {
      // The recovery reads stay; only the sync before them is skipped.
      return forwardLockClient(client, { sync: (async () => {}) as Client['sync'] });
    },
  },
  'lease-outlives-expiry': {
    name: 'lease-outlives-expiry',
    description:
      'the lock never hears of a session expiry (the state change and the watches it ends are hidden): a held lease is not aborted',
    workload: 'mutex',
    ...expiryHidden,
  },
  'term-outlives-expiry': {
    name: 'term-outlives-expiry',
    description:
      'the election never hears of a session expiry: the old term is not ended while another candidate leads on the server',
    workload: 'latch',
    ...expiryHidden,
  },
  'waiter-keeps-old-node': {
    name: 'waiter-keeps-old-node',
    description:
      "after a renewal the lock still believes in its old session (the session id it sees never changes): it may hold through the expired session's node",
    workload: 'mutex',
    holds: 'short',
    faultKinds: ['holeLong', 'holeLong', 'holeShort', 'reset'],
    faultGap: [300, 2_000],
    wrap(client) {
      let first: bigint | undefined;
      return lockClientWith(client, {
        sessionId: () => {
          first ??= client.sessionId;
          return first;
        },
      });
    },
  },
  ...leasePlants,
  ...recipePlants,
  ...sessionPlants,
  ...cachePlants,
  ...countersPlants,
  ...guardedPlants,
  ...barrierPlants,
  'wrap-text-order': {
    name: 'wrap-text-order',
    description:
      'contenders ordered by their sequence text once the counter has reached its limit (not creation order)',
    workload: 'mutex',
    nearWrap: true,
    lockOptions: { sequenceOrder: 'interop' },
  },
};

/** A connection whose SetWatches/SetWatches2 frames lose the chroot from every path. */
function stripChrootFromSetWatches(connection: Connection, chroot: string): Connection {
  const strip = (path: string) =>
    path.startsWith(`${chroot}/`) ? path.slice(chroot.length) : path;
  return rewriteSetWatches(connection, (paths) => paths.map(strip));
}

/**
 * A connection whose SetWatches/SetWatches2 frames carry `rewrite`'s path lists instead (`field`
 * names the list: `dataWatches`, `existWatches`, `childWatches`, ...).
 */
export function rewriteSetWatches(
  connection: Connection,
  rewrite: (paths: string[], field: string) => string[],
): Connection {
  return {
    chunks: connection.chunks,
    closed: connection.closed,
    close: () => connection.close(),
    write(bytes) {
      // The session writes whole frames; rewrite the SetWatches ones.
      const out: Uint8Array[] = [];
      let at = 0;
      let changed = false;
      while (at + 4 <= bytes.length) {
        const length = new DataView(bytes.buffer, bytes.byteOffset + at).getInt32(0);
        const end = at + 4 + length;
        if (length < 8 || end > bytes.length) break;
        const body = bytes.subarray(at + 4, end);
        const reader = new Reader(body);
        const header = readRequestHeader(reader);
        if (header.type === OpCode.setWatches || header.type === OpCode.setWatches2) {
          const codec = header.type === OpCode.setWatches ? codecs.setWatches : codecs.setWatches2;
          const request = codec.readRequest(reader) as unknown as Record<string, unknown>;
          for (const [key, value] of Object.entries(request)) {
            if (Array.isArray(value)) request[key] = rewrite(value as string[], key);
          }
          out.push(encodeRequest(header.xid, codec as typeof codecs.setWatches2, request as never));
          changed = true;
        } else out.push(bytes.subarray(at, end));
        at = end;
      }
      if (!changed || at !== bytes.length) return connection.write(bytes);
      const total = out.reduce((n, b) => n + b.length, 0);
      const joined = new Uint8Array(total);
      let offset = 0;
      for (const b of out) {
        joined.set(b, offset);
        offset += b.length;
      }
      return connection.write(joined);
    },
  };
}
