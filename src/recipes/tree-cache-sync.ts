// TreeCache.sync(): the cache reflects every change committed before the call. The server is
// brought up to date (`sync`), and its reply comes after every watch event of the changes before
// it; the cache then lets those events reach its reader, and waits for the reads they started.
// The client's watch iterator hands an event on through promise steps only (no timer), so once
// one macrotask has passed, every event that came before the reply has been taken.

import type { RecipeClient } from '../client/recipe-client.js';
import { hasCode } from '../coordination/codes.js';
import { renewedAfter } from '../coordination/renewal.js';
import { isRetriable, RETRIABLE } from '../coordination/retry.js';
import { abortable } from '../coordination/wait.js';
import type { StopSignal } from '../session/signal-waiters.js';
import { backoffDelay, pause } from './retry.js';

/** The cache's reads in flight, and how many failed in a way that needs a resync. */
export class PendingReads {
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Reads (and resyncs) that failed for a lost link: a resync follows the reconnect. */
  failures = 0;

  /** Follows `read` until it settles; it must not reject (it handles its own errors). */
  track(read: Promise<unknown>): void {
    this.inFlight.add(read);
    void read.finally(() => this.inFlight.delete(read));
  }

  /** The reads in flight now. */
  now(): Promise<unknown>[] {
    return [...this.inFlight];
  }
}

/** What {@link syncCache} needs of the cache. */
export interface SyncHost {
  readonly root: string;
  /** The server-side sync of the root. */
  sync(signal: StopSignal): Promise<void>;
  readonly reads: PendingReads;
  /** The loads (the initial one, the resyncs) under way now; they do not reject. */
  loads(): Promise<unknown>[];
  /** Undefined while the cache follows the server; else why it stopped (closed, watch ended). */
  stopped(): Error | undefined;
  /** Reads again the nodes whose last read failed (a lost link, a request timeout). */
  rereadFailed(): void;
}

/**
 * Resolves once every change committed before the call is in the cache; rejects with `signal`'s
 * reason, or with the cache's stop reason when it is closed or its watch ends meanwhile.
 */
export async function syncCache(host: SyncHost, signal: StopSignal): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    throwIfStopped(host);
    // A node whose last read failed (a lost link, a request given up) may be stale. A
    // reconnect's resync reads it again, but a request timeout brings none: read it again now.
    host.rereadFailed();
    const failures = host.reads.failures;
    try {
      await within(host.sync(signal), signal, host);
    } catch (error) {
      // A lost link (or a session renewed meanwhile): the cache resyncs when it is back, and
      // a sync sent then is answered after that resync has begun.
      if (signal.aborted || !hasCode(error, ...RETRIABLE, 'SESSIONEXPIRED')) throw error;
      await within(pause(backoffDelay(attempt, { baseDelay: 20, maxDelay: 1_000 })), signal, host);
      continue;
    }
    // The events that came before the reply are in the watch's iterator, or on their way to it
    // through promise steps only; one macrotask lets the cache's reader take them all, and
    // start a read (or a resync) for each.
    await within(nextMacrotask(), signal, host);
    await within(Promise.all([...host.reads.now(), ...host.loads()]), signal, host);
    throwIfStopped(host);
    // A read failed meanwhile: once more.
    if (host.reads.failures === failures) return;
  }
}

function throwIfStopped(host: SyncHost): void {
  const reason = host.stopped();
  if (reason) throw reason;
}

/**
 * `promise`, or a rejection with `signal`'s reason when it aborts first; a failure while the
 * cache stopped rejects with the stop reason. A promise given up on may still reject later: that
 * rejection is handled here.
 */
function within<T>(promise: Promise<T>, signal: StopSignal, host: SyncHost): Promise<T> {
  const mapped = promise.catch((error: unknown) => {
    throw host.stopped() ?? error;
  });
  mapped.catch(() => undefined);
  return abortable(mapped, signal);
}

function nextMacrotask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Runs `step` until it succeeds: again after a lost link or a renewal (a backoff pause between),
 * else it rejects with the step's error, or with `signal`'s reason once it aborts.
 */
export async function untilDone<T>(
  client: Pick<RecipeClient, 'closing' | 'state'>,
  signal: AbortSignal,
  step: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (!isRetriable(error) && !renewedAfter(client, error)) throw error;
      await pause(backoffDelay(attempt, { baseDelay: 20, maxDelay: 1_000 }), signal);
    }
  }
}
