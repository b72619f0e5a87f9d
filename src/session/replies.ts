// The reply path: every frame the server sends on an established connection comes through here.
// Watch notifications go to the registry, pings and credentials are answered in place, and every
// other reply must belong to the oldest written request (the server answers strictly in order).

import { ErrorCode, errorFromCode, ProtocolError } from '../protocol/errors.js';
import { Xid } from '../protocol/ops.js';
import { stripChroot } from '../protocol/paths.js';
import { Reader } from '../protocol/reader.js';
import { sessionAuthAnswered } from '../telemetry/session.js';
import { watchEventDelivered } from '../telemetry/watch.js';
import type { SessionContext } from './context.js';
import { eventTypeName } from './events.js';
import { replyError } from './reply-errors.js';
import { CONFIG_NODE } from './watches.js';

/**
 * The one reader of every reply, reset for each: nothing reads from it once a reply is routed
 * (what a codec keeps are views of their own), and a frame is routed only from a transport's
 * callback, never from inside another frame's routing.
 */
const reader = new Reader(new Uint8Array(0));

/**
 * Handles one frame, `length` bytes of `bytes` from `start` (a chunk as the transport gave it:
 * no view is made for the frame). Throws ProtocolError when the frame cannot be matched or read:
 * the caller drops the link (the session survives).
 */
export function routeReply(
  bytes: Uint8Array,
  start: number,
  length: number,
  ctx: SessionContext,
): void {
  reader.reset(bytes, start, start + length);
  // The ReplyHeader (xid, zxid, err) read field by field: no record object per reply.
  const xid = reader.int();
  // The zxid as its two halves: no bigint per reply (see SessionIdentity.saw).
  const zxidHigh = reader.int();
  const zxidLow = reader.int();
  const err = reader.int();
  if (xid === Xid.notification) {
    // The WatcherEvent (type, keeper state, path) read field by field, as the header is: no
    // record object per notification (the state is always SyncConnected, and unused).
    const type = eventTypeName(reader.int());
    reader.int();
    const serverPath = reader.string();
    if (type) {
      const path = stripChroot(ctx.chroot, serverPath);
      // A path outside the chroot is the configuration node's: only getConfig watches it.
      if (ctx.chroot === '' || path !== serverPath) {
        watchEventDelivered(ctx.identity.id, type, path, ctx.watches.dispatch(type, path));
      }
      if (serverPath === CONFIG_NODE) ctx.watches.dispatchConfig(type);
    }
    return;
  }
  // The link is alive (the chunk's arrival told its heartbeat: see Attempt.chunk), and the reply
  // below proves the session alive too.
  const heartbeat = ctx.link?.heartbeat;
  if (xid === Xid.ping) {
    heartbeat?.pingAnswered();
    return;
  }
  if (xid === Xid.auth) {
    const entry = ctx.authInFlight.shift();
    const waiters = entry?.waiters.splice(0) ?? [];
    if (err === ErrorCode.OK) {
      if (entry) sessionAuthAnswered(entry.scheme, null);
      for (const waiter of waiters) waiter.resolve();
      return;
    }
    const error = errorFromCode(err, { op: 'addAuth' });
    if (entry) sessionAuthAnswered(entry.scheme, error);
    for (const waiter of waiters) waiter.reject(error);
    void ctx.shutdown('auth-failed', error);
    return;
  }
  const request = ctx.pending.shift();
  if (!request || request.xid !== xid) {
    if (request) ctx.pending.unshift(request);
    throw new ProtocolError(
      `reply xid ${xid} does not match the oldest request (${request ? request.xid : 'none'})`,
    );
  }
  // The session is alive as of when this request was sent (not when its reply came).
  heartbeat?.proven(request.sentAt);
  // The newest state the client has seen.
  ctx.identity.saw(zxidHigh, zxidLow);
  if (request.trace) request.trace.bytesReceived = length;
  try {
    if (request.abandoned) request.onAbandonedReply?.(err);
    else request.onReply?.(err);
  } catch {
    // Watch bookkeeping must never break reply delivery.
  }
  if (request.abandoned) return;
  if (err !== ErrorCode.OK) {
    if (request.refuse) request.refuse(err, ctx.chroot);
    else request.settle(replyError(err, request.path, request.op, ctx.chroot));
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
