/**
 * Per-operation request and response records (zookeeper.jute, module
 * org.apache.zookeeper.proto). Each record is declared once, with its grammar
 * line(s) above it; jute classes that share a layout share one declaration and
 * keep their names as type aliases. Byte layouts: docs/protocol.md.
 */

import { bytes, type JuteValue, record, strings } from './jute.js';
import { ACLs, ClientInfos, Stat } from './records.js';

// class CreateRequest { ustring path; buffer data; vector<ACL> acl; int flags; }
/** create, create2 and createContainer. */
export const CreateRequest = record((f) => ({
  path: f.string(),
  data: f.buffer(),
  acl: f.of(ACLs),
  /** A CreateFlag value. */
  flags: f.int(),
}));
export type CreateRequest = JuteValue<typeof CreateRequest>;

// class CreateTTLRequest { ustring path; buffer data; vector<ACL> acl; int flags; long ttl; }
/** createTTL: CreateRequest's fields, then ttl. */
export const CreateTTLRequest = record((f) => ({
  path: f.string(),
  data: f.buffer(),
  acl: f.of(ACLs),
  flags: f.int(),
  /** Milliseconds, 1 .. 0xFFFFFFFFFF. */
  ttl: f.long(),
}));
export type CreateTTLRequest = JuteValue<typeof CreateTTLRequest>;

// class CreateResponse { ustring path; }
// class SyncResponse { ustring path; }
// class GetACLRequest { ustring path; }
// class SyncRequest { ustring path; }
// class GetAllChildrenNumberRequest { ustring path; }
/** Records holding just a path. */
export const PathRequest = record((f) => ({ path: f.string() }));
export type PathRequest = JuteValue<typeof PathRequest>;
/** The answer to create: the created path (with the sequence suffix, if any). */
export type CreateResponse = PathRequest;
export type GetACLRequest = PathRequest;
export type SyncRequest = PathRequest;
export type SyncResponse = PathRequest;
export type GetAllChildrenNumberRequest = PathRequest;

// class Create2Response { ustring path; Stat stat; }
/** The answer to create2, createContainer and createTTL. */
export const Create2Response = record((f) => ({ path: f.string(), stat: f.of(Stat) }));
export type Create2Response = JuteValue<typeof Create2Response>;

// class DeleteRequest { ustring path; int version; }
// class CheckVersionRequest { ustring path; int version; }
/** delete and check: a path and the expected version. */
export const PathVersionRequest = record((f) => ({
  path: f.string(),
  /** -1 matches any version. */
  version: f.int(),
}));
export type PathVersionRequest = JuteValue<typeof PathVersionRequest>;
export type DeleteRequest = PathVersionRequest;
export type CheckVersionRequest = PathVersionRequest;

// class ExistsRequest { ustring path; boolean watch; }
// class GetDataRequest { ustring path; boolean watch; }
// class GetChildrenRequest { ustring path; boolean watch; }
// class GetChildren2Request { ustring path; boolean watch; }
/** The four "path + watch flag" requests share one layout. */
export const PathWatchRequest = record((f) => ({ path: f.string(), watch: f.bool() }));
export type PathWatchRequest = JuteValue<typeof PathWatchRequest>;
export type ExistsRequest = PathWatchRequest;
export type GetDataRequest = PathWatchRequest;
export type GetChildrenRequest = PathWatchRequest;
export type GetChildren2Request = PathWatchRequest;

// class ExistsResponse { Stat stat; }
// class SetDataResponse { Stat stat; }
// class SetACLResponse { Stat stat; }
/** Replies carrying only the node's Stat. */
export const StatResponse = record((f) => ({ stat: f.of(Stat) }));
export type StatResponse = JuteValue<typeof StatResponse>;
export type ExistsResponse = StatResponse;
export type SetDataResponse = StatResponse;
export type SetACLResponse = StatResponse;

// class GetDataResponse { buffer data; Stat stat; }
/** getData's reply (and reconfig's: the new config as data). */
export const GetDataResponse = record((f) => ({ data: f.buffer(), stat: f.of(Stat) }));
export type GetDataResponse = JuteValue<typeof GetDataResponse>;

// class SetDataRequest { ustring path; buffer data; int version; }
/** setData: `version` -1 matches any. */
export const SetDataRequest = record((f) => ({
  path: f.string(),
  data: f.buffer(),
  version: f.int(),
}));
export type SetDataRequest = JuteValue<typeof SetDataRequest>;

// class GetACLResponse { vector<ACL> acl; Stat stat; }
/** getACL's reply. */
export const GetACLResponse = record((f) => ({ acl: f.of(ACLs), stat: f.of(Stat) }));
export type GetACLResponse = JuteValue<typeof GetACLResponse>;

// class SetACLRequest { ustring path; vector<ACL> acl; int version; }
/** setACL. */
export const SetACLRequest = record((f) => ({
  path: f.string(),
  acl: f.of(ACLs),
  /** Checked against the node's aversion; -1 matches any. */
  version: f.int(),
}));
export type SetACLRequest = JuteValue<typeof SetACLRequest>;

