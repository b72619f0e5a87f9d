// A delete that keeps trying in the background until it is done or the client is closed, as
// Curator's `delete().guaranteed()`: for cleanup that must not be lost to a blip.
import type { Client } from '../client/client.js';
import { hasCode } from '../locks/errors.js';
import { deleteRecursive } from './paths.js';
import { backoffDelay, isRetriedBy, type RetryPolicy } from './retry.js';

/** The part of the client {@link guaranteedDelete} uses (a `Client` is one). */
export type GuaranteedDeleteClient = Pick<
  Client,
  'delete' | 'getChildren' | 'create2' | 'on' | 'state' | 'closing'
>;

/** Options of {@link guaranteedDelete}. */
export interface GuaranteedDeleteOptions {
  /** Delete only at this version (-1, the default: any). A BADVERSION ends the tries. */
  version?: number;
  /** Delete the node's descendants too (see {@link deleteRecursive}). Default false. */
  recursive?: boolean;
  /**
   * The pauses between tries (see {@link RetryPolicy}); `maxAttempts` and `maxElapsed` bound the
   * tries (default: no bound but the client's close). SESSIONEXPIRED is always tried again: the
   * node does not belong to the session.
   */
  retry?: Omit<RetryPolicy, 'signal' | 'retrySessionExpired'>;
  /** Stops the tries: the outcome is `'aborted'`. */
  signal?: AbortSignal;
  /** Called once with the outcome (the same as the returned promise's); a throwing callback is reported out of band. */
  onSettled?: (outcome: GuaranteedDeleteOutcome) => void;
}

/** How a {@link guaranteedDelete} ended. */
export type GuaranteedDeleteOutcome =
  | {
      /** `'deleted'`: this delete removed the node; `'gone'`: it was already gone (NONODE). */
      status: 'deleted' | 'gone';
      /** How many deletes were sent. */
      attempts: number;
    }
  | {
      /**
       * `'closed'`: the client was closed (or its session can no longer be used) first;
       * `'aborted'`: the signal aborted; `'failed'`: an error no retry can mend (BADVERSION,
       * NOTEMPTY without `recursive`, NOAUTH, ...) or the policy's bound was reached.
       */
      status: 'closed' | 'aborted' | 'failed';
      /** How many deletes were sent. */
      attempts: number;
      /** The last error, if any. */
      error?: unknown;
    };

/** States after which no request can succeed on this client. */
const FINAL_STATES = new Set(['closed', 'auth-failed']);

/**
 * Deletes `path`, trying again in the background after every lost connection, timeout, throttle
 * or session expiry, until the node is gone, the tries are bounded out, or the client closes.
 * The promise never rejects: it resolves with the {@link GuaranteedDeleteOutcome}, which is also
 * handed to `onSettled`, so nothing needs to await it. At a reconnect the next try goes out on the
 * resumed session; at a session renewal it goes out on the new session; with renewal off, an
 * expired session that stays expired for a whole pause ends the tries as `'closed'`.
 */
export function guaranteedDelete(
  client: GuaranteedDeleteClient,
  path: string,
  options: GuaranteedDeleteOptions = {},
): Promise<GuaranteedDeleteOutcome> {
  const run = runGuaranteedDelete(client, path, options).catch(
    (error: unknown): GuaranteedDeleteOutcome => ({ status: 'failed', attempts: 0, error }),
  );
  return run.then((outcome) => {
    if (options.onSettled) {
      try {
        options.onSettled(outcome);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
    return outcome;
  });
}

async function runGuaranteedDelete(
  client: GuaranteedDeleteClient,
  path: string,
  options: GuaranteedDeleteOptions,
): Promise<GuaranteedDeleteOutcome> {
  const { version = -1, recursive = false, signal } = options;
  const policy: RetryPolicy = { ...options.retry, retrySessionExpired: true };
  const { maxAttempts = Number.POSITIVE_INFINITY, maxElapsed = Number.POSITIVE_INFINITY } = policy;
  // One signal for "stop": the caller's, or the client closing.
  const stop = new AbortController();
  const onAbort = () => stop.abort('aborted');
  const unsubscribe = client.on('closing', () => stop.abort('closed'));
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  const started = Date.now();
  let attempts = 0;
  let error: unknown;
  try {
    for (;;) {
      const stopped = stoppedBy(client, stop.signal);
      if (stopped) return { status: stopped, attempts, error };
      attempts++;
      try {
        if (recursive) {
          const deleted = await deleteRecursive(client, path, {
            version,
            signal: stop.signal,
            retry: { maxAttempts: 1 },
          });
          return { status: deleted ? 'deleted' : 'gone', attempts };
        }
        await client.delete(path, version);
        return { status: 'deleted', attempts };
      } catch (caught) {
        error = caught;
        if (hasCode(caught, 'NONODE')) return { status: 'gone', attempts };
        const now = stoppedBy(client, stop.signal);
        if (now) return { status: now, attempts, error };
        if (!isRetriedBy(caught, policy) || attempts >= maxAttempts) {
          return { status: 'failed', attempts, error };
        }
        const delay = backoffDelay(attempts, policy);
        if (Date.now() + delay - started > maxElapsed) return { status: 'failed', attempts, error };
        const stateBefore = client.state;
        await sleepUnless(delay, stop.signal);
        // Renewal off: an expired session that nothing replaced is final.
        if (
          hasCode(caught, 'SESSIONEXPIRED') &&
          stateBefore === 'expired' &&
          client.state === 'expired'
        ) {
          return { status: 'closed', attempts, error };
        }
      }
    }
  } finally {
    unsubscribe();
    signal?.removeEventListener('abort', onAbort);
  }
}

function stoppedBy(
  client: GuaranteedDeleteClient,
  stop: AbortSignal,
): 'closed' | 'aborted' | undefined {
  if (client.closing || FINAL_STATES.has(client.state)) return 'closed';
  if (stop.aborted) return stop.reason === 'closed' ? 'closed' : 'aborted';
  return undefined;
}

/** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
function sleepUnless(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
