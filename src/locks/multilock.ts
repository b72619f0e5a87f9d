// Several locks as one: all or none, without deadlock.

import type { Op, OpResult } from '../client/multi.js';
import type { RecipeClient } from '../client/recipe-client.js';
import type { CallOptions } from '../client/types.js';
import type { Bound, BoundWaiter } from '../coordination/deadline.js';
import { settleWhileConnected } from '../coordination/nodes.js';
import { type AbortWaiter, stopWaiting, waitOn } from '../session/signal-waiters.js';
import { AcquireDeadlines, acquireWithin } from './deadline.js';
import { badArguments, LeaseReleasedError } from './errors.js';
import { combineGuards, type Guard, guardedMulti } from './guarded.js';
import { guardOf } from './lease.js';
import type { AcquireOptions, Lease, Lock, LockClient } from './types.js';

/** The leases of a {@link MultiLock}, held and released together. */
export interface MultiLease extends Lease {
  /** One lease per lock, in acquisition (canonical) order. */
  readonly leases: readonly Lease[];
}

/** Full server path of a lock: the order every process agrees on, whatever its chroot. */
function canonicalKey(lock: Lock): string {
  const chroot = lock.client.chroot;
  return lock.path === '/' ? chroot || '/' : chroot + lock.path;
}

/**
 * Holds all of the given locks or none. Callers may list the locks in any order: they are always
 * taken in one canonical order (by full server path), so two processes asking for the same locks
 * in different orders cannot deadlock. One deadline covers the whole acquire; on any failure the
 * locks already taken are released in reverse order before the acquire rejects.
 *
 * A lock may appear only once (two locks on the same path and client would wait for each other).
 * Nested MultiLocks are flattened.
 */
export class MultiLock implements Lock {
  /** The locks, in the order they are taken. */
  readonly locks: readonly Lock[];
  /** The deadlines of this lock's acquires (the locks' clients may differ: a shared timer). */
  private readonly deadlines: AcquireDeadlines;

  constructor(locks: readonly Lock[]) {
    if (!Array.isArray(locks)) throw badArguments('MultiLock takes an array of locks');
    for (const lock of locks as unknown[]) {
      if (typeof lock !== 'object' || lock === null || typeof (lock as Lock).acquire !== 'function')
        throw badArguments(`MultiLock takes locks, got ${lock === null ? 'null' : typeof lock}`);
    }
    const flat = locks.flatMap((lock) => (lock instanceof MultiLock ? lock.locks : [lock]));
    if (flat.length === 0) throw badArguments('MultiLock needs at least one lock');
    const seen = new Map<LockClient, Set<string>>();
    for (const lock of flat) {
      const paths = seen.get(lock.client) ?? new Set<string>();
      if (paths.has(lock.path)) throw badArguments(`lock ${lock.path} is listed twice`, lock.path);
      paths.add(lock.path);
      seen.set(lock.client, paths);
    }
    this.locks = flat
      .map((lock, index) => ({ lock, index, key: canonicalKey(lock) }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.index - b.index))
      .map(({ lock }) => lock);
    this.deadlines = new AcquireDeadlines(this.path);
  }

  get client(): RecipeClient {
    return this.locks[0]!.client;
  }

  /** The paths of the locks, comma-separated, in acquisition order. */
  get path(): string {
    return this.locks.map((lock) => lock.path).join(',');
  }

  acquire(options?: AcquireOptions): Promise<MultiLease> {
    // On time whatever the attempt is stuck on (see acquireWithin); it cleans up in the background.
    return acquireWithin(this.deadlines, options, (d) => this.acquireAll(d.bound, d.noWait));
  }

  /**
   * Takes the locks in order. A lease already taken that is lost meanwhile (its session expired,
   * its node was deleted) stops the wait for the rest: all of them are given back and, unless
   * the clients are over, taken again from the first (all or nothing: a MultiLease is never
   * handed out with a part already lost).
   */
  private async acquireAll(bound: Bound | undefined, noWait: boolean): Promise<MultiLease> {
    for (;;) {
      const held: Lease[] = [];
      const parts = new PartsStop(bound);
      try {
        if (bound?.ended) throw bound.reason;
        const each = noWait ? { timeout: 0, signal: parts.signal } : { signal: parts.signal };
        for (const lock of this.locks) {
          const lease = await lock.acquire(each);
          held.push(lease);
          parts.watch(lease.signal);
          if (parts.lost) throw parts.lossReason;
        }
        parts.detach();
        return new Leases(held);
      } catch (error) {
        // Whether a part was lost is read before the give-back (which leaves the parts' signals
        // first): releasing a part aborts its signal too, which must not turn any failure into a
        // retry.
        parts.detach();
        await this.giveBack(held);
        if (bound?.ended) throw bound.reason;
        if (parts.lost && !noWait && this.clientsUsable()) continue;
        throw parts.lost ? parts.lossReason : error;
      }
    }
  }

  /** Whether every client can still take locks (none closing or over for good). */
  private clientsUsable(): boolean {
    return this.clients().every(
      (client) =>
        !client.closing &&
        client.state !== 'expired' &&
        client.state !== 'closed' &&
        client.state !== 'auth-failed',
    );
  }

