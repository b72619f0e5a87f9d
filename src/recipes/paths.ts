// Everyday path helpers: create a node with its missing parents (Curator's
// creatingParentContainersIfNeeded, kazoo's ensure_path) and delete a subtree (Curator's
// deletingChildrenIfNeeded, kazoo's delete(recursive=True)).
import type { Client } from '../client/client.js';
import type { CallOptions, CreateOptions, Data, Stat } from '../client/types.js';
import { CreateMode } from '../client/types.js';
import { childPath, parentOf } from '../coordination/naming.js';
import { hasCode } from '../locks/errors.js';
import { type RetryPolicy, retry } from './retry.js';

/** The part of the client the path helpers use (a `Client` is one). */
export type PathClient = Pick<Client, 'create2' | 'delete' | 'getChildren'>;

/** Options of {@link ensurePath}. */
export interface EnsurePathOptions {
  /**
   * Create missing nodes as CONTAINER nodes (the server removes a container once its last child
   * is gone), as Curator's `creatingParentContainersIfNeeded`. Default true. A server without
   * containers (before 3.5.3) answers UNIMPLEMENTED; the nodes are then created PERSISTENT, and
   * the client is remembered as such.
   */
  containers?: boolean;
  /** Stops the work: the call rejects with the signal's reason. */
  signal?: AbortSignal;
  /** How lost connections and throttling are retried (see {@link retry}); its `signal` is ignored in favour of the one above. */
  retry?: RetryPolicy;
}

/** Clients whose server refused a CONTAINER node: their parents are persistent from then on. */
const noContainers = new WeakSet<object>();

/**
 * Makes sure `path` and all its ancestors exist (kazoo's `ensure_path`). Nodes that exist already
 * are left as they are, whatever their kind. Creating a node twice is harmless, so lost
 * connections are retried (see {@link EnsurePathOptions.retry}).
 */
export async function ensurePath(
  client: PathClient,
  path: string,
  options: EnsurePathOptions = {},
): Promise<void> {
  if (path === '/') return;
  const { signal } = options;
  const policy: RetryPolicy = { ...options.retry, signal };
  const wanted = options.containers ?? true;
  const modeFor = () =>
    wanted && !noContainers.has(client) ? CreateMode.CONTAINER : CreateMode.PERSISTENT;
  for (;;) {
    const mode = modeFor();
    try {
      await retry(() => client.create2(path, undefined, { mode, signal }), policy);
      return;
    } catch (error) {
      if (hasCode(error, 'NODEEXISTS')) return;
      if (signal?.aborted) throw error;
      if (hasCode(error, 'UNIMPLEMENTED') && mode === CreateMode.CONTAINER) {
        noContainers.add(client);
        continue;
      }
      const parent = parentOf(path);
      // At the root a NONODE means the chroot itself is missing: nothing to create here.
      if (!hasCode(error, 'NONODE') || parent === '/') throw error;
      await ensurePath(client, parent, options);
    }
  }
}

/** Options of {@link createWithParents}: the node's own create options, and how parents are made. */
export interface CreateWithParentsOptions extends CreateOptions, CallOptions {
  /** Missing parents as CONTAINER nodes (default true; see {@link EnsurePathOptions.containers}). */
  containerParents?: boolean;
  /** How creating the parents is retried (see {@link EnsurePathOptions.retry}). */
  retry?: RetryPolicy;
}

/**
 * Creates `path` (any mode, sequential included) after creating its missing parents (Curator's
 * `creatingParentContainersIfNeeded().forPath()`). Resolves with the actual path and the node's
 * metadata. The create of `path` itself is sent once: after a CONNECTIONLOSS its outcome is
 * unknown, and only the caller knows whether it is safe to send again.
 */
