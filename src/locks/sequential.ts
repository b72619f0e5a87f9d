// The queue every sequential recipe shares (mutex, read and write locks, the semaphore's guard):
// an EPHEMERAL_SEQUENTIAL contender node per waiter, ordered by sequence number, each waiting on
// one node ahead of it.
import type { Data } from '../client/types.js';
import type { Decision, SequenceOrder } from './contenders.js';
import { acquireWithin, type Deadline } from './deadline.js';
import { holdNode } from './lease.js';
import type { Contender } from './naming.js';
import { childPath, type NamingStyle } from './naming.js';
import {
  type Attempt,
  cleanupAttempt,
  createProtected,
  deleteNode,
  type OwnNode,
  retryOnConnectionLoss,
  settleWhileConnected,
} from './nodes.js';
import { queueOrder } from './order.js';
import type { AcquireOptions, Lease, LockClient, LossPolicy } from './types.js';
import { waitForChange } from './wait.js';

export interface QueueSpec {
  client: LockClient;
  /** The lock path: contenders are its children. */
  path: string;
  style: NamingStyle;
  /** This queue's node name between the owner prefix and the sequence (`lock-`, `__READ__`...). */
  lockName: string;
  /** Names that count as contenders in this queue; other children are ignored. */
  contenderNames: readonly string[];
  data: Data | undefined;
  lossPolicy: LossPolicy;
  sequenceOrder: SequenceOrder;
  /** Whether the contender at `own` holds, and if not which node it waits for. */
  decide(sorted: readonly Contender[], own: number): Decision;
}

export class ContenderQueue {
  constructor(readonly spec: QueueSpec) {}

  /** Waits for the lock (see `Lock.acquire`). */
  acquire(options: AcquireOptions | undefined): Promise<Lease> {
    return acquireWithin(options, this.spec.path, (d) => this.contend(d, !d.noWait));
  }

  /** Takes the lock only if this contender is at the head at once. */
  async tryAcquire(): Promise<Lease | null> {
    return this.contend({ signal: undefined, noWait: true, dispose() {} }, false);
  }

  /**
   * Our node (created now unless the attempt has one) and the lock path's children. A new node's
   * create and the listing go out together: the server answers a session in order, so the
   * listing already holds our node, and an uncontended acquire costs one round trip.
   */
  private async createAndList(
    attempt: Attempt,
    signal: AbortSignal | undefined,
  ): Promise<{ node: OwnNode; children: string[] }> {
    const { client, path } = this.spec;
    const list = () => retryOnConnectionLoss(() => client.getChildren(path, { signal }), signal);
    if (attempt.node) return { node: attempt.node, children: await list() };
    const creating = createProtected({ ...this.spec, dir: path, signal }, attempt);
    const listing = client.getChildren(path, { signal }).then(
      (children) => children,
      () => null, // e.g. NONODE before the parents exist: listed again below
    );
    const node = await creating;
    const early = await listing;
    // A create that needed its parents made, or a retry, came after the early listing.
    const children = early?.includes(node.name) ? early : await list();
    return { node, children };
  }

  private async contend(deadline: Deadline, wait: boolean): Promise<Lease | null> {
    const { client, path, contenderNames } = this.spec;
    const signal = deadline.signal;
    if (signal?.aborted) throw signal.reason;
    const attempt: Attempt = {};
    const czxids = new Map<string, bigint>();
    try {
      for (;;) {
        const { node, children } = await this.createAndList(attempt, signal);
        const order = this.spec.sequenceOrder;
        const sorted = await queueOrder(
          client,
          path,
          children,
          contenderNames,
          order,
          node,
          czxids,
          signal,
        );
        const own = sorted.findIndex((contender) => contender.name === node.name);
        if (own < 0) {
          // Our node is gone (deleted by someone else): queue again, as Curator does.
          attempt.node = undefined;
          continue;
        }
        const decision = this.spec.decide(sorted, own);
        if (decision.acquired) {
          return holdNode({
            client,
            path: node.path,
            lockPath: path,
            kind: this.spec.lockName,
            czxid: node.stat.czxid,
            lossPolicy: this.spec.lossPolicy,
            removeNode: () => deleteNode(client, node.path),
          });
        }
        if (!wait) {
          await cleanupAttempt(client, path, attempt);
          return null;
        }
        await waitForChange(client, childPath(path, decision.watch), signal);
      }
    } catch (error) {
      await settleWhileConnected(client, cleanupAttempt(client, path, attempt));
      throw signal?.aborted ? signal.reason : error;
    }
  }
}
