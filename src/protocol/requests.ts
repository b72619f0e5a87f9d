/**
 * Per-operation request and response records (zookeeper.jute, module
 * org.apache.zookeeper.proto). Each pair has its jute grammar line above it.
 * Readers of requests and writers of responses exist too: fake servers and
 * golden-byte tests use them.
 */

import type { Reader } from './reader.js';
import {
  type ACL,
  type ClientInfo,
  readACLList,
  readClientInfo,
  readStat,
  readString,
  readStringList,
  type Stat,
  writeACLList,
  writeClientInfo,
  writeStat,
  writeStringList,
} from './records.js';
import type { Writer } from './writer.js';

// class CreateRequest { ustring path; buffer data; vector<ACL> acl; int flags; }
export interface CreateRequest {
  path: string;
  data: Uint8Array | null;
  acl: ACL[];
  /** A CreateFlag value. */
  flags: number;
}

export function writeCreateRequest(w: Writer, rec: CreateRequest): void {
  w.ustring(rec.path).buffer(rec.data);
  writeACLList(w, rec.acl);
  w.int(rec.flags);
}

export function readCreateRequest(r: Reader): CreateRequest {
  return { path: readString(r), data: r.buffer(), acl: readACLList(r), flags: r.int() };
}

// class CreateTTLRequest { ustring path; buffer data; vector<ACL> acl; int flags; long ttl; }
export interface CreateTTLRequest extends CreateRequest {
  /** Milliseconds, 1 .. 0xFFFFFFFFFF. */
  ttl: bigint;
}

export function writeCreateTTLRequest(w: Writer, rec: CreateTTLRequest): void {
  writeCreateRequest(w, rec);
  w.long(rec.ttl);
}

export function readCreateTTLRequest(r: Reader): CreateTTLRequest {
  const base = readCreateRequest(r);
  return { ...base, ttl: r.long() };
}

// class CreateResponse { ustring path; }
export interface CreateResponse {
  path: string;
}

export function writeCreateResponse(w: Writer, rec: CreateResponse): void {
  w.ustring(rec.path);
}

export function readCreateResponse(r: Reader): CreateResponse {
  return { path: readString(r) };
}

// class Create2Response { ustring path; Stat stat; }
export interface Create2Response {
  path: string;
  stat: Stat;
}

export function writeCreate2Response(w: Writer, rec: Create2Response): void {
  w.ustring(rec.path);
  writeStat(w, rec.stat);
}

export function readCreate2Response(r: Reader): Create2Response {
  const path = readString(r);
  return { path, stat: readStat(r) };
}

// class DeleteRequest { ustring path; int version; }
export interface DeleteRequest {
  path: string;
  /** -1 matches any version. */
  version: number;
}

export function writeDeleteRequest(w: Writer, rec: DeleteRequest): void {
  w.ustring(rec.path).int(rec.version);
}

export function readDeleteRequest(r: Reader): DeleteRequest {
  return { path: readString(r), version: r.int() };
}

// class CheckVersionRequest { ustring path; int version; }
export interface CheckVersionRequest {
  path: string;
  version: number;
}

export const writeCheckVersionRequest: (w: Writer, rec: CheckVersionRequest) => void =
  writeDeleteRequest;
export const readCheckVersionRequest: (r: Reader) => CheckVersionRequest = readDeleteRequest;

// class ExistsRequest { ustring path; boolean watch; }
// class GetDataRequest { ustring path; boolean watch; }
// class GetChildrenRequest { ustring path; boolean watch; }
// class GetChildren2Request { ustring path; boolean watch; }
/** The four "path + watch flag" requests share one layout. */
export interface PathWatchRequest {
  path: string;
  watch: boolean;
}
export type ExistsRequest = PathWatchRequest;
export type GetDataRequest = PathWatchRequest;
export type GetChildrenRequest = PathWatchRequest;
export type GetChildren2Request = PathWatchRequest;

export function writePathWatchRequest(w: Writer, rec: PathWatchRequest): void {
  w.ustring(rec.path).bool(rec.watch);
}

export function readPathWatchRequest(r: Reader): PathWatchRequest {
  return { path: readString(r), watch: r.bool() };
}

// class ExistsResponse { Stat stat; }
// class SetDataResponse { Stat stat; }
// class SetACLResponse { Stat stat; }
export interface StatResponse {
  stat: Stat;
}
export type ExistsResponse = StatResponse;
export type SetDataResponse = StatResponse;
export type SetACLResponse = StatResponse;

export function writeStatResponse(w: Writer, rec: StatResponse): void {
  writeStat(w, rec.stat);
}

export function readStatResponse(r: Reader): StatResponse {
  return { stat: readStat(r) };
}

// class GetDataResponse { buffer data; Stat stat; }
export interface GetDataResponse {
  data: Uint8Array | null;
  stat: Stat;
}