export async function createWithParents(
  client: PathClient,
  path: string,
  data?: Data,
  options: CreateWithParentsOptions = {},
): Promise<{
  /** The actual path (with the counter, for a sequential mode). */
  path: string;
  /** The new node's metadata. */
  stat: Stat;
}> {
  const { containerParents, retry: policy, ...createOptions } = options;
  for (;;) {
    try {
      return await client.create2(path, data, createOptions);
    } catch (error) {
      const parent = parentOf(path);
      if (!hasCode(error, 'NONODE') || parent === '/' || options.signal?.aborted) throw error;
      const ensureOptions: EnsurePathOptions = { containers: containerParents ?? true };
      if (options.signal) ensureOptions.signal = options.signal;
      if (policy) ensureOptions.retry = policy;
      await ensurePath(client, parent, ensureOptions);
    }
  }
}

/** Options of {@link deleteRecursive}. */
export interface DeleteRecursiveOptions {
  /** Delete `path` itself only at this version (-1, the default: any). Its descendants are deleted at any version. */
  version?: number;
  /** Stops the work: the call rejects with the signal's reason (part of the subtree may be gone). */
  signal?: AbortSignal;
  /** How lost connections and throttling are retried (see {@link retry}); its `signal` is ignored in favour of the one above. */
  retry?: RetryPolicy;
}

/**
 * What a delete can tell of its own outcome: `'deleted'`, this call removed the node (its reply
 * said so); `'gone'`, the node was gone before any delete of this call could have removed it;
 * `'deleted-or-gone'`, the node is gone and a delete of this call whose reply was lost (a lost
 * connection, a request timeout, an expired session) may have been the one that removed it, or
 * another client did: nobody can tell which.
 */
export type DeleteOutcome = 'deleted' | 'gone' | 'deleted-or-gone';

/**
 * Whether a request that failed with `error` may still have been applied by the server: its
 * reply was lost (CONNECTIONLOSS), given up on (REQUESTTIMEOUT) or cut off by the end of its
 * session (SESSIONEXPIRED). A throttled or refused request was not applied.
 */
export function mayHaveApplied(error: unknown): boolean {
  return hasCode(error, 'CONNECTIONLOSS', 'REQUESTTIMEOUT', 'SESSIONEXPIRED');
}

/**
 * Deletes `path` and everything under it (Curator's `deletingChildrenIfNeeded`). Resolves
 * `'deleted'` when this call deleted `path`, `'gone'` when it was already gone, and
 * `'deleted-or-gone'` when a delete of `path` whose reply was lost was retried and found it gone
 * (see {@link DeleteOutcome}). Children added while it runs are deleted too (a NOTEMPTY sends it
 * back to list again), and a node someone else deleted first is fine (NONODE). Not atomic: a
 * reader may see part of the subtree gone. Ephemeral nodes of other live sessions are deleted
 * like any other node, and a delete sent again after a lost reply deletes whatever node is at
 * `path` then (at `version`, if given). Against a writer that keeps adding children forever it
 * keeps going: bound it with `signal`.
 */
export async function deleteRecursive(
  client: PathClient,
  path: string,
  options: DeleteRecursiveOptions = {},
): Promise<DeleteOutcome> {
  const { signal, version = -1 } = options;
  let unknown = false;
  const policy: RetryPolicy = { maxAttempts: Number.POSITIVE_INFINITY, ...options.retry, signal };
  const deletePolicy: RetryPolicy = {
    ...policy,
    onRetry: (info) => {
      if (mayHaveApplied(info.error)) unknown = true;
      policy.onRetry?.(info);
    },
  };
  const goneNow = (): DeleteOutcome => (unknown ? 'deleted-or-gone' : 'gone');
  for (;;) {
    try {
      await retry(() => client.delete(path, version, { signal }), deletePolicy);
      return 'deleted';
    } catch (error) {
      if (hasCode(error, 'NONODE')) return goneNow();
      if (!hasCode(error, 'NOTEMPTY') || signal?.aborted) throw error;
    }
    let children: string[];
    try {
      children = await retry(() => client.getChildren(path, { signal }), policy);
    } catch (error) {
      if (hasCode(error, 'NONODE')) return goneNow();
      throw error;
    }
    for (const child of children) {
      await deleteRecursive(client, childPath(path, child), withoutVersion(options));
    }
  }
}

function withoutVersion(options: DeleteRecursiveOptions): DeleteRecursiveOptions {
  const { version: _version, ...rest } = options;
  return rest;
}
