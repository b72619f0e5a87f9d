// Up to N holders (Curator's InterProcessSemaphoreV2 layout).
import type { RecipeClient } from '../client/recipe-client.js';
import type { Data } from '../client/types.js';
import { acquireInside, BoundSignal, innerWait, stopping } from '../coordination/bound-signal.js';
import type { Bound } from '../coordination/deadline.js';
import { childPath, LockName } from '../coordination/naming.js';
import { deleteNode, settleWhileConnected } from '../coordination/nodes.js';
import { sortContenders } from '../coordination/order.js';
import { acrossRenewals, checkOwnSession } from '../coordination/renewal.js';
import { retry } from '../coordination/retry.js';
import { abortable } from '../coordination/wait.js';
import { joinWatcher } from '../coordination/watchers.js';
import type { StopSignal } from '../session/signal-waiters.js';
import { acquireSettles, acquireStarted } from '../telemetry/lock.js';
import { AcquireDeadlines, acquireWithin } from './deadline.js';
import { badArguments, checkRecipePath, hasCode, lossPolicyOf } from './errors.js';
import { holdNode } from './lease.js';
import { Mutex } from './mutex.js';
import { type Attempt, cleanupAttempt, createProtected } from './nodes.js';
import type { AcquireOptions, Lease, Lock, LockOptions, LossPolicy } from './types.js';

/** Options of a {@link Semaphore}. */
export interface SemaphoreOptions extends LockOptions {
  /**
   * At most this many holders at a time (an integer from 1 to 2^31-1). Required. Every process on
   * one path must use the same number (as with Curator).
   */
  maxLeases: number;
  /** Data stored in each lease node (default empty). */
  data?: Data;
}

/** Options of a {@link SemaphoreMutex}: a {@link Semaphore}'s, whose `maxLeases` is always 1. */
export type SemaphoreMutexOptions = Omit<SemaphoreOptions, 'maxLeases'>;

const LEASE_NAMES = [LockName.lease];

/**
 * A counting semaphore: at most `maxLeases` holders at a time. Layout of Curator's
 * `InterProcessSemaphoreV2`, so Java processes share it: a guard mutex at `<path>/locks` and one
 * lease node per holder, `<path>/leases/_c_<uuid>-lease-<seq>`.
 *
 * To acquire, a process takes the guard mutex, creates its lease node, and waits (watching the
 * children of `leases`) until at most `maxLeases` lease nodes exist; then it releases the guard.
 * Only the guard holder watches `leases`, so there is no herd. Not reentrant. Every process must
 * use the same `maxLeases` for one path (as with Curator).
 */
export class Semaphore implements Lock {
  /** At most this many holders at a time (the `maxLeases` option). */
  readonly maxLeases: number;
  private readonly guard: Mutex;
  private readonly leasesPath: string;
  private readonly lossPolicy: LossPolicy;
  private readonly data: Data | undefined;
  /** The deadlines of this semaphore's acquires, on its client's shared timer. */
  private readonly deadlines: AcquireDeadlines;

  constructor(
    /** The client whose session holds the lease nodes. */
    readonly client: RecipeClient,
    /** The semaphore's node (`locks/` and `leases/` go under it). */
    readonly path: string,
    options: SemaphoreOptions,
  ) {
    checkRecipePath(path, 'Semaphore');
    if (typeof options !== 'object' || options === null) {
      throw badArguments('Semaphore needs options with maxLeases', path);
    }
    const { maxLeases } = options;
    if (!Number.isInteger(maxLeases) || maxLeases < 1 || maxLeases > 0x7fffffff) {
      throw badArguments(`maxLeases must be a positive integer, got ${String(maxLeases)}`, path);
    }
    this.maxLeases = maxLeases;
    this.lossPolicy = lossPolicyOf(options.lossPolicy, path);
    this.data = options.data;
    // The guard is held only while a lease is being taken: losing it then is harmless.
    this.guard = new Mutex(client, childPath(path, 'locks'), {
      lossPolicy: 'expired',
      sequenceOrder: options.sequenceOrder,
    });
    this.leasesPath = childPath(path, 'leases');
    this.deadlines = new AcquireDeadlines(
      path,
      `one of the ${maxLeases} leases of the semaphore ${path}`,
      client,
    );
  }

  /**
   * Waits for a lease; see {@link Lock.acquire}. One deadline covers the guard and the lease
   * wait: the bound of the acquire stops the lease node's create and the wait for the lease list
   * itself (read as a signal: no AbortController per acquire), and the guard is waited for with
   * the caller's signal and the time left of the same deadline.
   */
  acquire(options?: AcquireOptions): Promise<Lease> {
    const probe = acquireStarted(this.path, LockName.lease, this.client.sessionId);
    const acquiring = acquireWithin(this.deadlines, options, (d) => {
      // A signal and no deadline: that signal itself (a client wrapper sees it on the calls).
      const timed = options?.timeout !== undefined && options.timeout > 0;
      const stop = d.bound && (timed ? new BoundSignal(d.bound) : options?.signal);
      const guard = d.noWait ? undefined : { bound: d.bound, signal: options?.signal };
      return acrossRenewals(this.client, stop, () => this.contend(stop, guard));
    });
    return acquireSettles(probe, acquiring, options?.signal);
  }

