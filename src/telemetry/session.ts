// Publishing session events on `zookeeper-ts:session`. Each function checks for a subscriber
// first: these run a few times per connection, and build their message only when someone listens.
// The session keeps its own bookkeeping (which server, since when) and passes the facts; this file
// only shapes and publishes them.
import { ZooKeeperError } from '../protocol/errors.js';
import type { SessionMessage } from './messages.js';
import { ChannelName } from './names.js';
import { channel } from './resolve.js';

const sessions = channel(ChannelName.session);

function publish(message: SessionMessage): void {
  sessions.publish(message);
}

/** The session moved from `previous` to `state`. */
export function sessionStateChanged(
  sessionId: bigint,
  state: string,
  previous: string,
  cause: Error | undefined,
  server: string | null,
): void {
  if (!sessions.hasSubscribers) return;
  publish({ type: 'state', sessionId, state, previous, cause, server });
}

/** A handshake with `server` succeeded, `duration` ms after the session started looking. */
export function sessionConnected(
  sessionId: bigint,
  server: string,
  reconnect: boolean,
  readOnly: boolean,
  duration: number,
): void {
  if (!sessions.hasSubscribers) return;
  publish({ type: 'connect', sessionId, server, reconnect, readOnly, duration });
}

/** A new session replaced an expired one. */
export function sessionRenewed(previousSessionId: bigint, sessionId: bigint): void {
  if (!sessions.hasSubscribers) return;
  publish({ type: 'renewed', previousSessionId, sessionId });
}

/** The server answered credentials of `scheme`: `error` null when it accepted them. */
export function sessionAuthAnswered(scheme: string, error: Error | null): void {
  if (!sessions.hasSubscribers) return;
  const code = error === null ? undefined : error instanceof ZooKeeperError ? error.code : 'ERROR';
  publish({ type: 'auth', scheme, ok: error === null, code });
}
