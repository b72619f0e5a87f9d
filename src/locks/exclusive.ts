// The simplest lock: one EPHEMERAL node; whoever creates it holds the lock.
import type { RecipeClient } from '../client/recipe-client.js';
import type { Stat } from '../client/types.js';
import { CreateMode } from '../client/types.js';
import { isGone, settleWhileConnected, syncFirst } from '../coordination/nodes.js';
import { createWithParents } from '../coordination/paths.js';
import { acrossRenewals } from '../coordination/renewal.js';
import { isRetriable, pauseBeforeRetry, retry } from '../coordination/retry.js';
import { waitForWatch } from '../coordination/wait.js';
import { acquireSettles, acquireStarted } from '../telemetry/lock.js';
import { AcquireDeadlines, acquireWithin } from './deadline.js';
import { checkRecipePath, hasCode, lossPolicyOf } from './errors.js';
import { holdNode } from './lease.js';
import type { AcquireOptions, Lease, Lock, LockClient, LockOptions, LossPolicy } from './types.js';

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
  /** The deadlines of this lock's acquires, on its client's shared timer. */
  private readonly deadlines: AcquireDeadlines;

  constructor(
    readonly client: RecipeClient,
    readonly path: string,
    options: LockOptions = {},
  ) {
    checkRecipePath(path, 'ExclusiveLock');
    this.lossPolicy = lossPolicyOf(options.lossPolicy, path);
    this.deadlines = new AcquireDeadlines(path, undefined, client);
  }

  acquire(options?: AcquireOptions): Promise<Lease> {
    const probe = acquireStarted(this.path, 'exclusive', this.client.sessionId);
    const acquiring = acquireWithin(this.deadlines, options, (d) =>
      acrossRenewals(this.client, d.signal, () => this.contend(d.signal, !d.noWait)),
    );
    return acquireSettles(probe, acquiring, options?.signal);
  }

  tryAcquire(): Promise<Lease | null> {
    const probe = acquireStarted(this.path, 'exclusive', this.client.sessionId);
    const acquiring = acrossRenewals(this.client, undefined, () => this.contend(undefined, false));
    return acquireSettles(probe, acquiring, undefined);
  }

  private async contend(signal: AbortSignal | undefined, wait: boolean): Promise<Lease | null> {
    const { client, path } = this;
    if (signal?.aborted) throw signal.reason;
    // What may be ours on the server: every data token whose create may have landed (a create
    // in flight, or one whose outcome was unknown: it can still land later), and a node we hold.
    const mayExist = new Set<string>();
    let held: bigint | undefined;
    try {
      for (;;) {
        const data = ownerData(client.sessionId);
        const owner = await this.create(data, mayExist, signal);
        if (owner.kind === 'ours') {
          held = owner.stat.czxid;
          mayExist.clear();
          const czxid = owner.stat.czxid;
          return holdNode({
            client,
            path,
            lockPath: path,
            kind: 'exclusive',
            czxid,
            sharedPath: true,
            lossPolicy: this.lossPolicy,
            removeNode: () => deleteIfOwned(client, path, (stat) => stat.czxid === czxid),
          });
        }
        if (owner.kind === 'absent') continue;
        if (!wait) {
          await this.cleanup(mayExist, undefined);
          return null;
        }
        await this.waitForRelease(signal);
      }
    } catch (error) {
      await settleWhileConnected(client, this.cleanup(mayExist, held));
      throw signal?.aborted ? signal.reason : error;
    }
  }

  /** Removes whatever this attempt may have put at `path` (see `contend`). Never throws. */
  private async cleanup(mayExist: ReadonlySet<string>, held: bigint | undefined): Promise<void> {
    const { client, path } = this;
    try {
      if (held !== undefined) await deleteIfOwned(client, path, (stat) => stat.czxid === held);
      if (mayExist.size > 0) {
        await deleteIfOwned(client, path, (_, data) => mayExist.has(data));
      }
    } catch {
      // Best effort beyond the retries: an ephemeral node goes with the session at the latest.
    }
  }

  /**
   * One create with the token `data` (added to `mayExist` while it may land). NODEEXISTS means
   * taken, unless an earlier create of this attempt had an unknown outcome: that node may be ours,
   * so the owner is looked up. After a retriable error, the owner is looked up too. A missing
   * parent is created first (see createWithParents).
   */
  private async create(
    data: string,
    mayExist: Set<string>,
    signal: AbortSignal | undefined,
  ): Promise<Owner> {
    const { client, path } = this;
    mayExist.add(data);
    try {
      const { stat } = await createWithParents(
        client,
        path,
        data,
        { mode: CreateMode.EPHEMERAL, signal },
        { signal },
      );
      return { kind: 'ours', stat };
    } catch (error) {
      if (signal?.aborted) throw error;
      if (hasCode(error, 'NODEEXISTS')) {
        mayExist.delete(data); // the server refused this one: it never lands
        // Stryker disable next-line ObjectLiteral,StringLiteral: contend acts on 'ours' and 'absent' only; any other owner is taken
        return mayExist.size > 0 ? this.ownerOf(mayExist, signal) : { kind: 'taken' };
      }
      // The chroot itself is missing (see createWithParents): this token never lands.
      if (hasCode(error, 'NONODE')) mayExist.delete(data);
      if (!isRetriable(error)) throw error;
      await pauseBeforeRetry(error, signal);
      return this.ownerOf(mayExist, signal);
    }
  }

  /**
   * Whose node is at `path`: ours (this session, one of our tokens), nobody's, or someone
   * else's. Read after a sync (see syncFirst): a follower behind the leader could hide our node.
   */
  private async ownerOf(mayExist: Set<string>, signal: AbortSignal | undefined): Promise<Owner> {
    const { client, path } = this;
    let node: { data: Uint8Array; stat: Stat };
    try {
      await syncFirst(client, path, signal);
      node = await retry(() => client.getData(path, { signal }), { signal });
    } catch (error) {
      if (hasCode(error, 'NONODE')) return { kind: 'absent' };
      throw error;
    }
    const token = new TextDecoder().decode(node.data);
    // Stryker disable next-line ObjectLiteral,StringLiteral: contend acts on 'ours' and 'absent' only; any other owner is taken
    if (!mayExist.has(token)) return { kind: 'taken' };
    if (node.stat.ephemeralOwner === client.sessionId) return { kind: 'ours', stat: node.stat };
    // Our attempt's node, but left by an older session: delete it rather than adopt it.
    mayExist.delete(token);
    await deleteIfOwned(client, path, (stat) => stat.czxid === node.stat.czxid);
    return { kind: 'absent' };
  }

  /** Waits until the holder's node goes (an exists watch; at once if it is already gone). */
  private waitForRelease(signal: AbortSignal | undefined): Promise<unknown> {
    const { client, path } = this;
    return waitForWatch(client, `exists:${path}`, signal, (watch) =>
      client.exists(path, { watch, signal }).then(
        (stat) => (stat === null ? 'now' : 'wait'),
        (error: unknown) => {
          if (isRetriable(error)) return 'now' as const;
          throw error;
        },
      ),
    );
  }
}

/**
 * Deletes the node at `path` if `isOurs` says so, checking first (the name is shared by every
 * holder, so a blind retry could delete the next holder's node). Retries connection losses.
 *
 * The check reads after a sync, every time. A delete is conditional on the version only, and
 * every holder's node starts at version 0, so a stale read deletes the next holder's node: after
 * a delete whose reply was lost the client may reconnect to a follower that has not applied it
 * (the session's last-seen zxid does not include it), still shows our node, and hands us the
 * version of a node that is gone; the same after an expiry the follower has not applied yet.
 */
async function deleteIfOwned(
  client: LockClient,
  path: string,
  isOurs: (stat: Stat, data: string) => boolean,
): Promise<void> {
  // BADVERSION: the data changed between the read and the delete; look again. A retriable error
  // (REQUESTTIMEOUT during a blip too) is tried again until the node is gone or the session is
  // over: a node left behind would block every contender.
  const once = async () => {
    await syncFirst(client, path);
    const { data, stat } = await client.getData(path);
    if (!isOurs(stat, new TextDecoder().decode(data))) return;
    await client.delete(path, stat.version);
  };
  try {
    await retry(once, { alsoRetry: ['BADVERSION'] });
  } catch (error) {
    if (!isGone(error)) throw error;
  }
}