// class GetChildrenResponse { vector<ustring> children; }
/** getChildren's reply. */
export const GetChildrenResponse = record((f) => ({
  /** Relative names, unordered. A null vector reads as []. */
  children: f.of(strings),
}));
export type GetChildrenResponse = JuteValue<typeof GetChildrenResponse>;

// class GetChildren2Response { vector<ustring> children; Stat stat; }
/** getChildren2's reply. */
export const GetChildren2Response = record((f) => ({
  children: f.of(strings),
  /** The parent's stat. */
  stat: f.of(Stat),
}));
export type GetChildren2Response = JuteValue<typeof GetChildren2Response>;

// class ReconfigRequest { ustring joiningServers; ustring leavingServers; ustring newMembers;
//   long curConfigId; }
/** reconfig: incremental (joining/leaving) or bulk (newMembers); unused fields are null. */
export const ReconfigRequest = record((f) => ({
  joiningServers: f.ustring(),
  leavingServers: f.ustring(),
  newMembers: f.ustring(),
  /** -1 skips the config version check. */
  curConfigId: f.long(),
}));
export type ReconfigRequest = JuteValue<typeof ReconfigRequest>;

// class CheckWatchesRequest { ustring path; int type; }
// class RemoveWatchesRequest { ustring path; int type; }
/** checkWatches and removeWatches. */
export const WatchesRequest = record((f) => ({
  path: f.string(),
  /** A WatcherTypeCode value. */
  type: f.int(),
}));
export type WatchesRequest = JuteValue<typeof WatchesRequest>;
export type CheckWatchesRequest = WatchesRequest;
export type RemoveWatchesRequest = WatchesRequest;

// class GetEphemeralsRequest { ustring prefixPath; }
/** getEphemerals. */
export const GetEphemeralsRequest = record((f) => ({
  /** '' or '/' means all of this session's ephemerals. No chroot is applied. */
  prefixPath: f.string(),
}));
export type GetEphemeralsRequest = JuteValue<typeof GetEphemeralsRequest>;

// class GetEphemeralsResponse { vector<ustring> ephemerals; }
/** getEphemerals' reply. */
export const GetEphemeralsResponse = record((f) => ({ ephemerals: f.of(strings) }));
export type GetEphemeralsResponse = JuteValue<typeof GetEphemeralsResponse>;

// class GetAllChildrenNumberResponse { int totalNumber; }
/** getAllChildrenNumber's reply. */
export const GetAllChildrenNumberResponse = record((f) => ({ totalNumber: f.int() }));
export type GetAllChildrenNumberResponse = JuteValue<typeof GetAllChildrenNumberResponse>;

// class AddWatchRequest { ustring path; int mode; }
/** addWatch. */
export const AddWatchRequest = record((f) => ({
  path: f.string(),
  /** An AddWatchModeCode value. */
  mode: f.int(),
}));
export type AddWatchRequest = JuteValue<typeof AddWatchRequest>;

// class WhoAmIResponse { vector<ClientInfo> clientInfo; }
/** whoAmI's reply: every identity of the session. */
export const WhoAmIResponse = record((f) => ({ clientInfo: f.of(ClientInfos) }));
export type WhoAmIResponse = JuteValue<typeof WhoAmIResponse>;

// class SetWatches { long relativeZxid; vector<ustring> dataWatches;
//   vector<ustring> existWatches; vector<ustring> childWatches; }
/** Re-registers watches after a reconnect. Send empty lists, never null: the server iterates them. */
export const SetWatches = record((f) => ({
  relativeZxid: f.long(),
  dataWatches: f.of(strings),
  existWatches: f.of(strings),
  childWatches: f.of(strings),
}));
export type SetWatches = JuteValue<typeof SetWatches>;

// class SetWatches2 { long relativeZxid; vector<ustring> dataWatches;
//   vector<ustring> existWatches; vector<ustring> childWatches;
//   vector<ustring> persistentWatches; vector<ustring> persistentRecursiveWatches; }
/** SetWatches' fields, then the persistent watches (opcode 105, 3.6+ servers). */
export const SetWatches2 = record((f) => ({
  relativeZxid: f.long(),
  dataWatches: f.of(strings),
  existWatches: f.of(strings),
  childWatches: f.of(strings),
  persistentWatches: f.of(strings),
  persistentRecursiveWatches: f.of(strings),
}));
export type SetWatches2 = JuteValue<typeof SetWatches2>;

// class AuthPacket { int type; ustring scheme; buffer auth; }
/** addAuth (xid -4). */
export const AuthPacket = record((f) => ({
  /** Always 0 in practice. */
  type: f.int(),
  scheme: f.string(),
  auth: f.of(bytes),
}));
export type AuthPacket = JuteValue<typeof AuthPacket>;

// class GetSASLRequest { buffer token; }
/** One client SASL token (opcode 102). */
export const GetSASLRequest = record((f) => ({ token: f.of(bytes) }));
export type GetSASLRequest = JuteValue<typeof GetSASLRequest>;

// class SetSASLResponse { buffer token; }
/** The server's SASL challenge; null when it has nothing more to say. */
export const SetSASLResponse = record((f) => ({ token: f.buffer() }));
export type SetSASLResponse = JuteValue<typeof SetSASLResponse>;
