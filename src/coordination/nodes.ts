// Removing a node of ours and reading after an unknown outcome, safely across connection losses:
// the rules the locks and the recipes (PersistentNode) share for the nodes they create.
import type { RecipeClient } from '../client/recipe-client.js';
import { isSessionOver } from '../protocol/errors.js';
import type { StopSignal } from '../session/signal-waiters.js';
import { isConnected } from '../session/state.js';
import { stopping } from './bound-signal.js';
import { hasCode } from './codes.js';
import { retry } from './retry.js';

/** The members of a RecipeClient these helpers call. */
export type NodeClient = Pick<RecipeClient, 'delete' | 'sync' | 'on' | 'state'>;

/**
 * Whether `error` says a node of ours is gone: NONODE, or the session is over (its ephemeral
 * nodes went with it). Nothing is left to clean up after either.
 */
export function isGone(error: unknown): boolean {
  return hasCode(error, 'NONODE') || isSessionOver(error);
}

/**
 * Deletes a node of ours, trying again after every retriable error (a REQUESTTIMEOUT during a
 * blip included) until the node is gone or the session is over: a node left behind would block
 * every contender for as long as the session lives. Only for nodes nobody else creates at the
 * same path (sequential names with a unique prefix, or a node this object keeps): a repeated
 * delete cannot hit someone else's node.
 */
export async function deleteNode(client: Pick<NodeClient, 'delete'>, path: string): Promise<void> {
  try {
    await retry(() => client.delete(path));
  } catch (error) {
    if (!isGone(error)) throw error;
  }
}

/**
 * Brings the server this client talks to up to date with the leader, so that the next read sees
 * every write committed before now. Needed before a read that looks for a node whose create had
 * an unknown outcome: after a reconnect the client may be on a follower that has not applied the
 * create yet (the session's last-seen zxid does not include a create whose reply was lost), and a
 * stale listing would make the caller create a second node and orphan the first.
 */
export async function syncFirst(
  client: Pick<NodeClient, 'sync'>,
  path: string,
  signal?: StopSignal,
): Promise<void> {
  await retry(() => client.sync(path, stopping({}, signal)), { signal }).catch((error: unknown) => {
    // A missing path has nothing to be stale about: the read that follows will say so.
    if (!hasCode(error, 'NONODE')) throw error;
  });
}

/**
 * Waits for `task` while the client stays connected; stops waiting (the task carries on in the
 * background) as soon as it is not, so cleanup after a timeout or a close never holds the caller
 * for a whole reconnect.
 */
export async function settleWhileConnected(
  client: Pick<NodeClient, 'on' | 'state'>,
  task: Promise<unknown>,
): Promise<void> {
  const quiet = task.then(
    () => {},
    () => {},
  );
  if (!isConnected(client.state)) return;
  let unsubscribe = () => {};
  const disconnected = new Promise<void>((resolve) => {
    unsubscribe = client.on('state', (state) => {
      if (!isConnected(state)) resolve();
    });
  });
  try {
    await Promise.race([quiet, disconnected]);
  } finally {
    unsubscribe();
  }
}
