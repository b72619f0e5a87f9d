/**
 * Shared jute records (zookeeper.jute, modules org.apache.zookeeper.data and
 * the header/handshake part of org.apache.zookeeper.proto). Fields are in wire
 * order and named exactly as in the jute file; the grammar line is above each pair.
 */

import { ProtocolError } from './errors.js';
import type { Reader } from './reader.js';
import type { Writer } from './writer.js';

/** A ustring that the protocol never sends as null; a null on the wire reads as ''. */
export function readString(r: Reader): string {
  return r.ustring() ?? '';
}

/** vector<ustring> where null means "none": reads as []. Null elements read as ''. */
export function readStringList(r: Reader): string[] {
  return r.vector(readString) ?? [];
}

export function writeStringList(w: Writer, items: readonly string[] | null): void {
  w.vector(items, (iw, s) => iw.ustring(s));
}

// class Id { ustring scheme; ustring id; }
export interface Id {
  scheme: string;
  id: string;
}

export function writeId(w: Writer, rec: Id): void {
  w.ustring(rec.scheme).ustring(rec.id);
}

export function readId(r: Reader): Id {
  return { scheme: readString(r), id: readString(r) };
}

// class ACL { int perms; Id id; }
export interface ACL {
  perms: number;
  id: Id;
}

export function writeACL(w: Writer, rec: ACL): void {
  w.int(rec.perms);
  writeId(w, rec.id);
}

export function readACL(r: Reader): ACL {
  const perms = r.int();
  return { perms, id: readId(r) };
}

/** vector<ACL>; a null list reads as []. */
export function writeACLList(w: Writer, acl: readonly ACL[] | null): void {
  w.vector(acl, writeACL);
}

export function readACLList(r: Reader): ACL[] {
  return r.vector(readACL) ?? [];
}

// class Stat { long czxid; long mzxid; long ctime; long mtime; int version; int cversion;
//   int aversion; long ephemeralOwner; int dataLength; int numChildren; long pzxid; }
/** The wire form keeps ctime/mtime as bigint milliseconds; the client converts. 68 bytes. */
export interface Stat {
  czxid: bigint;
  mzxid: bigint;
  ctime: bigint;
  mtime: bigint;
  version: number;
  cversion: number;
  aversion: number;
  ephemeralOwner: bigint;
  dataLength: number;
  numChildren: number;
  pzxid: bigint;
}

export const STAT_SIZE = 68;

export function writeStat(w: Writer, rec: Stat): void {
  w.long(rec.czxid).long(rec.mzxid).long(rec.ctime).long(rec.mtime);
  w.int(rec.version).int(rec.cversion).int(rec.aversion);
  w.long(rec.ephemeralOwner);
  w.int(rec.dataLength).int(rec.numChildren);
  w.long(rec.pzxid);
}

export function readStat(r: Reader): Stat {
  if (r.remaining < STAT_SIZE) {
    throw new ProtocolError(`short read: Stat needs ${STAT_SIZE} bytes, ${r.remaining} left`);
  }
  return {
    czxid: r.long(),
    mzxid: r.long(),
    ctime: r.long(),
    mtime: r.long(),
    version: r.int(),
    cversion: r.int(),
    aversion: r.int(),
    ephemeralOwner: r.long(),
    dataLength: r.int(),
    numChildren: r.int(),
    pzxid: r.long(),
  };
}

// class ClientInfo { ustring authScheme; ustring user; }
export interface ClientInfo {
  authScheme: string;
  user: string;
}

export function writeClientInfo(w: Writer, rec: ClientInfo): void {
  w.ustring(rec.authScheme).ustring(rec.user);
}

export function readClientInfo(r: Reader): ClientInfo {
  return { authScheme: readString(r), user: readString(r) };
}

// class RequestHeader { int xid; int type; }
export interface RequestHeader {
  xid: number;
  type: number;
}

export function writeRequestHeader(w: Writer, rec: RequestHeader): void {
  w.int(rec.xid).int(rec.type);
}