  /** The distinct clients of the locks. */
  private clients(): LockClient[] {
    return [...new Set(this.locks.map((lock) => lock.client))];
  }

  async tryAcquire(): Promise<MultiLease | null> {
    const held: Lease[] = [];
    try {
      for (const lock of this.locks) {
        const lease = await lock.tryAcquire();
        if (!lease) {
          await this.giveBack(held);
          return null;
        }
        held.push(lease);
      }
      return new Leases(held);
    } catch (error) {
      await this.giveBack(held);
      throw error;
    }
  }

  /**
   * Releases `held` in reverse order after a failed acquire. The caller hears why the acquire
   * failed, never how a release went, and waits for the releases only while every client is
   * connected: a release queued until a reconnect finishes in the background (each keeps trying
   * until its node is gone or its session is over).
   */
  private async giveBack(held: readonly Lease[]): Promise<void> {
    const releasing = releaseInReverse(held).catch(() => {});
    await settleWhileAllConnected(this.clients(), releasing);
  }
}

/**
 * The signal of one round's part waits: aborted when the acquire's bound ends or a part taken
 * already is lost. It listens to the bound as one of its waiters and to the parts' signals
 * through their one shared listener (signal-waiters), and leaves all of them in `detach()`: no
 * AbortSignal.any per round and no listener left on a lease handed out.
 */
class PartsStop implements BoundWaiter, AbortWaiter {
  private readonly controller = new AbortController();
  private readonly watched: AbortSignal[] = [];
  /** Whether a part taken already was lost (not the bound's end). */
  lost = false;
  lossReason: unknown;

  constructor(private readonly bound: Bound | undefined) {
    bound?.listen(this);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Stops the parts' waits when `lease` (a part taken) is lost. */
  watch(lease: AbortSignal): void {
    if (lease.aborted) {
      this.aborted(lease.reason);
      return;
    }
    this.watched.push(lease);
    waitOn(lease, this);
  }

  /** The round is over: leaves the bound and the parts' signals. */
  detach(): void {
    this.bound?.unlisten(this);
    for (const lease of this.watched.splice(0)) stopWaiting(lease, this);
  }

  boundEnded(reason: unknown): void {
    if (!this.controller.signal.aborted) this.controller.abort(reason);
  }

  /** A part's signal aborted: that part is lost. */
  aborted(reason: unknown): void {
    if (this.controller.signal.aborted) return;
    this.lost = true;
    this.lossReason = reason;
    this.controller.abort(reason);
  }
}

/** Waits for `task` while every client stays connected (see settleWhileConnected). */
async function settleWhileAllConnected(
  clients: readonly LockClient[],
  task: Promise<void>,
): Promise<void> {
  await Promise.race(clients.map((client) => settleWhileConnected(client, task)));
}

async function releaseInReverse(leases: readonly Lease[]): Promise<void> {
  let failure: unknown;
  for (const lease of [...leases].reverse()) {
    try {
      await lease.release();
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure !== undefined) throw failure;
}

class Leases implements MultiLease {
  private readonly own = new AbortController();
  private releasing: Promise<void> | undefined;

  constructor(readonly leases: readonly Lease[]) {
    // Lost as soon as any one of them is lost.
    for (const lease of leases) {
      const forward = () => {
        if (!this.own.signal.aborted) this.own.abort(lease.signal.reason);
      };
      if (lease.signal.aborted) forward();
      else {
        // Stryker disable next-line ObjectLiteral,BooleanLiteral: an abort event fires at most once; `once` only frees the listener sooner
        lease.signal.addEventListener('abort', forward, { once: true });
      }
    }
  }

  get path(): string {
    return this.leases.map((lease) => lease.path).join(',');
  }

  /**
   * The highest of the leases' tokens: it increases across successive holders of this same set
   * of locks. Each resource should check its own lock's token (`leases[i].fencingToken`).
   */
  get fencingToken(): bigint {
    // Math.max does not take bigints.
    let highest = 0n;
    for (const lease of this.leases) if (lease.fencingToken > highest) highest = lease.fencingToken;
    return highest;
  }

  get signal(): AbortSignal {
    return this.own.signal;
  }

  get released(): boolean {
    return this.releasing !== undefined;
  }

  /** One guarded multi over every lock node (all the locks must be held through one client). */
  async multi(ops: readonly Op[], options?: CallOptions): Promise<OpResult[]> {
    return guardedMulti(this.guard(), ops, options);
  }

  private guard(): Guard {
    const guards = this.leases.map((lease) => {
      const guard = guardOf(lease);
      if (!guard)
        throw badArguments('a guarded multi needs leases made by this library', this.path);
      return guard;
    });
    const combined = combineGuards(guards, this.path);
    const released = () => (this.releasing ? new LeaseReleasedError(this.path) : undefined);
    return { ...combined, ended: () => released() ?? combined.ended() };
  }

  release(): Promise<void> {
    if (!this.releasing) {
      if (!this.own.signal.aborted) this.own.abort(new LeaseReleasedError(this.path));
      this.releasing = releaseInReverse(this.leases);
    }
    return this.releasing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }
}
