// Watch restoration after a reconnect: the registry's paths, in server form, split into batches
// the way the Java client does (SET_WATCHES_MAX_LENGTH characters of paths per packet), sent
// first on every ready connection, ahead of anything queued.
import { codecs, encodeRequest } from '../protocol/codecs.js';
import { Xid } from '../protocol/ops.js';
import { joinChroot } from '../protocol/paths.js';
import { authFrame, setWatchesReply } from './control-frames.js';
import type { Outbox } from './outbox.js';
import type { AuthEntry, Outbound } from './requests.js';
import type { Connection } from './transport.js';
import { CONFIG_NODE, CONFIG_WATCH_KEY, type WatchPaths, type WatchRegistry } from './watches.js';

export const SET_WATCHES_MAX_LENGTH = 128 * 1024;

const KINDS = ['data', 'exist', 'child', 'persistent', 'persistentRecursive'] as const;

function emptyBatch(): WatchPaths {
  return { data: [], exist: [], child: [], persistent: [], persistentRecursive: [] };
}

/** Splits watch paths into batches whose path lengths add up to at most ~128 K characters. */
export function setWatchBatches(paths: WatchPaths, chroot: string): WatchPaths[] {
  const batches: WatchPaths[] = [];
  let current: WatchPaths | null = null;
  let length = 0;
  for (const kind of KINDS) {
    for (const path of paths[kind]) {
      if (!current) {
        current = emptyBatch();
        length = 0;
      }
      // getConfig's watch is on the configuration node itself, outside any chroot.
      const serverPath = path === CONFIG_WATCH_KEY ? CONFIG_NODE : joinChroot(chroot, path);
      current[kind].push(serverPath);
      length += serverPath.length;
      if (length >= SET_WATCHES_MAX_LENGTH) {
        batches.push(current);
        current = null;
      }
    }
  }
  if (current) batches.push(current);
  return batches;
}

/**
 * One frame per batch. A batch with persistent watches needs SetWatches2 (3.6+); others use the
 * older SetWatches so that pre-3.6 servers keep working.
 */
export function setWatchFrames(
  paths: WatchPaths,
  chroot: string,
  relativeZxid: bigint,
): Uint8Array[] {
  return setWatchBatches(paths, chroot).map((batch) => {
    const base = {
      relativeZxid,
      dataWatches: batch.data,
      existWatches: batch.exist,
      childWatches: batch.child,
    };
    if (batch.persistent.length === 0 && batch.persistentRecursive.length === 0) {
      return encodeRequest(Xid.setWatches, codecs.setWatches, base);
    }
    return encodeRequest(Xid.setWatches, codecs.setWatches2, {
      ...base,
      persistentWatches: batch.persistent,
      persistentRecursiveWatches: batch.persistentRecursive,
    });
  });
}

/** What opening a ready connection needs from the session. */
export interface OpenRoute {
  readonly auth: readonly AuthEntry[];
  readonly watches: WatchRegistry;
  readonly chroot: string;
  readonly outbox: Outbox;
  lastZxid(): bigint;
  /** Whether this connection is still the session's (it may have broken meanwhile). */
  isCurrent(connection: Connection): boolean;
  /** Announces the connection ('connected' or 'connected-readonly'). */
  announce(state: 'connected' | 'connected-readonly'): void;
  /**
   * Tells the persistent watches, once they are armed again, that changes may have been missed
   * while there was no connection (or no session). Runs just before `announce`.
   */
  resync(): void;
}

/** The connection is ready (authenticated): restore its state, then let every request out. */
export function openForRequests(route: OpenRoute, connection: Connection, readOnly: boolean): void {
  // Ahead of anything already queued: the credentials, then the watches to restore.
  const connectedState = readOnly ? 'connected-readonly' : 'connected';
  const first: Outbound[] = route.auth.map(authFrame);
  const watchFrames = setWatchFrames(route.watches.paths(), route.chroot, route.lastZxid());
  // Announce the connection only once every watch is armed again on the server: a change
  // made after a listener saw 'connected' must reach the watches (persistent watches get no
  // catch-up events from SetWatches).
  let restoring = watchFrames.length;
  for (const frame of watchFrames) {
    first.push({
      kind: 'control',
      frame,
      request: setWatchesReply(() => {
        restoring--;
        if (restoring === 0 && route.isCurrent(connection)) ready();
      }),
    });
  }
  const ready = () => {
    route.resync();
    route.announce(connectedState);
  };
  route.outbox.pushFront(first);
  if (restoring === 0) ready();
  route.outbox.attach(connection);
}