export function writeGetDataResponse(w: Writer, rec: GetDataResponse): void {
  w.buffer(rec.data);
  writeStat(w, rec.stat);
}

export function readGetDataResponse(r: Reader): GetDataResponse {
  const data = r.buffer();
  return { data, stat: readStat(r) };
}

// class SetDataRequest { ustring path; buffer data; int version; }
export interface SetDataRequest {
  path: string;
  data: Uint8Array | null;
  version: number;
}

export function writeSetDataRequest(w: Writer, rec: SetDataRequest): void {
  w.ustring(rec.path).buffer(rec.data).int(rec.version);
}

export function readSetDataRequest(r: Reader): SetDataRequest {
  return { path: readString(r), data: r.buffer(), version: r.int() };
}

// class GetACLRequest { ustring path; }
// class SyncRequest { ustring path; }
// class SyncResponse { ustring path; }
// class GetAllChildrenNumberRequest { ustring path; }
/** Records holding just a path. */
export interface PathRequest {
  path: string;
}
export type GetACLRequest = PathRequest;
export type SyncRequest = PathRequest;
export type SyncResponse = PathRequest;
export type GetAllChildrenNumberRequest = PathRequest;

export function writePathRequest(w: Writer, rec: PathRequest): void {
  w.ustring(rec.path);
}

export function readPathRequest(r: Reader): PathRequest {
  return { path: readString(r) };
}

// class GetACLResponse { vector<ACL> acl; Stat stat; }
export interface GetACLResponse {
  acl: ACL[];
  stat: Stat;
}

export function writeGetACLResponse(w: Writer, rec: GetACLResponse): void {
  writeACLList(w, rec.acl);
  writeStat(w, rec.stat);
}

export function readGetACLResponse(r: Reader): GetACLResponse {
  const acl = readACLList(r);
  return { acl, stat: readStat(r) };
}

// class SetACLRequest { ustring path; vector<ACL> acl; int version; }
export interface SetACLRequest {
  path: string;
  acl: ACL[];
  /** Checked against the node's aversion; -1 matches any. */
  version: number;
}

export function writeSetACLRequest(w: Writer, rec: SetACLRequest): void {
  w.ustring(rec.path);
  writeACLList(w, rec.acl);
  w.int(rec.version);
}

export function readSetACLRequest(r: Reader): SetACLRequest {
  return { path: readString(r), acl: readACLList(r), version: r.int() };
}

// class GetChildrenResponse { vector<ustring> children; }
export interface GetChildrenResponse {
  /** Relative names, unordered. A null vector reads as []. */
  children: string[];
}

export function writeGetChildrenResponse(w: Writer, rec: GetChildrenResponse): void {
  writeStringList(w, rec.children);
}

export function readGetChildrenResponse(r: Reader): GetChildrenResponse {
  return { children: readStringList(r) };
}

// class GetChildren2Response { vector<ustring> children; Stat stat; }
export interface GetChildren2Response {
  children: string[];
  /** The parent's stat. */
  stat: Stat;
}

export function writeGetChildren2Response(w: Writer, rec: GetChildren2Response): void {
  writeStringList(w, rec.children);
  writeStat(w, rec.stat);
}

export function readGetChildren2Response(r: Reader): GetChildren2Response {
  const children = readStringList(r);
  return { children, stat: readStat(r) };
}

// class ReconfigRequest { ustring joiningServers; ustring leavingServers; ustring newMembers;
//   long curConfigId; }
export interface ReconfigRequest {
  joiningServers: string | null;
  leavingServers: string | null;
  newMembers: string | null;
  /** -1 skips the config version check. */
  curConfigId: bigint;
}

export function writeReconfigRequest(w: Writer, rec: ReconfigRequest): void {
  w.ustring(rec.joiningServers).ustring(rec.leavingServers).ustring(rec.newMembers);
  w.long(rec.curConfigId);
}

export function readReconfigRequest(r: Reader): ReconfigRequest {
  return {
    joiningServers: r.ustring(),
    leavingServers: r.ustring(),
    newMembers: r.ustring(),
    curConfigId: r.long(),
  };
}

// class CheckWatchesRequest { ustring path; int type; }
// class RemoveWatchesRequest { ustring path; int type; }
export interface WatchesRequest {
  path: string;
  /** A WatcherTypeCode value. */
  type: number;
}
export type CheckWatchesRequest = WatchesRequest;
export type RemoveWatchesRequest = WatchesRequest;

export function writeWatchesRequest(w: Writer, rec: WatchesRequest): void {
  w.ustring(rec.path).int(rec.type);
}

export function readWatchesRequest(r: Reader): WatchesRequest {
  return { path: readString(r), type: r.int() };
}

// class GetEphemeralsRequest { ustring prefixPath; }
export interface GetEphemeralsRequest {
  /** '' or '/' means all of this session's ephemerals. No chroot is applied. */
  prefixPath: string;
}

export function writeGetEphemeralsRequest(w: Writer, rec: GetEphemeralsRequest): void {
  w.ustring(rec.prefixPath);
}

