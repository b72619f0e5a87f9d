// Waiting for one node to change, without leaving a watch behind when it is already gone.

import type { Client } from '../client/client.js';
import type { WatchedEvent } from '../client/types.js';
import { untilAborted } from '../session/abortable.js';
import {
  type AbortWaiter,
  type StopSignal,
  stopWaiting,
  waitOn,
} from '../session/signal-waiters.js';
import { hasCode } from './codes.js';
import { isRetriable } from './retry.js';
import { dataWatchKey, joinWatcher, type WatcherMembership } from './watchers.js';

type Watcher = (event: WatchedEvent) => void;

/**
 * Waits for one watch to fire. `arm` sets the watch with the watcher it is given, and resolves
 * `'now'` when there is nothing to wait for (the node is already gone, or the link broke: the
 * caller re-checks, never assumes) or `'wait'` once the watch is set. Resolves with the event
 * that fired (undefined when `arm` said `'now'`). Rejects with the signal's reason on abort, or
 * with `arm`'s error. The watcher is shared by every wait on `key` (see
 * {@link joinWatcher}): an aborted wait leaves no closure of its own in the client.
 */
export function waitForWatch(
  client: object,
  key: string,
  signal: StopSignal | undefined,
  arm: (watcher: Watcher) => Promise<'now' | 'wait'>,
): Promise<WatchedEvent | undefined> {
  return new Promise<WatchedEvent | undefined>((resolve, reject) => {
    let settled = false;
    const finish = (error?: unknown, event?: WatchedEvent) => {
      if (settled) return;
      settled = true;
      if (signal) stopWaiting(signal, onAbort);
      membership?.leave();
      if (error === undefined) resolve(event);
      else reject(error);
    };
    // One listener on the signal for all the waits on it (a caller's signal given to many waits).
    const onAbort: AbortWaiter = { aborted: (reason) => finish(reason) };
    let membership: WatcherMembership | undefined;
    if (signal?.aborted) return finish(signal.reason);
    if (signal) waitOn(signal, onAbort);
    const joined = joinWatcher(client, key, (event) => finish(undefined, event));
    membership = joined;
    arm(joined.watcher).then(
      (outcome) => {
        // Set on the server (also when this wait was given up meanwhile): the closure stays.
        if (outcome === 'wait') joined.armed();
        else finish();
      },
      (error: unknown) => finish(error ?? new Error('setting the watch failed')),
    );
  });
}

/**
 * Resolves when the node at `path` is deleted or changes, or is already gone; rejects with the
 * signal's reason on abort. It uses a getData watch (not exists) as Curator does: getData sets no
 * watch on a missing node. Any event wakes it (deletion, data change, the session ending).
 */
export function waitForChange(
  client: Pick<Client, 'getData'>,
  path: string,
  signal: AbortSignal | undefined,
): Promise<WatchedEvent | undefined> {
  return waitForWatch(client, dataWatchKey(path), signal, (watch) =>
    client.getData(path, { watch, signal }).then(
      () => 'wait' as const,
      (error: unknown) => {
        if (hasCode(error, 'NONODE') || isRetriable(error)) return 'now' as const;
        throw error;
      },
    ),
  );
}

/** `promise`, or the signal's reason if it aborts first. */
export function abortable<T>(promise: Promise<T>, signal: StopSignal | undefined): Promise<T> {
  return signal ? untilAborted(promise, signal) : promise;
}
