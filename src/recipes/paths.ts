// Everyday path helpers: create a node with its missing parents (Curator's
// creatingParentContainersIfNeeded, kazoo's ensure_path) and delete a subtree (Curator's
// deletingChildrenIfNeeded, kazoo's delete(recursive=True)).
import type { RecipeClient } from '../client/recipe-client.js';
import type { CallOptions, CreateOptions, Data, Stat } from '../client/types.js';
import { hasCode } from '../coordination/codes.js';
import { childPath } from '../coordination/naming.js';
import * as parents from '../coordination/paths.js';
import { InvalidArgumentError } from '../protocol/errors.js';
import { pathProblem } from '../protocol/paths.js';
import type { StopSignal } from '../session/signal-waiters.js';
import { checkedRetry, type RetryPolicy, retry } from './retry.js';

/** @internal Throws an `InvalidArgumentError` unless `path` is a valid node path for `recipe`. */
export function checkRecipePath(path: string, recipe: string): void {
  const problem = pathProblem(path);
  if (problem !== null) {
    throw new InvalidArgumentError(`${recipe}: invalid path "${String(path)}": ${problem}`, {
      path,
    });
  }
}

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

/**
 * The rules of making parents for the public options: retried by the public policy, stopped by
 * `signal` (the call's signal, or a recipe's own wait) in place of the policy's own signal.
 */
function parentRules(
  containers: boolean | undefined,
  signal: StopSignal | undefined,
  retryPolicy: RetryPolicy | undefined,
): parents.ParentRules {
  const policy: RetryPolicy = { ...retryPolicy, signal: undefined };
  return { containers, signal, retry: (op) => checkedRetry(op, policy, signal) };
}

/**
 * Makes sure `path` and all its ancestors exist (kazoo's `ensure_path`). Nodes that exist already
 * are left as they are, whatever their kind. Creating a node twice is harmless, so lost
 * connections are retried (see {@link EnsurePathOptions.retry}). At the root a NONODE means the
 * chroot itself is missing: that error is passed on. The library's one implementation: the lock
 * recipes make their parents the same way, and a server found without containers is remembered
 * for both.
 */
export function ensurePath(
  client: RecipeClient,
  path: string,
  options: EnsurePathOptions = {},
): Promise<void> {
  const { containers, signal } = options;
  return parents.ensurePath(client, path, parentRules(containers, signal, options.retry));
}

/**
 * @internal {@link ensurePath} for a recipe's own wait, stopped by `stop` (its bound read as a
 * signal, see StopSignal), retried as the default policy retries.
 */
export function ensurePathUntil(
  client: RecipeClient,
  path: string,
  containers: boolean,
  stop: StopSignal | undefined,
): Promise<void> {
  return parents.ensurePath(client, path, parentRules(containers, stop, undefined));
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
  client: RecipeClient,
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
  const rules = parentRules(containerParents, options.signal ?? options.stop, policy);
  return parents.createWithParents(client, path, data, createOptions, rules);
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
  client: RecipeClient,
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
