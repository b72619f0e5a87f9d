/**
 * Shared jute records (zookeeper.jute, modules org.apache.zookeeper.data and the
 * header/handshake part of org.apache.zookeeper.proto). Each record is declared
 * once, with its grammar line above it; fields are in wire order and named as in
 * the jute file. The declaration is the reader, the writer and the type.
 * Byte layouts and server behaviours: docs/protocol.md.
 */

import { bytes, type JuteValue, list, record, trailingBool } from './jute.js';

// class Id { ustring scheme; ustring id; }
/** An identity: `world:anyone`, `digest:user:hash`, `ip:10.0.0.0/8`, `sasl:alice`... */
export const Id = record((f) => ({ scheme: f.string(), id: f.string() }));
export type Id = JuteValue<typeof Id>;

// class ACL { int perms; Id id; }
/** One ACL entry: permission bits (Perms) granted to an identity. */
export const ACL = record((f) => ({ perms: f.int(), id: f.of(Id) }));
export type ACL = JuteValue<typeof ACL>;
/** vector<ACL>; a null list reads as []. */
export const ACLs = list(ACL);

/** Bytes of a Stat on the wire: 6 longs and 5 ints. */
export const STAT_SIZE = 68;

// class Stat { long czxid; long mzxid; long ctime; long mtime; int version; int cversion;
//   int aversion; long ephemeralOwner; int dataLength; int numChildren; long pzxid; }
/** A node's metadata. The wire form keeps ctime/mtime as bigint milliseconds; the client converts. */
export const Stat = record(
  (f) => ({
    czxid: f.long(),
    mzxid: f.long(),
    ctime: f.long(),
    mtime: f.long(),
    version: f.int(),
    cversion: f.int(),
    aversion: f.int(),
    ephemeralOwner: f.long(),
    dataLength: f.int(),
    numChildren: f.int(),
    pzxid: f.long(),
  }),
  { name: 'Stat', minSize: STAT_SIZE },
);
export type Stat = JuteValue<typeof Stat>;

// class ClientInfo { ustring authScheme; ustring user; }
/** One identity of the session, as whoAmI reports it. */
export const ClientInfo = record((f) => ({ authScheme: f.string(), user: f.string() }));
export type ClientInfo = JuteValue<typeof ClientInfo>;
/** vector<ClientInfo>; a null list reads as []. */
export const ClientInfos = list(ClientInfo);

// class RequestHeader { int xid; int type; }
/** Precedes every request body after the handshake; `type` is an OpCode. */
export const RequestHeader = record((f) => ({ xid: f.int(), type: f.int() }));
export type RequestHeader = JuteValue<typeof RequestHeader>;

// class ReplyHeader { int xid; long zxid; int err; }
/** Precedes every reply and notification; `err` is an ErrorCode, the body follows only when 0. */
export const ReplyHeader = record((f) => ({ xid: f.int(), zxid: f.long(), err: f.int() }));
export type ReplyHeader = JuteValue<typeof ReplyHeader>;

// class WatcherEvent { int type; int state; ustring path; }
/**
 * A notification body (xid -1): an EventTypeCode, the keeper state (a server always sends
 * SyncConnected, 3), the path with the chroot.
 */
export const WatcherEvent = record((f) => ({ type: f.int(), state: f.int(), path: f.string() }));
export type WatcherEvent = JuteValue<typeof WatcherEvent>;

// class ConnectRequest { int protocolVersion; long lastZxidSeen; int timeOut; long sessionId;
//   buffer passwd; boolean readOnly; }
/** The first client frame. readOnly is declared in 3.9's jute and appended by hand in 3.8: same bytes. */
export const ConnectRequest = record((f) => ({
  protocolVersion: f.int(),
  lastZxidSeen: f.long(),
  timeOut: f.int(),
  sessionId: f.long(),
  passwd: f.of(bytes),
  readOnly: f.of(trailingBool),
}));
export type ConnectRequest = JuteValue<typeof ConnectRequest>;

// class ConnectResponse { int protocolVersion; int timeOut; long sessionId; buffer passwd;
//   boolean readOnly; }
/** The first server frame. Servers answering a pre-3.4 request omit readOnly: it reads as false. */
export const ConnectResponse = record((f) => ({
  protocolVersion: f.int(),
  /** Negotiated session timeout in ms; <= 0 means the session is invalid (expired). */
  timeOut: f.int(),
  sessionId: f.long(),
  passwd: f.of(bytes),
  readOnly: f.of(trailingBool),
}));
export type ConnectResponse = JuteValue<typeof ConnectResponse>;

// class MultiHeader { int type; boolean done; int err; }
/** Precedes each op of a multi request and each result of its reply. */
export const MultiHeader = record((f) => ({ type: f.int(), done: f.bool(), err: f.int() }));
export type MultiHeader = JuteValue<typeof MultiHeader>;

// class ErrorResponse { int err; }
/** The body of a failed op's result inside a multi reply. */
export const ErrorResponse = record((f) => ({ err: f.int() }));
export type ErrorResponse = JuteValue<typeof ErrorResponse>;
