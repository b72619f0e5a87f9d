// Every lock under a root: walks the tree and inspects each folder that holds lock contenders.

import type { RecipeClient } from '../client/recipe-client.js';
import { baseName, childPath, LockName, parentOf } from '../coordination/naming.js';
import { sortContenders } from '../coordination/order.js';
import { LATCH_NAME } from './election-types.js';
import { hasCode } from './errors.js';
import {
  type InspectOptions,
  inspectLock,
  isLeaseNode,
  KAZOO_READ_NAME,
  type LockContender,
  type LockInspection,
} from './inspect.js';

/** A lock found under a root: where, which layout, who holds and how many wait. */
export interface LockFolder {
  /** The lock path (the folder holding the contender nodes). */
  readonly path: string;
  /**
   * `semaphore` (Curator's `leases/` + `locks/`, or `leases/` alone), `election` (LeaderLatch
   * candidates only), else the naming of its sequential lock nodes.
   */
  readonly layout: 'curator' | 'kazoo' | 'curator+kazoo' | 'semaphore' | 'election';
  /** The first holder (in grant order; an election's leader), if any. */
  readonly holder: LockContender | undefined;
  /** The whole view of the lock, as {@link inspectLock} gives it. */
  readonly inspection: LockInspection;
}

/** Options of {@link findLocks}. */
export interface FindLocksOptions {
  /** Stop after visiting this many nodes (default 100 000): a guard against walking a huge tree. */
  maxNodes?: number;
  /** How mixed Curator/kazoo names are queued: see {@link InspectOptions.namingQueues}. */
  namingQueues?: InspectOptions['namingQueues'];
  /** Abandons the walk (the promise rejects with the signal's reason). */
  signal?: AbortSignal;
}

const ALL_NAMES = [
  LockName.mutex,
  LockName.read,
  LockName.write,
  LockName.kazooMutex,
  KAZOO_READ_NAME,
  LATCH_NAME,
];
const KAZOO: readonly string[] = [LockName.kazooMutex, KAZOO_READ_NAME];
/** How many folders are listed at once. */
const PARALLEL = 32;

/**
 * Finds every lock folder under `root` (itself included): folders with sequential contender nodes
 * in the Curator or kazoo forms, semaphores (Curator's layout) and LeaderLatch elections, each
 * inspected with
 * {@link inspectLock}. Sorted by path. An exclusive lock (a bare ephemeral node) is not found this
 * way: inspect its path directly.
 */
export async function findLocks(
  client: RecipeClient,
  root: string,
  options: FindLocksOptions = {},
): Promise<LockFolder[]> {
  const maxNodes = options.maxNodes ?? 100_000;
  const signal = options.signal;
  const found: { path: string; layout: LockFolder['layout'] }[] = [];
  let frontier = [root];
  let visited = 0;
  while (frontier.length > 0 && visited < maxNodes) {
    const next: string[] = [];
    for (let i = 0; i < frontier.length && visited < maxNodes; i += PARALLEL) {
      const batch = frontier.slice(i, i + PARALLEL);
      visited += batch.length;
      const listed = await Promise.all(
        batch.map(async (path) => {
          try {
            return { path, children: await client.getChildren(path, { signal }) };
          } catch (error) {
            if (hasCode(error, 'NONODE')) return { path, children: [] };
            throw error;
          }
        }),
      );
      for (const { path, children } of listed) {
        let skip = new Set<string>();
        if (children.includes('leases') && children.includes('locks')) {
          found.push({ path, layout: 'semaphore' });
          skip = new Set(['leases', 'locks']);
        } else if (
          path !== root &&
          baseName(path) === 'leases' &&
          children.some((name) => isLeaseNode(name))
        ) {
          // A semaphore whose empty `locks/` container the server has removed: its leases/ is
          // listed on the way down, and names the semaphore above it.
          found.push({ path: parentOf(path), layout: 'semaphore' });
          skip = new Set(children);
        } else {
          const contenders = sortContenders(children, ALL_NAMES);
          if (contenders.length > 0) {
            const kazoo = contenders.filter((c) => KAZOO.includes(c.lockName)).length;
            const locks = contenders.filter((c) => c.lockName !== LATCH_NAME).length;
            const layout =
              locks === 0
                ? 'election'
                : kazoo === 0
                  ? 'curator'
                  : kazoo === locks
                    ? 'kazoo'
                    : 'curator+kazoo';
            found.push({ path, layout });
            // Lock nodes are ephemeral: they have no children to visit.
            skip = new Set(contenders.map((c) => c.name));
          }
        }
        for (const child of children) if (!skip.has(child)) next.push(childPath(path, child));
      }
    }
    frontier = next;
  }
  found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const inspected = await Promise.all(
    found.map(async ({ path, layout }) => {
      const inspection = await inspectLock(client, path, {
        signal,
        namingQueues: options.namingQueues,
      });
      return { path, layout, holder: inspection.contenders[0], inspection };
    }),
  );
  // A lock released meanwhile (its folder now empty) is still listed, with no holder.
  return inspected.map((f) => ({
    ...f,
    holder: f.holder?.state === 'holder' ? f.holder : undefined,
  }));
}