export function readGetEphemeralsRequest(r: Reader): GetEphemeralsRequest {
  return { prefixPath: readString(r) };
}

// class GetEphemeralsResponse { vector<ustring> ephemerals; }
export interface GetEphemeralsResponse {
  ephemerals: string[];
}

export function writeGetEphemeralsResponse(w: Writer, rec: GetEphemeralsResponse): void {
  writeStringList(w, rec.ephemerals);
}

export function readGetEphemeralsResponse(r: Reader): GetEphemeralsResponse {
  return { ephemerals: readStringList(r) };
}

// class GetAllChildrenNumberResponse { int totalNumber; }
export interface GetAllChildrenNumberResponse {
  totalNumber: number;
}

export function writeGetAllChildrenNumberResponse(
  w: Writer,
  rec: GetAllChildrenNumberResponse,
): void {
  w.int(rec.totalNumber);
}

export function readGetAllChildrenNumberResponse(r: Reader): GetAllChildrenNumberResponse {
  return { totalNumber: r.int() };
}

// class AddWatchRequest { ustring path; int mode; }
export interface AddWatchRequest {
  path: string;
  /** An AddWatchModeCode value. */
  mode: number;
}

export function writeAddWatchRequest(w: Writer, rec: AddWatchRequest): void {
  w.ustring(rec.path).int(rec.mode);
}

export function readAddWatchRequest(r: Reader): AddWatchRequest {
  return { path: readString(r), mode: r.int() };
}

// class WhoAmIResponse { vector<ClientInfo> clientInfo; }
export interface WhoAmIResponse {
  clientInfo: ClientInfo[];
}

export function writeWhoAmIResponse(w: Writer, rec: WhoAmIResponse): void {
  w.vector(rec.clientInfo, writeClientInfo);
}

export function readWhoAmIResponse(r: Reader): WhoAmIResponse {
  return { clientInfo: r.vector(readClientInfo) ?? [] };
}

// class SetWatches { long relativeZxid; vector<ustring> dataWatches;
//   vector<ustring> existWatches; vector<ustring> childWatches; }
/** Send empty lists, never null: the server iterates them without a null check. */
export interface SetWatches {
  relativeZxid: bigint;
  dataWatches: string[];
  existWatches: string[];
  childWatches: string[];
}

export function writeSetWatches(w: Writer, rec: SetWatches): void {
  w.long(rec.relativeZxid);
  writeStringList(w, rec.dataWatches);
  writeStringList(w, rec.existWatches);
  writeStringList(w, rec.childWatches);
}

export function readSetWatches(r: Reader): SetWatches {
  return {
    relativeZxid: r.long(),
    dataWatches: readStringList(r),
    existWatches: readStringList(r),
    childWatches: readStringList(r),
  };
}

// class SetWatches2 { long relativeZxid; vector<ustring> dataWatches;
//   vector<ustring> existWatches; vector<ustring> childWatches;
//   vector<ustring> persistentWatches; vector<ustring> persistentRecursiveWatches; }
export interface SetWatches2 extends SetWatches {
  persistentWatches: string[];
  persistentRecursiveWatches: string[];
}

export function writeSetWatches2(w: Writer, rec: SetWatches2): void {
  writeSetWatches(w, rec);
  writeStringList(w, rec.persistentWatches);
  writeStringList(w, rec.persistentRecursiveWatches);
}

export function readSetWatches2(r: Reader): SetWatches2 {
  const base = readSetWatches(r);
  return {
    ...base,
    persistentWatches: readStringList(r),
    persistentRecursiveWatches: readStringList(r),
  };
}

// class AuthPacket { int type; ustring scheme; buffer auth; }
export interface AuthPacket {
  /** Always 0 in practice. */
  type: number;
  scheme: string;
  auth: Uint8Array;
}

export function writeAuthPacket(w: Writer, rec: AuthPacket): void {
  w.int(rec.type).ustring(rec.scheme).buffer(rec.auth);
}

export function readAuthPacket(r: Reader): AuthPacket {
  return { type: r.int(), scheme: readString(r), auth: r.buffer() ?? new Uint8Array(0) };
}

// class GetSASLRequest { buffer token; }
export interface GetSASLRequest {
  token: Uint8Array;
}

export function writeGetSASLRequest(w: Writer, rec: GetSASLRequest): void {
  w.buffer(rec.token);
}

export function readGetSASLRequest(r: Reader): GetSASLRequest {
  return { token: r.buffer() ?? new Uint8Array(0) };
}

// class SetSASLResponse { buffer token; }
export interface SetSASLResponse {
  token: Uint8Array | null;
}

export function writeSetSASLResponse(w: Writer, rec: SetSASLResponse): void {
  w.buffer(rec.token);
}

export function readSetSASLResponse(r: Reader): SetSASLResponse {
  return { token: r.buffer() };
}
