// Curator's DistributedBarrier and kazoo's Barrier: one node; while it exists, waiters wait.
import type { RecipeClient } from '../client/recipe-client.js';
import { stopping } from '../coordination/bound-signal.js';
import { hasCode } from '../coordination/codes.js';
import { renewedAfter } from '../coordination/renewal.js';
import { isRetriable } from '../coordination/retry.js';
import { checkRecipePath, ensurePath } from './paths.js';
import { retry } from './retry.js';
import { startWait, type WaitOptions, waitForOneWatch } from './wait.js';

/**
 * A barrier that is up while its node exists (Curator's `DistributedBarrier`, kazoo's `Barrier`,
 * same node): {@link raise} creates the node (a persistent node, its parents containers),
 * {@link lower} deletes it, {@link wait} waits until it is gone. It holds nothing between calls,
 * so it has no `start()` or `close()`.
 *
 * At a reconnect a waiter's watch is set again by the client, and a deletion made meanwhile
 * fires it. At a session renewal the old session's watch ends and the waiter looks again on the
 * new session. The node is persistent, so neither removes the barrier. No sequential nodes.
 */
export class DistributedBarrier {
  /**
   * @param client The client to use.
   * @param path The barrier node.
   */
  constructor(
    private readonly client: RecipeClient,
    readonly path: string,
  ) {
    checkRecipePath(path, 'DistributedBarrier');
  }

  /** Raises the barrier: creates its node (it is fine if it exists). */
  async raise(): Promise<void> {
    await ensurePath(this.client, this.path, { containers: false });
  }

  /** Lowers the barrier: deletes its node (it is fine if it is gone). Waiters are released. */
  async lower(): Promise<void> {
    try {
      await retry(() => this.client.delete(this.path), { maxAttempts: Number.POSITIVE_INFINITY });
    } catch (error) {
      if (!hasCode(error, 'NONODE')) throw error;
    }
  }

  /**
   * Resolves once the barrier node does not exist (at once if it is not raised). Rejects with a
   * `TimeoutError` when `timeout` runs out first, with the signal's reason when it aborts.
   */
  async wait(options: WaitOptions = {}): Promise<void> {
    const bound = startWait(options, this.path, { client: this.client });
    let gone = false;
    try {
      while (!gone) {
        await waitForOneWatch(this.client, `exists:${this.path}`, bound.signal, async (watch) => {
          try {
            gone =
              (await this.client.exists(this.path, stopping({ watch }, bound.signal))) === null;
          } catch (error) {
            // A lost link: look again (the request waits for the next connection). A look queued
            // for a session that expired: look again on the new one (the node is persistent).
            const again = isRetriable(error) || renewedAfter(this.client, error);
            if (!again || bound.signal.aborted) throw error;
            return 'now';
          }
          return gone ? 'now' : 'wait';
        });
      }
    } catch (error) {
      throw bound.timedOut() ? bound.signal.reason : error;
    } finally {
      bound.dispose();
    }
  }
}
