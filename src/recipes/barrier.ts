// Curator's DistributedBarrier and kazoo's Barrier: one node; while it exists, waiters wait.
import type { Client } from '../client/client.js';
import { hasCode } from '../coordination/codes.js';
import { renewedAfter } from '../coordination/renewal.js';
import { isRetriable } from '../coordination/retry.js';
import { ensurePath } from './paths.js';
import { retry } from './retry.js';
import { startWait, type WaitOptions, waitForOneWatch } from './wait.js';

/** The part of the client the barriers use (a `Client` is one). */
export type BarrierClient = Pick<
  Client,
  'create2' | 'delete' | 'exists' | 'getChildren' | 'state' | 'closing'
>;

/**
 * A barrier that is up while its node exists (Curator's `DistributedBarrier`, kazoo's `Barrier`,
 * same node): {@link setBarrier} creates the node (a persistent node, its parents containers),
 * {@link removeBarrier} deletes it, {@link waitOnBarrier} waits until it is gone.
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
    private readonly client: BarrierClient,
    readonly path: string,
  ) {}

  /** Raises the barrier: creates its node (it is fine if it exists). */
  async setBarrier(): Promise<void> {
    await ensurePath(this.client, this.path, { containers: false });
  }

  /** Lowers the barrier: deletes its node (it is fine if it is gone). Waiters are released. */
  async removeBarrier(): Promise<void> {
    try {
      await retry(() => this.client.delete(this.path), { maxAttempts: Number.POSITIVE_INFINITY });
    } catch (error) {
      if (!hasCode(error, 'NONODE')) throw error;
    }
  }

  /**
   * Resolves true once the barrier node does not exist (at once if it is not set), false when
   * `timeout` ran out first; rejects with the signal's reason when it aborts.
   */
  async waitOnBarrier(options: WaitOptions = {}): Promise<boolean> {
    const bound = startWait(options, this.path);
    let gone = false;
    try {
      while (!gone) {
        await waitForOneWatch(this.client, `exists:${this.path}`, bound.signal, async (watch) => {
          try {
            gone = (await this.client.exists(this.path, { watch, signal: bound.signal })) === null;
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
      return true;
    } catch (error) {
      if (bound.timedOut()) return false;
      throw error;
    } finally {
      bound.dispose();
    }
  }
}
