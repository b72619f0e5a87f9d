// A delete that keeps trying in the background until it is done or the client is closed, as
// Curator's `delete().guaranteed()`: for cleanup that must not be lost to a blip.
import { ListenerError } from '../client/listeners.js';
import type { RecipeClient } from '../client/recipe-client.js';
import { hasCode } from '../coordination/codes.js';
import { type DeleteOutcome, deleteRecursive, mayHaveApplied } from './paths.js';
import { backoffDelay, isRetriedBy, type RetryPolicy } from './retry.js';

/** Options of {@link guaranteedDelete}. */
export interface GuaranteedDeleteOptions {
  /** Delete only at this version (-1, the default: any). A BADVERSION ends the tries. */
  version?: number;
  /** Delete the node's descendants too (see {@link deleteRecursive}). Default false. */
  recursive?: boolean;
  /**
   * The pauses between tries (see {@link RetryPolicy}); `maxAttempts` and `maxElapsed` bound the
   * tries (default: no bound but the client's close). SESSIONEXPIRED is always tried again (on
   * the new session), but never against a node other than the one first found (see
   * {@link guaranteedDelete}).
   */
  retry?: Omit<RetryPolicy, 'signal' | 'retrySessionExpired'>;
  /** Stops the tries: the outcome is `'aborted'`. */
  signal?: AbortSignal;
  /** Called once with the outcome (the same as the returned promise's); a callback that throws (or rejects) is written to `console.error` as a `ListenerError`. */
  onSettled?: (outcome: GuaranteedDeleteOutcome) => void;
}

