// Frames and replies of the handshake and of the connection's own housekeeping: pings, auth
// packets, SetWatches replies, and a server's refusal of a session.
import { codecs, decodeReplyHeader, encodeRequest } from '../protocol/codecs.js';
import {
  ErrorCode,
  errorCodeName,
  errorFromCode,
  type ZooKeeperError,
} from '../protocol/errors.js';
import { Xid } from '../protocol/ops.js';
import { Reader } from '../protocol/reader.js';
import { type AuthEntry, makeRequest, type Outbound, type PendingRequest } from './requests.js';

export const PING_FRAME = encodeRequest(Xid.ping, codecs.ping, undefined);

export const REPLY_HEADER_SIZE = 16;

/**
 * Some servers refuse a session with a bare ReplyHeader instead of a ConnectResponse: a read-only
 * server without local sessions answers a new session with NOTREADONLY. Say so plainly.
 */
export function handshakeRefusal(frame: Uint8Array): ZooKeeperError {
  const header = decodeReplyHeader(new Reader(frame));
  const hint =
    header.err === ErrorCode.NOTREADONLY
      ? ' (a read-only server gives new sessions only with localSessionsEnabled=true)'
      : '';
  return errorFromCode(header.err, {
    message: `the server refused the session with ${errorCodeName(header.err)}${hint}`,
    op: 'connect',
  });
}

/** AuthPacket.type: servers ignore it, and every client sends 0. */
const AUTH_TYPE = 0;

export function authFrame(entry: AuthEntry): Outbound {
  return {
    kind: 'auth',
    frame: encodeRequest(Xid.auth, codecs.auth, {
      type: AUTH_TYPE,
      scheme: entry.scheme,
      auth: entry.auth,
    }),
    entry,
  };
}

/** SetWatches replies carry nothing; they are matched in order like any request. */
export function setWatchesReply(onReply: () => void): PendingRequest {
  return makeRequest({
    xid: Xid.setWatches,
    op: 'setWatches',
    read: () => undefined,
    // An error reply still ends the restore: the watches it names are simply not armed.
    resolve: onReply,
    reject: () => {},
    onReply: (err) => {
      if (err !== ErrorCode.OK) onReply();
    },
  });
}
