/**
 * The one table of operation codecs, keyed by op name. Each entry knows its
 * opcode, how to write its request and read its response (client side), and
 * the reverse (fake servers, golden tests). The session layer frames requests
 * with `encodeRequest` and decodes replies with `codec.read` when err == 0.
 */

import {
  readMultiReadRequest,
  readMultiRequest,
  readMultiResponse,
  writeMultiReadRequest,
  writeMultiRequest,
  writeMultiResponse,
} from './multi.js';
import { OpCode, type OpName } from './ops.js';
import { Reader } from './reader.js';
import {
  type ConnectRequest,
  type ConnectResponse,
  type ReplyHeader,
  readConnectResponse,
  readReplyHeader,
  readWatcherEvent,
  type WatcherEvent,
  writeConnectRequest,
} from './records.js';
import * as rec from './requests.js';
import { frame, Writer } from './writer.js';

export interface Codec<Req, Res> {
  readonly name: string;
  readonly code: number;
  /** Writes the request body (after the RequestHeader). */
  write(w: Writer, req: Req): void;
  /** Reads the response body (after the ReplyHeader); call only when err == 0. */
  read(r: Reader): Res;
}

/** A codec that can also play the server's side. */
export interface ServerCodec<Req, Res> extends Codec<Req, Res> {
  readRequest(r: Reader): Req;
  writeResponse(w: Writer, res: Res): void;
}

/** How one record is written and read. Codecs pair a request record with a response record. */
interface RecordIO<T> {
  write(w: Writer, value: T): void;
  read(r: Reader): T;
}

const io = <T>(write: (w: Writer, v: T) => void, read: (r: Reader) => T): RecordIO<T> => ({
  write,
  read,
});

/** No body at all (header-only requests, replies without a record). */
const none: RecordIO<undefined> = io(
  () => {},
  () => undefined,
);

/**
 * addWatch answers with an ErrorResponse{int err} body (always 0). Consume it
 * when present; its absence is not an error either.
 */
const addWatchReply: RecordIO<undefined> = io(
  (w) => {
    w.int(0);
  },
  (r) => {
    if (r.remaining >= 4) r.int();
    return undefined;
  },
);

const createRequest = io(rec.writeCreateRequest, rec.readCreateRequest);
const createTTLRequest = io(rec.writeCreateTTLRequest, rec.readCreateTTLRequest);
const createResponse = io(rec.writeCreateResponse, rec.readCreateResponse);
const create2Response = io(rec.writeCreate2Response, rec.readCreate2Response);
const pathWatch = io(rec.writePathWatchRequest, rec.readPathWatchRequest);
const pathOnly = io(rec.writePathRequest, rec.readPathRequest);
const statResponse = io(rec.writeStatResponse, rec.readStatResponse);
const getDataResponse = io(rec.writeGetDataResponse, rec.readGetDataResponse);
const watchesRequest = io(rec.writeWatchesRequest, rec.readWatchesRequest);
const multiResponse = io(writeMultiResponse, readMultiResponse);

function codec<Req, Res>(
  name: OpName,
  request: RecordIO<Req>,
  response: RecordIO<Res>,
): ServerCodec<Req, Res> {
  return {
    name,
    code: OpCode[name],
    write: request.write,
    read: response.read,
    readRequest: request.read,
    writeResponse: response.write,
  };
}