/** How a {@link guaranteedDelete} ended. */
export type GuaranteedDeleteOutcome =
  | {
      /**
       * `'deleted'`: this call removed the node; `'gone'`: it was gone (or replaced by another
       * node) before any delete of this call could have removed it; `'deleted-or-gone'`: it is
       * gone, and a delete of this call whose reply was lost may have removed it (see
       * {@link DeleteOutcome}), or it was an ephemeral node of this client's session that
       * expired, and it goes with that session.
       */
      status: DeleteOutcome;
      /** How many tries were made (each a look at the node, then its delete). */
      attempts: number;
    }
  | {
      /**
       * `'closed'`: the client was closed (or its session can no longer be used) first;
       * `'aborted'`: the signal aborted; `'failed'`: an error no retry can mend (BADVERSION,
       * NOTEMPTY without `recursive`, NOAUTH, ...) or the policy's bound was reached.
       */
      status: 'closed' | 'aborted' | 'failed';
      /** How many tries were made. */
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
 *
 * It deletes only the node it found at its first look (its czxid), never one created at `path`
 * since (after its own delete whose reply was lost, or after the session that owned an ephemeral
 * node expired, another client may have created one): each try looks at the node first and
 * deletes it at the version seen. An ephemeral node of this client's own session is not deleted
 * once that session has expired: the server removes it with the session. When that session
 * expires before any look found the node, an ephemeral node newer than anything the client had
 * seen at the call is left alone (`'gone'`): it may be another client's, created after the
 * expiry; a persistent node is deleted (it does not go with a session). One window stays
 * (ZooKeeper has no delete conditioned on a node's life): the node deleted and created again by
 * others, and brought to the same version, between a try's look and its delete.
 */
export function guaranteedDelete(
  client: RecipeClient,
  path: string,
  options: GuaranteedDeleteOptions = {},
): Promise<GuaranteedDeleteOutcome> {
  const run = runGuaranteedDelete(client, path, options).catch(
    (error: unknown): GuaranteedDeleteOutcome => ({ status: 'failed', attempts: 0, error }),
  );
  return run.then((outcome) => {
    if (options.onSettled) {
      // Nobody else can be told of a callback that fails: the console, never the process.
      const report = (error: unknown) => {
        console.error(
          'zookeeper-ts: guaranteedDelete onSettled threw; the delete is done:',
          new ListenerError('settled', error),
        );
      };
      try {
        const result: unknown = options.onSettled(outcome);
        if (result instanceof Promise) result.catch(report);
      } catch (error) {
        report(error);
      }
    }
    return outcome;
  });
}

/** The node a guaranteed delete means: the one its first look found, and the session then. */
interface Target {
  readonly czxid: bigint;
  readonly ephemeralOwner: bigint;
  readonly sessionAtLook: bigint;
}

/** What one guaranteed delete knows across its tries. */
interface DeleteState {
  /** The node it means, once a look found one. */
  target?: Target;
  /** A delete of it may have been applied (its reply was lost). */
  unknown: boolean;
  /** The session, and the newest zxid the client had seen, when the call was made. */
  readonly calledOn: { session: bigint; zxid: bigint };
}

/** One try: look at the node, then delete the one meant (at the version seen). */
async function tryOnce(
  client: RecipeClient,
  path: string,
  options: GuaranteedDeleteOptions,
  state: DeleteState,
  signal: AbortSignal,
): Promise<DeleteOutcome | 'again'> {
  const goneNow = (): DeleteOutcome => (state.unknown ? 'deleted-or-gone' : 'gone');
  const stat = await client.exists(path, { signal });
  if (stat === null) return goneNow();
  if (state.target === undefined) {
    // The session of the call expired before any look found the node: an ephemeral node newer
    // than what the client had seen at the call may be another client's registration made after
    // that expiry (the call's own ephemeral node went with it), so it is not the one meant. A
    // persistent node does not go with a session: one newer than the client's view was most
    // likely there before the call, unseen by a client that had not caught up, and is deleted.
    if (
      client.sessionId !== state.calledOn.session &&
      stat.ephemeralOwner !== 0n &&
      stat.czxid > state.calledOn.zxid
    ) {
      return goneNow();
    }
    state.target = {
      czxid: stat.czxid,
      ephemeralOwner: stat.ephemeralOwner,
      sessionAtLook: client.sessionId,
    };
  }
  const target = state.target;
  // Another node at the path: the one meant is gone, and this one is not ours to delete.
  if (stat.czxid !== target.czxid) return goneNow();
  // An ephemeral node of this client's session that has expired since: the server removes it
  // with that session, and another client may create one at the path the moment it does.
  if (
    target.ephemeralOwner !== 0n &&
    target.ephemeralOwner === target.sessionAtLook &&
    client.sessionId !== target.sessionAtLook
  ) {
    return 'deleted-or-gone';
  }
  const { version = -1, recursive = false } = options;
  const at = version === -1 ? stat.version : version;
  try {
    if (recursive) {
      const outcome = await deleteRecursive(client, path, {
        version: at,
        signal,
        retry: { maxAttempts: 1 },
      });
      return outcome === 'deleted' ? 'deleted' : goneNow();
    }
    await client.delete(path, at, { signal });
    return 'deleted';
  } catch (error) {
    if (hasCode(error, 'NONODE')) return goneNow();
    // The node changed since the look: look again (the caller's own version is final).
    if (hasCode(error, 'BADVERSION') && version === -1) return 'again';
    if (mayHaveApplied(error)) state.unknown = true;
    throw error;
  }
}

async function runGuaranteedDelete(
  client: RecipeClient,
  path: string,
  options: GuaranteedDeleteOptions,
): Promise<GuaranteedDeleteOutcome> {
  const { signal } = options;
  const policy: RetryPolicy = { ...options.retry, retrySessionExpired: true };
  const { maxAttempts = Number.POSITIVE_INFINITY, maxElapsed = Number.POSITIVE_INFINITY } = policy;
  // One signal for "stop": the caller's, or the client closing.
  const stop = new AbortController();
  const onAbort = () => stop.abort('aborted');
  const unsubscribe = client.on('closing', () => stop.abort('closed'));
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  const started = Date.now();
  const state: DeleteState = {
    unknown: false,
    calledOn: { session: client.sessionId, zxid: client.lastZxid },
  };
  let attempts = 0;
  let error: unknown;
  try {
    for (;;) {
      const stopped = stoppedBy(client, stop.signal);
      if (stopped) return { status: stopped, attempts, error };
      attempts++;
      try {
        const outcome = await tryOnce(client, path, options, state, stop.signal);
        if (outcome !== 'again') return { status: outcome, attempts };
        if (attempts >= maxAttempts) return { status: 'failed', attempts, error };
      } catch (caught) {
        error = caught;
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

function stoppedBy(client: RecipeClient, stop: AbortSignal): 'closed' | 'aborted' | undefined {
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
