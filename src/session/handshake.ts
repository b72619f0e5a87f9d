// The connected bookkeeping, from the handshake to the broken link. A ConnectResponse turns an open
// connection into the session's link: the server's answer adopted, the host marked as the one that
// worked, the expiry countdown stopped, the heartbeat started, then SASL or the restore of
// credentials and watches. A broken link turns back into a suspended session: the calls in flight
// fail with CONNECTIONLOSS and the countdown to expiry starts from when the newest request the
// server answered was sent (the server's own clock for the session restarted then or later).
import { decodeConnectResponse } from '../protocol/codecs.js';
import { makeError } from '../protocol/errors.js';
import type { SessionContext } from './context.js';
import { handshakeRefusal, REPLY_HEADER_SIZE } from './control-frames.js';
import { formatHost, type HostAddress } from './hosts.js';
import { hexSessionId } from './identity.js';
import { clearExpiry, Link } from './link.js';
import { openForRequests } from './restore.js';
import { saslOnConnection } from './sasl/session-hook.js';
import { isConnected, isFinal } from './state.js';
import type { Connection } from './transport.js';

/** The first frame of a connection: true when it established the session. */
export function handshake(
  ctx: SessionContext,
  frame: Uint8Array,
  connection: Connection,
  host: HostAddress,
  connectSentAt: number,
): boolean {
  if (frame.length === REPLY_HEADER_SIZE) throw handshakeRefusal(frame);
  // The client ended while this handshake was in flight: the session it opens is not wanted
  // (the server ends it once the connection closes and its timeout runs out).
  if (isFinal(ctx.state)) throw makeError('CONNECTIONLOSS', 'the client has ended');
  const response = decodeConnectResponse(frame);
  const { identity } = ctx;
  if (response.timeOut <= 0) {
    // The server no longer knows this session (expired, or a wrong password). A refusal of a
    // session already retired here (a handshake sent before the expiry) is no news.
    if (identity.id !== 0n)
      ctx.expire(makeError('SESSIONEXPIRED', `session ${identity.hexId} has expired`));
    return false;
  }
  if (identity.isRetired(response.sessionId)) {
    // A handshake sent before this client declared the session expired reached a server that
    // had not expired it yet. It stays dead here: dial again for a new session.
    throw makeError(
      'CONNECTIONLOSS',
      `${formatHost(host)} resumed session ${hexSessionId(response.sessionId)}, which this client already declared expired`,
    );
  }
  identity.adopt(response, ctx.hosts.size);
  ctx.adopted();
  ctx.hosts.markConnected();
  ctx.lastError = null;
  clearExpiry(ctx);
  // The closures below keep this frame's variables as long as the link lives: they read the
  // flag, not the response (and its password buffer).
  const readOnly = response.readOnly;
  // Before any transition: a 'connected' listener may read `server`.
  ctx.link = new Link(connection, host, readOnly, ctx.clock, identity.timers, ctx, connectSentAt);
  const sasl = ctx.sasl;
  if (!sasl) openForRequests(ctx, connection, readOnly);
  else
    saslOnConnection(sasl, ctx.pending, connection, {
      nextXid: () => ctx.nextXid(),
      sent: () => {
        ctx.link?.heartbeat.sent();
        return ctx.clock.now();
      },
      done: () => {
        if (ctx.isCurrent(connection)) openForRequests(ctx, connection, readOnly);
      },
      failed: (error) => void ctx.shutdown('auth-failed', error),
    });
  return true;
}

/** An established connection ended: fail what waited on it, suspend, start the countdown. */
export function linkLost(ctx: SessionContext, connection: Connection, host: HostAddress): void {
  const link = ctx.link;
  if (link?.connection !== connection) return;
  ctx.link = null;
  // The session's clock runs from the send time of the newest request the server answered, not
  // from when its reply came (a busy server may hold a reply for seconds) nor when the link broke.
  const lastHeard = link.end();
  const lastError = ctx.lastError;
  const reason = lastError instanceof Error ? lastError.message : 'the connection closed';
  const message = `connection to ${formatHost(host)} lost: ${reason}`;
  const cause = lastError instanceof Error ? lastError : undefined;
  for (const request of ctx.pending.drain()) {
    request.settle(
      makeError('CONNECTIONLOSS', message, {
        op: request.op,
        path: request.path,
        cause,
      }),
    );
  }
  // Credentials without a reply are re-sent (with their waiters) by the next handshake.
  ctx.authInFlight.drain();
  ctx.outbox.detach();
  if (isFinal(ctx.state) || ctx.closeAnswered) return;
  ctx.seeking();
  ctx.renewals.linkLost();
  ctx.machine.transition('suspended', cause);
  armExpiry(ctx, lastHeard);
}

function armExpiry(ctx: SessionContext, lastHeard: number): void {
  const { clock, identity } = ctx;
  clearExpiry(ctx);
  if (identity.id === 0n) return;
  // Nothing heard for a whole session timeout: the server has expired us, or will before we
  // could prove otherwise. Declaring it here keeps locks safe and stops retrying forever.
  const remaining = Math.max(0, lastHeard + identity.timeout - clock.now());
  ctx.expiryTimer = clock.setTimeout(() => {
    ctx.expiryTimer = null;
    if (isConnected(ctx.state) || isFinal(ctx.state)) return;
    ctx.expire(
      makeError(
        'SESSIONEXPIRED',
        `no server answered for ${identity.timeout} ms (the session timeout): session ${identity.hexId} is considered expired`,
      ),
    );
  }, remaining);
}