export const codecs = {
  create: codec('create', createRequest, createResponse),
  create2: codec('create2', createRequest, create2Response),
  createContainer: codec('createContainer', createRequest, create2Response),
  createTTL: codec('createTTL', createTTLRequest, create2Response),
  delete: codec('delete', io(rec.writeDeleteRequest, rec.readDeleteRequest), none),
  exists: codec('exists', pathWatch, statResponse),
  getData: codec('getData', pathWatch, getDataResponse),
  setData: codec('setData', io(rec.writeSetDataRequest, rec.readSetDataRequest), statResponse),
  getACL: codec('getACL', pathOnly, io(rec.writeGetACLResponse, rec.readGetACLResponse)),
  setACL: codec('setACL', io(rec.writeSetACLRequest, rec.readSetACLRequest), statResponse),
  getChildren: codec(
    'getChildren',
    pathWatch,
    io(rec.writeGetChildrenResponse, rec.readGetChildrenResponse),
  ),
  getChildren2: codec(
    'getChildren2',
    pathWatch,
    io(rec.writeGetChildren2Response, rec.readGetChildren2Response),
  ),
  sync: codec('sync', pathOnly, pathOnly),
  reconfig: codec(
    'reconfig',
    io(rec.writeReconfigRequest, rec.readReconfigRequest),
    getDataResponse,
  ),
  checkWatches: codec('checkWatches', watchesRequest, none),
  removeWatches: codec('removeWatches', watchesRequest, none),
  getEphemerals: codec(
    'getEphemerals',
    io(rec.writeGetEphemeralsRequest, rec.readGetEphemeralsRequest),
    io(rec.writeGetEphemeralsResponse, rec.readGetEphemeralsResponse),
  ),
  getAllChildrenNumber: codec(
    'getAllChildrenNumber',
    pathOnly,
    io(rec.writeGetAllChildrenNumberResponse, rec.readGetAllChildrenNumberResponse),
  ),
  addWatch: codec('addWatch', io(rec.writeAddWatchRequest, rec.readAddWatchRequest), addWatchReply),
  whoAmI: codec('whoAmI', none, io(rec.writeWhoAmIResponse, rec.readWhoAmIResponse)),
  setWatches: codec('setWatches', io(rec.writeSetWatches, rec.readSetWatches), none),
  setWatches2: codec('setWatches2', io(rec.writeSetWatches2, rec.readSetWatches2), none),
  auth: codec('auth', io(rec.writeAuthPacket, rec.readAuthPacket), none),
  sasl: codec(
    'sasl',
    io(rec.writeGetSASLRequest, rec.readGetSASLRequest),
    io(rec.writeSetSASLResponse, rec.readSetSASLResponse),
  ),
  ping: codec('ping', none, none),
  closeSession: codec('closeSession', none, none),
  multi: codec('multi', io(writeMultiRequest, readMultiRequest), multiResponse),
  multiRead: codec('multiRead', io(writeMultiReadRequest, readMultiReadRequest), multiResponse),
  /** Only valid inside a multi: sent alone, the server answers UNIMPLEMENTED and closes. */
  check: codec('check', io(rec.writeCheckVersionRequest, rec.readCheckVersionRequest), none),
} as const;

export type CodecName = keyof typeof codecs;
/** The request type of a codec in the table, e.g. `RequestOf<'getData'>`. */
export type RequestOf<N extends CodecName> = Parameters<(typeof codecs)[N]['write']>[1];
/** The response type of a codec in the table, e.g. `ResponseOf<'getData'>`. */
export type ResponseOf<N extends CodecName> = ReturnType<(typeof codecs)[N]['read']>;

/** A whole request frame: length + RequestHeader{xid, codec.code} + body. */
// One scratch writer for every request: a request costs one exactly-sized copy, not a fresh
// growable buffer and DataView (the hot path of pipelined requests).
const scratch = new Writer(4096);
const SCRATCH_KEEP = 64 * 1024;

export function encodeRequest<Req>(xid: number, codec: Codec<Req, unknown>, req: Req): Uint8Array {
  scratch.reset();
  scratch.int(0).int(xid).int(codec.code);
  codec.write(scratch, req);
  scratch.patchInt(0, scratch.length - 4);
  const bytes = scratch.copy();
  // A huge request (1 MB of data) must not pin that much memory for the process's life.
  if (scratch.capacity > SCRATCH_KEEP) scratch.shrink(4096);
  return bytes;
}

/** The first client frame (no RequestHeader): 45-byte body, 49 bytes in all. */
export function encodeConnectRequest(req: ConnectRequest): Uint8Array {
  return frame((w) => writeConnectRequest(w, req), 64);
}

/** The first server frame body (length prefix removed). Accepts the 36-byte form without readOnly. */
export function decodeConnectResponse(body: Uint8Array): ConnectResponse {
  return readConnectResponse(new Reader(body));
}

export function decodeReplyHeader(r: Reader): ReplyHeader {
  return readReplyHeader(r);
}

/** The body of a notification (after its ReplyHeader with xid -1). */
export function decodeWatcherEvent(r: Reader): WatcherEvent {
  return readWatcherEvent(r);
}
