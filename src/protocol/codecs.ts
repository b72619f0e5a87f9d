/**
 * The one table of operation codecs, keyed by op name. Each entry pairs the
 * op's request record with its response record (declared once each in
 * requests.ts): the client writes requests and reads responses. The reverse
 * halves come from the same declarations (`request.read`, `response.write`);
 * the in-process server (zookeeper-ts/testing), the test fakes and the simulator
 * build their server side from them (src/testing/wire/server-codecs.ts). The session frames requests with
 * `encodeRequest` and decodes replies with `codec.read` when err == 0.
 */

import { empty, type JuteType } from './jute.js';
import {
  MULTI_OPS,
  MULTI_READ_OPS,
  type MultiOp,
  type MultiReadOp,
  type MultiResult,
  multiCodec,
} from './multi.js';
import { OpCode, type OpName } from './ops.js';
import { Reader } from './reader.js';
import {
  ConnectRequest,
  ConnectResponse,
  ErrorResponse,
  ReplyHeader,
  WatcherEvent,
} from './records.js';
import * as rec from './requests.js';
import { takeWritten, writeInSlab } from './slab.js';
import { frame, Writer } from './writer.js';

/** One operation's client side: its opcode, how its request is written and its reply read. */
export interface Codec<Req, Res> {
  readonly name: OpName;
  readonly code: number;
  /** Writes the request body (after the RequestHeader). */
  write(w: Writer, req: Req): void;
  /** Reads the response body (after the ReplyHeader); call only when err == 0. */
  read(r: Reader): Res;
}

/** A codec of one request record and one response record (every op but multi and multiRead). */
export interface RecordCodec<Req, Res> extends Codec<Req, Res> {
  /** The request record: `write` is its writer; its reader is a server's. */
  readonly request: JuteType<Req>;
  /** The response record: `read` is its reader; its writer is a server's. */
  readonly response: JuteType<Res>;
}

/**
 * addWatch answers with an ErrorResponse{int err} body (always 0). Consume it
 * when present; its absence is not an error either.
 */
const addWatchReply: JuteType<undefined> = {
  write: (w) => {
    ErrorResponse.write(w, { err: 0 });
  },
  read: (r) => {
    if (r.remaining >= 4) ErrorResponse.read(r);
    return undefined;
  },
};

function codec<Req, Res>(
  name: OpName,
  request: JuteType<Req>,
  response: JuteType<Res>,
): RecordCodec<Req, Res> {
  return { name, code: OpCode[name], write: request.write, read: response.read, request, response };
}

const single = {
  create: codec('create', rec.CreateRequest, rec.PathRequest),
  create2: codec('create2', rec.CreateRequest, rec.Create2Response),
  createContainer: codec('createContainer', rec.CreateRequest, rec.Create2Response),
  createTTL: codec('createTTL', rec.CreateTTLRequest, rec.Create2Response),
  delete: codec('delete', rec.PathVersionRequest, empty),
  exists: codec('exists', rec.PathWatchRequest, rec.StatResponse),
  getData: codec('getData', rec.PathWatchRequest, rec.GetDataResponse),
  setData: codec('setData', rec.SetDataRequest, rec.StatResponse),
  getACL: codec('getACL', rec.PathRequest, rec.GetACLResponse),
  setACL: codec('setACL', rec.SetACLRequest, rec.StatResponse),
  getChildren: codec('getChildren', rec.PathWatchRequest, rec.GetChildrenResponse),
  getChildren2: codec('getChildren2', rec.PathWatchRequest, rec.GetChildren2Response),
  sync: codec('sync', rec.PathRequest, rec.PathRequest),
  /** Answers the new configuration as GetDataResponse{data, stat}. */
  reconfig: codec('reconfig', rec.ReconfigRequest, rec.GetDataResponse),
  checkWatches: codec('checkWatches', rec.WatchesRequest, empty),
  removeWatches: codec('removeWatches', rec.WatchesRequest, empty),
  getEphemerals: codec('getEphemerals', rec.GetEphemeralsRequest, rec.GetEphemeralsResponse),
  getAllChildrenNumber: codec(
    'getAllChildrenNumber',
    rec.PathRequest,
    rec.GetAllChildrenNumberResponse,
  ),
  addWatch: codec('addWatch', rec.AddWatchRequest, addWatchReply),
  whoAmI: codec('whoAmI', empty, rec.WhoAmIResponse),
  setWatches: codec('setWatches', rec.SetWatches, empty),
  setWatches2: codec('setWatches2', rec.SetWatches2, empty),
  auth: codec('auth', rec.AuthPacket, empty),
  sasl: codec('sasl', rec.GetSASLRequest, rec.SetSASLResponse),
  ping: codec('ping', empty, empty),
  closeSession: codec('closeSession', empty, empty),
  /** Only valid inside a multi: sent alone, the server answers UNIMPLEMENTED and closes. */
  check: codec('check', rec.PathVersionRequest, empty),
} as const;

function multi<Op extends { type: string; request: unknown }>(
  name: 'multi' | 'multiRead',
  ops: readonly Op['type'][],
  kind: string,
): Codec<{ ops: Op[] }, MultiResult[]> {
  const { write, read } = multiCodec<Op>(single, ops, kind);
  return { name, code: OpCode[name], write, read };
}

/** Every operation's codec, by op name. */
export const codecs = {
  ...single,
  multi: multi<MultiOp>('multi', MULTI_OPS, 'op'),
  multiRead: multi<MultiReadOp>('multiRead', MULTI_READ_OPS, 'read op'),
} as const;

/** The ops whose request and response are each one record, by op name. */
export const recordCodecs = single;

export type CodecName = keyof typeof codecs;
/** The request type of a codec in the table, e.g. `RequestOf<'getData'>`. */
export type RequestOf<N extends CodecName> = Parameters<(typeof codecs)[N]['write']>[1];
/** The response type of a codec in the table, e.g. `ResponseOf<'getData'>`. */
export type ResponseOf<N extends CodecName> = ReturnType<(typeof codecs)[N]['read']>;

/**
 * A whole request frame: length + RequestHeader{xid, codec.code} + body, written in place into
 * the shared slab (slab.ts) by one reused writer: a request costs no buffer and no copy of its
 * own (a large one, over the pooled size, is copied out of the writer's buffer into its own).
 */
const requestWriter = new Writer(16);

export function encodeRequest<Req>(xid: number, codec: Codec<Req, unknown>, req: Req): Uint8Array {
  const w = requestWriter;
  writeInSlab(w);
  w.int(0).int(xid).int(codec.code);
  codec.write(w, req);
  w.patchInt(0, w.length - 4);
  return takeWritten(w);
}

/** The first client frame (no RequestHeader): 45-byte body, 49 bytes in all. */
export function encodeConnectRequest(req: ConnectRequest): Uint8Array {
  return frame((w) => ConnectRequest.write(w, req), 64);
}

/** The first server frame body (length prefix removed). Accepts the 36-byte form without readOnly. */
export function decodeConnectResponse(body: Uint8Array): ConnectResponse {
  return ConnectResponse.read(new Reader(body));
}

export function decodeReplyHeader(r: Reader): ReplyHeader {
  return ReplyHeader.read(r);
}

/** The body of a notification (after its ReplyHeader with xid -1). */
export function decodeWatcherEvent(r: Reader): WatcherEvent {
  return WatcherEvent.read(r);
}
