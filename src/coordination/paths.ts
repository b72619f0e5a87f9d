// Creating a node with its missing parents, once for the whole library: the lock engine, the
// recipes and the public path helpers (Curator's creatingParentContainersIfNeeded, kazoo's
// ensure_path) all come here, so what one of them learns about a server (that it has no
// CONTAINER nodes) every other one knows from then on.
import type { Client } from '../client/client.js';
import type { CallOptions, CreateOptions, Data, Stat } from '../client/types.js';
import { CreateMode } from '../client/types.js';
import type { StopSignal } from '../session/signal-waiters.js';
import { stopping } from './bound-signal.js';
import { hasCode } from './codes.js';
import { parentOf } from './naming.js';
import { retry } from './retry.js';

/** What creating parents needs from a client (a `Client` is one). */
export type ParentsClient = Pick<Client, 'create2'>;

/** How missing parents are made. */
export interface ParentRules {
  /**
   * Missing nodes as CONTAINER nodes (the server removes a container once its last child is gone).
   * Default true. A server without containers (before 3.5.3) answers UNIMPLEMENTED: the nodes are
   * then made PERSISTENT, for that client from then on (see {@link hasNoContainers}).
   */
  containers?: boolean | undefined;
  /** Stops the work: the error that comes next is passed on instead of being retried. */
  signal?: StopSignal | undefined;
  /**
   * How one create of a parent is retried; default {@link retry} within `signal` (every
   * retriable error, until the signal aborts). Creating a parent twice is harmless.
   */
  retry?: (<T>(op: () => Promise<T>) => Promise<T>) | undefined;
}

/** Clients whose server refused a CONTAINER node: their parents are persistent from then on. */
const noContainers = new WeakSet<object>();

/** Whether `client`'s server is known to refuse CONTAINER nodes (servers before 3.5.3). */
export function hasNoContainers(client: object): boolean {
  return noContainers.has(client);
}

/**
 * Makes sure `path` and all its ancestors exist. Nodes that exist already are left as they are,
 * whatever their kind. At the root a NONODE means the chroot itself is missing: that error is
 * passed on.
 */
export async function ensurePath(
  client: ParentsClient,
  path: string,
  rules: ParentRules = {},
): Promise<void> {
  if (path === '/') return;
  const { signal } = rules;
  const again = rules.retry ?? (<T>(op: () => Promise<T>) => retry(op, { signal }));
  const wanted = rules.containers ?? true;
  for (;;) {
    const mode = wanted && !noContainers.has(client) ? CreateMode.CONTAINER : CreateMode.PERSISTENT;
    try {
      await again(() => client.create2(path, undefined, stopping({ mode }, signal)));
      return;
    } catch (error) {
      if (hasCode(error, 'NODEEXISTS')) return;
      if (signal?.aborted) throw error;
      if (hasCode(error, 'UNIMPLEMENTED') && mode === CreateMode.CONTAINER) {
        noContainers.add(client);
        continue;
      }
      const parent = parentOf(path);
      if (!hasCode(error, 'NONODE') || parent === '/') throw error;
      await ensurePath(client, parent, rules);
    }
  }
}

/**
 * Creates `path` (any mode, sequential included) with `options`, after creating its missing
 * parents by `rules` (see {@link ensurePath}) when the server says NONODE. The create of `path`
 * itself is sent once per missing-parents round and never retried here: after a lost reply its
 * outcome is unknown, and only the caller knows whether it is safe to send again.
 */
export async function createWithParents(
  client: ParentsClient,
  path: string,
  data: Data | undefined,
  options: CreateOptions & CallOptions,
  rules: ParentRules = {},
): Promise<{ path: string; stat: Stat }> {
  for (;;) {
    try {
      return await client.create2(path, data, options);
    } catch (error) {
      // Only a NONODE says a parent is missing (a path the client refused, BADARGUMENTS, is not
      // even a string to take the parent of); at the root, the chroot itself is missing.
      const parent = parentOf(path);
      if (!hasCode(error, 'NONODE') || parent === '/' || (options.signal ?? options.stop)?.aborted)
        throw error;
      await ensurePath(client, parent, rules);
    }
  }
}
