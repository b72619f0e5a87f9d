// The reply path: every frame the server sends on an established connection comes through here.
// Watch notifications go to the registry, pings and credentials are answered in place, and every
// other reply must belong to the oldest written request (the server answers strictly in order).

import { decodeWatcherEvent } from '../protocol/codecs.js';
import type { ZooKeeperError } from '../protocol/errors.js';
import { ErrorCode, errorFromCode, ProtocolError } from '../protocol/errors.js';
import { Xid } from '../protocol/ops.js';
import { stripChroot } from '../protocol/paths.js';
import { Reader } from '../protocol/reader.js';
import { sessionAuthAnswered } from '../telemetry/session.js';
import { watchEventDelivered } from '../telemetry/watch.js';
import { eventTypeName } from './events.js';
import type { Deque } from './queue.js';
import { replyError } from './reply-errors.js';
import type { AuthEntry, PendingRequest } from './requests.js';
import { CONFIG_NODE, type WatchRegistry } from './watches.js';

/** What the reply path reads and tells: the session's queues and its bookkeeping. */
export interface ReplyRoute {
  readonly chroot: string;
  readonly watches: WatchRegistry;
  /** The session's id (for the watch events' telemetry). */
  readonly sessionId: bigint;
  /** Written requests awaiting their replies, oldest first. */
  readonly pending: Deque<PendingRequest>;
  /** Written credentials awaiting their replies, oldest first. */
  readonly authInFlight: Deque<AuthEntry>;
  /** A frame arrived from the server (the link is alive). */
  heard(): void;
  /** A reply carried this zxid (> 0): the newest state the client has seen. */
  zxidSeen(zxid: bigint): void;
  /** The server refused credentials: the session must end. */
  authFailed(error: ZooKeeperError): void;
}

/**
 * Handles one frame. Throws ProtocolError when the frame cannot be matched or read: the caller
 * drops the link (the session survives).
 */
export function routeReply(frame: Uint8Array, route: ReplyRoute): void {
  const reader = new Reader(frame);
  // The ReplyHeader (xid, zxid, err) read field by field: no record object per reply.
  const xid = reader.int();
  const zxid = reader.long();
  const err = reader.int();
  route.heard();
  if (xid === Xid.notification) {
    const event = decodeWatcherEvent(reader);
    const type = eventTypeName(event.type);
    if (type) {
      const path = stripChroot(route.chroot, event.path);
      // A path outside the chroot is the configuration node's: only getConfig watches it.
      if (route.chroot === '' || path !== event.path) {
        watchEventDelivered(route.sessionId, type, path, route.watches.dispatch(type, path));
      }
      if (event.path === CONFIG_NODE) route.watches.dispatchConfig(type);
    }
    return;
  }
  if (xid === Xid.ping) return;
  if (xid === Xid.auth) {
    const entry = route.authInFlight.shift();
    const waiters = entry?.waiters.splice(0) ?? [];
    if (err === ErrorCode.OK) {
      if (entry) sessionAuthAnswered(entry.scheme, null);
      for (const waiter of waiters) waiter.resolve();
      return;
    }
    const error = errorFromCode(err, { op: 'addAuth' });
    if (entry) sessionAuthAnswered(entry.scheme, error);
    for (const waiter of waiters) waiter.reject(error);
    route.authFailed(error);
    return;
  }
  const request = route.pending.shift();
  if (!request || request.xid !== xid) {
    if (request) route.pending.unshift(request);
    throw new ProtocolError(
      `reply xid ${xid} does not match the oldest request (${request ? request.xid : 'none'})`,
    );
  }
  if (zxid > 0n) route.zxidSeen(zxid);
  if (request.trace) request.trace.bytesReceived = frame.length;
  try {
    if (request.abandoned) request.onAbandonedReply?.(err);
    else request.onReply?.(err);
  } catch {
    // Watch bookkeeping must never break reply delivery.
  }
  if (request.abandoned) return;
  if (err !== ErrorCode.OK) {
    request.settle(replyError(err, request.path, request.op, route.chroot));
    return;
  }
  let value: unknown;
  try {
    value = request.read(reader);
  } catch (error) {
    request.settle(error instanceof Error ? error : new ProtocolError(String(error)));
    throw error;
  }
  request.settle(null, value);
}
