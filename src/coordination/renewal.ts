// The recipes across a session renewal. After an expiry the client opens a new session on its own
// (the client's `renewSession`, on by default): whatever a recipe did on the old session is over
// (its nodes go with it, its calls in flight fail with SESSIONEXPIRED), and a waiting acquire or
// an election starts again on the new session, within its own deadline, as Curator's retrying
// acquire and kazoo's retry do. A held lease never survives: its signal aborted at the expiry.
//
// The one rule that keeps this safe: a node is only ever acted on by the session that created it.
// A listing answered on the new session may still show the old session's node (the server expires
// a session on its own clock, and a client that declared the expiry itself can be ahead of it);
// taking that node for our own would hand out a lock that nobody holds. So every decision on a
// node checks its owner against the session asking.

import type { Client } from '../client/client.js';
import { makeError } from '../protocol/errors.js';
import type { StopSignal } from '../session/signal-waiters.js';
import { hasCode } from './codes.js';
import type { OwnNode } from './naming.js';

/** Whether `error` ended a session that the client is replacing by a new one (see above). */
export function renewedAfter(client: Pick<Client, 'closing' | 'state'>, error: unknown): boolean {
  if (!hasCode(error, 'SESSIONEXPIRED') || client.closing) return false;
  const state = client.state;
  return state !== 'expired' && state !== 'closed' && state !== 'auth-failed';
}

/**
 * Throws SESSIONEXPIRED when `node` was created by a session other than the client's current
 * one: the recipe must start over (see {@link acrossRenewals}), never take the node for its own.
 */
export function checkOwnSession(client: Pick<Client, 'sessionId'>, node: OwnNode): void {
  if (node.stat.ephemeralOwner !== client.sessionId) {
    throw makeError(
      'SESSIONEXPIRED',
      `${node.path} was created by session 0x${node.stat.ephemeralOwner.toString(16)}, which has expired`,
      { path: node.path },
    );
  }
}

/**
 * Runs `attempt` again, from the start, each time it fails because the session it ran on expired
 * and the client renewed it; any other failure, and any failure once `signal` aborted, is passed
 * on. `attempt` cleans up after itself (its nodes were the old session's anyway).
 */
export function acrossRenewals<T>(
  client: Pick<Client, 'closing' | 'state'>,
  signal: StopSignal | undefined,
  attempt: () => Promise<T>,
): Promise<T> {
  // One promise on the common path (no renewal): acquire sits on the lock's hot path.
  return attempt().catch((error: unknown) => {
    if (signal?.aborted || !renewedAfter(client, error)) throw error;
    return acrossRenewals(client, signal, attempt);
  });
}
