// Lock revocation as Curator does it: a process that wants the lock writes `__REVOKE__` into the
// holder's node; a holder that opted in watches its own node's data and is told.

import type { RecipeClient } from '../client/recipe-client.js';
import type { WatchedEvent } from '../client/types.js';
import { queueOrder } from '../coordination/creation-order.js';
import { baseName, childPath, LockName, parentOf, parseContender } from '../coordination/naming.js';
import { retry } from '../coordination/retry.js';
import { dataWatchKey, joinWatcher, type WatcherMembership } from '../coordination/watchers.js';
import { ZooKeeperError } from '../protocol/errors.js';
import { electionEvent } from '../telemetry/lock.js';
import { badArguments, hasCode } from './errors.js';
import type { Lease, ReentrantAcquireOptions } from './types.js';

/** The data Curator's `Revoker.attemptRevoke` writes into a holder's node (ASCII). */
export const REVOKE_MESSAGE = '__REVOKE__';
const REVOKE_BYTES = new TextEncoder().encode(REVOKE_MESSAGE);

/** The reason a lease's `revocation` signal aborts: another process asked for the lock. */
export class RevocationRequestedError extends ZooKeeperError {
  override name = 'RevocationRequestedError';

  constructor(path: string) {
    super('REVOCATIONREQUESTED', `another process asked the holder of ${path} to release it`, {
      path,
      op: 'revoke',
    });
  }
}

/** Acquire options of a revocable hold (see {@link RevocableLease}). */
export interface RevocableAcquireOptions extends ReentrantAcquireOptions {
  /** Watch the held node for revocation requests (Curator's `makeRevocable`). */
  revocable: true;
}

/**
 * A lease whose holder accepts revocation requests. Revocation is a request, not a loss: the
 * lease still holds (its `signal` is unaffected) until the holder releases it.
 */
export interface RevocableLease extends Lease {
  /**
   * Aborted, with a {@link RevocationRequestedError}, when another process asks for the lock
   * (`revoke()` here, `Revoker.attemptRevoke` in Curator). Finish up and `release()`. Also aborted
   * when the request was already written before this lease was granted.
   */
  readonly revocation: AbortSignal;
}

function isRevokeMessage(data: Uint8Array): boolean {
  return data.length === REVOKE_BYTES.length && data.every((byte, i) => byte === REVOKE_BYTES[i]);
}

/**
 * Makes `lease` a {@link RevocableLease}: its node's data is read, and watched, until the lease
 * ends. The same lease object is returned (reentrancy keeps recognising it).
 */
export function watchRevocation(client: RecipeClient, lease: Lease): RevocableLease {
  if ('revocation' in lease) return lease as RevocableLease; // already watched
  const requested = new AbortController();
  // The watch joins the node's shared closure (see joinWatcher): however many revocable leases
  // a node has (reentry), the client holds one closure for it, and a lease that ends leaves.
  let membership: WatcherMembership | undefined;
  const leave = () => {
    membership?.leave();
    membership = undefined;
  };
  const check = async (): Promise<void> => {
    if (lease.signal.aborted || requested.signal.aborted) return leave();
    const joined = joinWatcher(client, dataWatchKey(lease.path), onEvent);
    membership = joined;
    try {
      const { data } = await retry(
        () => client.getData(lease.path, { watch: joined.watcher, signal: lease.signal }),
        { signal: lease.signal },
      );
      joined.armed();
      if (isRevokeMessage(data) && !requested.signal.aborted) {
        electionEvent('revocation-requested', parentOf(lease.path), lease.path);
        requested.abort(new RevocationRequestedError(lease.path));
        leave();
      }
    } catch {
      // NONODE, a session that ended, or the lease's end: the lease's own signal reports it.
      leave();
    }
  };
  const onEvent = (event: WatchedEvent) => {
    // The shared closure fired and dropped its waiters: join again when looking again.
    membership = undefined;
    if (event.type === 'NodeDataChanged') void check();
  };
  if (!lease.signal.aborted) lease.signal.addEventListener('abort', leave, { once: true });
  void check();
  Object.defineProperty(lease, 'revocation', { value: requested.signal, enumerable: true });
  return lease as RevocableLease;
}

/**
 * Asks the holder of the mutex at `lockPath` (the first contender in this library's
 * Mutex order, which is Curator's below the sequence counter's limit) to release it, by writing `__REVOKE__` into its node as Curator's `Revoker`
 * does. Resolves the node written to, or null when nobody holds the lock or the holder's node went
 * before the write (it released meanwhile). The holder decides: only holders that opted in
 * (`acquire({ revocable: true })` here, `makeRevocable` in Curator) are told at all.
 */
export async function revoke(client: RecipeClient, lockPath: string): Promise<string | null> {
  let children: string[];
  try {
    children = await retry(() => client.getChildren(lockPath));
  } catch (error) {
    if (hasCode(error, 'NONODE')) return null;
    throw error;
  }
  // The holder as this library's Mutex decides it: both name forms, creation order (czxid order
  // once the sequence counter has reached its limit).
  const [holder] = await queueOrder(
    client,
    lockPath,
    children,
    [LockName.mutex, LockName.kazooMutex],
    'numeric',
    undefined,
    new Map(),
    undefined,
  );
  if (!holder) return null;
  const node = childPath(lockPath, holder.name);
  return (await revokeNode(client, node)) ? node : null;
}

/**
 * Asks the process that owns the lock node `nodePath` to release it (any recipe's node: a read or
 * write lock holder, a waiter). Resolves false when the node does not exist. Refuses paths that
 * are not lock nodes (BADARGUMENTS), so a typo cannot overwrite unrelated data.
 */
export async function revokeNode(client: RecipeClient, nodePath: string): Promise<boolean> {
  const names = Object.values(LockName);
  if (!parseContender(baseName(nodePath), names)) {
    throw badArguments(`${nodePath} is not a lock node`, nodePath);
  }
  try {
    // Repeating the write after a lost reply is harmless: lock node names are never reused.
    await retry(() => client.setData(nodePath, REVOKE_BYTES));
    return true;
  } catch (error) {
    if (hasCode(error, 'NONODE')) return false;
    throw error;
  }
}
