// The simplest lock: one EPHEMERAL node; whoever creates it holds the lock.
import { SESSION_OVER_CODES } from '../protocol/errors.js';
import type { Stat } from '../session/types.js';
import { CreateMode } from '../session/types.js';
import { acquireWithin } from './deadline.js';
import { hasCode, lossPolicyOf } from './errors.js';
import { holdNode } from './lease.js';
import { parentOf } from './naming.js';
import { ensurePath, retryOnConnectionLoss, settleWhileConnected } from './nodes.js';
import type { AcquireOptions, Lease, Lock, LockClient, LockOptions, LossPolicy } from './types.js';
import { waitForWatch } from './wait.js';

const SESSION_OVER = SESSION_OVER_CODES;

/** Data that identifies one acquisition: the session and a random token. */
function ownerData(sessionId: bigint): string {
  return `${sessionId.toString(16)}:${crypto.randomUUID()}`;
}

type Owner = { kind: 'ours'; stat: Stat } | { kind: 'absent' } | { kind: 'taken' };

/**
 * The simplest recipe: the lock is the EPHEMERAL node at `path` itself; whoever creates it holds
 * the lock, and every loser watches it with `exists` and tries again when it is deleted.
 *
 * Not fair (whoever is quickest after a release wins) and prone to the herd effect (a release
 * wakes every waiter, and all of them race to create). Fine for a handful of processes; use
 * {@link Mutex} for more.
 *
 * The node's data (`<session id hex>:<random uuid>`) identifies the acquisition, so after a
 * CONNECTIONLOSS on create or delete the lock checks what really happened instead of retrying
 * blindly, and never deletes a later holder's node.
 */
export class ExclusiveLock implements Lock {
  private readonly lossPolicy: LossPolicy;

  constructor(
    readonly client: LockClient,
    readonly path: string,
    options: LockOptions = {},
  ) {
    this.lossPolicy = lossPolicyOf(options.lossPolicy, path);
  }

  acquire(options?: AcquireOptions): Promise<Lease> {
    return acquireWithin(options, this.path, (d) => this.contend(d.signal, !d.noWait));
  }

  tryAcquire(): Promise<Lease | null> {
    return this.contend(undefined, false);
  }

  private async contend(signal: AbortSignal | undefined, wait: boolean): Promise<Lease | null> {
    const { client, path } = this;
    if (signal?.aborted) throw signal.reason;
    // What may be ours on the server: a create in flight (by its data), or a node we hold.
    let pending: string | undefined;
    let held: bigint | undefined;
    try {
      for (;;) {
        const data = ownerData(client.sessionId);
        pending = data;
        const owner = await this.create(data, signal);
        if (owner.kind === 'ours') {
          held = owner.stat.czxid;
          pending = undefined;
          const czxid = owner.stat.czxid;
          return holdNode({
            client,
            path,
            lockPath: path,
            kind: 'exclusive',
            czxid,
            lossPolicy: this.lossPolicy,
            removeNode: () => deleteIfOwned(client, path, (stat) => stat.czxid === czxid),
          });
        }
        pending = undefined;
        if (owner.kind === 'absent') continue;
        if (!wait) return null;
        await this.waitForRelease(signal);
      }
    } catch (error) {
      const cleanup = async () => {
        if (held !== undefined) await deleteIfOwned(client, path, (stat) => stat.czxid === held);
        if (pending !== undefined) await deleteIfOwned(client, path, (_, data) => data === pending);
      };
      await settleWhileConnected(client, cleanup());
      throw signal?.aborted ? signal.reason : error;
    }
  }

  /** One create; on CONNECTIONLOSS, reads the node to learn whether it was ours. */
  private async create(data: string, signal: AbortSignal | undefined): Promise<Owner> {
    const { client, path } = this;
    for (;;) {
      try {
        const { stat } = await client.create2(path, data, { mode: CreateMode.EPHEMERAL, signal });
        return { kind: 'ours', stat };
      } catch (error) {
        if (signal?.aborted) throw error;
        if (hasCode(error, 'NODEEXISTS')) return { kind: 'taken' };
        if (hasCode(error, 'NONODE')) {
          // At the root, the chroot itself is missing: nothing to create.
          if (parentOf(path) === '/') throw error;
          await ensurePath(client, parentOf(path), signal);
          continue;
        }
        if (!hasCode(error, 'CONNECTIONLOSS')) throw error;
        return this.ownerOf(data, signal);
      }
    }
  }

  /** Whose node is at `path`: ours (this session, this attempt's data), nobody's, or someone else's. */
  private async ownerOf(data: string, signal: AbortSignal | undefined): Promise<Owner> {
    const { client, path } = this;
    let node: { data: Uint8Array; stat: Stat };
    try {
      node = await retryOnConnectionLoss(() => client.getData(path, { signal }), signal);
    } catch (error) {
      if (hasCode(error, 'NONODE')) return { kind: 'absent' };
      throw error;
    }
    if (new TextDecoder().decode(node.data) !== data) return { kind: 'taken' };
    if (node.stat.ephemeralOwner === client.sessionId) return { kind: 'ours', stat: node.stat };
    // Our attempt's node, but left by an older session: delete it rather than adopt it.
    await deleteIfOwned(client, path, (stat) => stat.czxid === node.stat.czxid);
    return { kind: 'absent' };
  }

  /** Waits until the holder's node goes (an exists watch; at once if it is already gone). */
  private waitForRelease(signal: AbortSignal | undefined): Promise<void> {
    const { client, path } = this;
    return waitForWatch(signal, (wake) =>
      client.exists(path, { watch: wake, signal }).then(
        (stat) => (stat === null ? 'now' : 'wait'),
        (error: unknown) => {
          if (hasCode(error, 'CONNECTIONLOSS')) return 'now' as const;
          throw error;
        },
      ),
    );
  }
}

/**
 * Deletes the node at `path` if `isOurs` says so, checking first (the name is shared by every
 * holder, so a blind retry could delete the next holder's node). Retries connection losses.
 */
async function deleteIfOwned(
  client: LockClient,
  path: string,
  isOurs: (stat: Stat, data: string) => boolean,
): Promise<void> {
  for (;;) {
    try {
      const { data, stat } = await client.getData(path);
      if (!isOurs(stat, new TextDecoder().decode(data))) return;
      await client.delete(path, stat.version);
      return;
    } catch (error) {
      if (hasCode(error, 'NONODE', ...SESSION_OVER)) return;
      // BADVERSION: the data changed between the read and the delete; look again.
      if (!hasCode(error, 'CONNECTIONLOSS', 'BADVERSION')) throw error;
    }
  }
}