export function readRequestHeader(r: Reader): RequestHeader {
  return { xid: r.int(), type: r.int() };
}

// class ReplyHeader { int xid; long zxid; int err; }
export interface ReplyHeader {
  xid: number;
  zxid: bigint;
  err: number;
}

export function writeReplyHeader(w: Writer, rec: ReplyHeader): void {
  w.int(rec.xid).long(rec.zxid).int(rec.err);
}

export function readReplyHeader(r: Reader): ReplyHeader {
  return { xid: r.int(), zxid: r.long(), err: r.int() };
}

// class WatcherEvent { int type; int state; ustring path; }
export interface WatcherEvent {
  type: number;
  state: number;
  /** Server form (with chroot). A null on the wire reads as ''. */
  path: string;
}

export function writeWatcherEvent(w: Writer, rec: WatcherEvent): void {
  w.int(rec.type).int(rec.state).ustring(rec.path);
}

export function readWatcherEvent(r: Reader): WatcherEvent {
  return { type: r.int(), state: r.int(), path: readString(r) };
}

// class ConnectRequest { int protocolVersion; long lastZxidSeen; int timeOut; long sessionId;
//   buffer passwd; boolean readOnly; }
/** readOnly is declared in 3.9's jute and appended by hand in 3.8: same bytes. */
export interface ConnectRequest {
  protocolVersion: number;
  lastZxidSeen: bigint;
  timeOut: number;
  sessionId: bigint;
  passwd: Uint8Array;
  readOnly: boolean;
}

export function writeConnectRequest(w: Writer, rec: ConnectRequest): void {
  w.int(rec.protocolVersion).long(rec.lastZxidSeen).int(rec.timeOut).long(rec.sessionId);
  w.buffer(rec.passwd).bool(rec.readOnly);
}

export function readConnectRequest(r: Reader): ConnectRequest {
  return {
    protocolVersion: r.int(),
    lastZxidSeen: r.long(),
    timeOut: r.int(),
    sessionId: r.long(),
    passwd: r.buffer() ?? new Uint8Array(0),
    readOnly: r.remaining > 0 ? r.bool() : false,
  };
}

// class ConnectResponse { int protocolVersion; int timeOut; long sessionId; buffer passwd;
//   boolean readOnly; }
/** Servers answering a pre-3.4 style request omit readOnly (36-byte body): it reads as false. */
export interface ConnectResponse {
  protocolVersion: number;
  /** Negotiated session timeout in ms; <= 0 means the session is invalid (expired). */
  timeOut: number;
  sessionId: bigint;
  passwd: Uint8Array;
  readOnly: boolean;
}

export function writeConnectResponse(w: Writer, rec: ConnectResponse): void {
  w.int(rec.protocolVersion).int(rec.timeOut).long(rec.sessionId);
  w.buffer(rec.passwd).bool(rec.readOnly);
}

export function readConnectResponse(r: Reader): ConnectResponse {
  return {
    protocolVersion: r.int(),
    timeOut: r.int(),
    sessionId: r.long(),
    passwd: r.buffer() ?? new Uint8Array(0),
    readOnly: r.remaining > 0 ? r.bool() : false,
  };
}

// class MultiHeader { int type; boolean done; int err; }
export interface MultiHeader {
  type: number;
  done: boolean;
  err: number;
}

export function writeMultiHeader(w: Writer, rec: MultiHeader): void {
  w.int(rec.type).bool(rec.done).int(rec.err);
}

export function readMultiHeader(r: Reader): MultiHeader {
  return { type: r.int(), done: r.bool(), err: r.int() };
}

// class ErrorResponse { int err; }
export interface ErrorResponse {
  err: number;
}

export function writeErrorResponse(w: Writer, rec: ErrorResponse): void {
  w.int(rec.err);
}

export function readErrorResponse(r: Reader): ErrorResponse {
  return { err: r.int() };
}