  /** Takes a lease if one is free and nobody else is taking one right now; never waits. */
  tryAcquire(): Promise<Lease | null> {
    const probe = acquireStarted(this.path, LockName.lease, this.client.sessionId);
    const acquiring = acrossRenewals(this.client, undefined, () =>
      this.contend(undefined, undefined),
    );
    return acquireSettles(probe, acquiring, undefined);
  }

  /**
   * The guard, waited for with the caller's signal and the time left of the acquire's deadline
   * (read now: again after a renewal), rounded down so that the guard's wait is over when the
   * acquire's ends; a guard timeout a moment before it waits for it, so that the caller hears
   * the semaphore's LockTimeoutError, at its time.
   */
  private waitForGuard(
    { bound, signal }: { bound: Bound | undefined; signal: AbortSignal | undefined },
    stop: StopSignal | undefined,
  ): Promise<Lease> {
    return acquireInside(innerWait(bound, signal), stop, (wait) => this.guard.acquire(wait));
  }

  /**
   * Takes the guard, then a lease. `signal` stops the work (the acquire's bound); `guardWait`
   * is the acquire's deadline and the caller's signal, for the wait for the guard (see
   * innerWait), undefined not to wait (a `tryAcquire`, a `timeout: 0`).
   */
  private async contend(
    signal: StopSignal | undefined,
    guardWait: { bound: Bound | undefined; signal: AbortSignal | undefined } | undefined,
  ): Promise<Lease | null> {
    if (signal?.aborted) throw signal.reason;
    const wait = guardWait !== undefined;
    const guard = wait ? await this.waitForGuard(guardWait, signal) : await this.guard.tryAcquire();
    if (!guard) return null;
    const { client } = this;
    const attempt: Attempt = {};
    try {
      for (;;) {
        const node =
          attempt.node ??
          (await createProtected(
            {
              client,
              dir: this.leasesPath,
              style: 'curator',
              lockName: LockName.lease,
              data: this.data,
              signal,
            },
            attempt,
          ));
        let wake = () => {};
        const changed = new Promise<void>((resolve) => {
          wake = resolve;
        });
        // The shared watcher of the lease list (see joinWatcher): an aborted wait leaves nothing.
        const joined = joinWatcher(client, `getChildren:${this.leasesPath}`, () => wake());
        try {
          const children = await retry(
            () => client.getChildren(this.leasesPath, stopping({ watch: joined.watcher }, signal)),
            { signal },
          ).catch((error: unknown) => {
            // No lease directory, so no node of ours in it: an old session's node went with
            // its session (start again, guard and all), or someone removed it (take a new one).
            if (!hasCode(error, 'NONODE') || signal?.aborted) throw error;
            checkOwnSession(client, node);
            return null;
          });
          if (children === null) {
            attempt.node = undefined;
            continue;
          }
          joined.armed();
          // A listing on a renewed session may still show the old session's node: never ours.
          checkOwnSession(client, node);
          const leases = sortContenders(children, LEASE_NAMES);
          if (!leases.some((lease) => lease.name === node.name)) {
            attempt.node = undefined; // deleted by someone else: take a new one
            continue;
          }
          if (leases.length <= this.maxLeases) {
            return holdNode({
              client,
              path: node.path,
              lockPath: this.path,
              kind: LockName.lease,
              czxid: node.stat.czxid,
              lossPolicy: this.lossPolicy,
              removeNode: () => deleteNode(client, node.path),
            });
          }
          if (!wait) {
            await cleanupAttempt(client, this.leasesPath, attempt);
            return null;
          }
          await abortable(changed, signal);
        } finally {
          joined.leave();
        }
      }
    } catch (error) {
      await settleWhileConnected(client, cleanupAttempt(client, this.leasesPath, attempt));
      throw signal?.aborted ? signal.reason : error;
    } finally {
      await settleWhileConnected(client, guard.release());
    }
  }
}

/**
 * A mutex built on the semaphore (Curator's `InterProcessSemaphoreMutex`): one lease. Unlike
 * {@link Mutex} it is not reentrant.
 */
export class SemaphoreMutex extends Semaphore {
  constructor(client: RecipeClient, path: string, options: SemaphoreMutexOptions = {}) {
    super(client, path, { ...options, maxLeases: 1 });
  }
}
