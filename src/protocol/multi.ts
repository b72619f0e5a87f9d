/**
 * multi (14) and multiRead (22): a MultiHeader before each op or result, then
 * the terminator MultiHeader{type: -1, done: true, err: -1}.
 */

import { ProtocolError } from './errors.js';
import { OpCode } from './ops.js';
import type { Reader } from './reader.js';
import { readErrorResponse, readMultiHeader, type Stat, writeMultiHeader } from './records.js';
import {
  type CheckVersionRequest,
  type CreateRequest,
  type CreateTTLRequest,
  type DeleteRequest,
  type GetChildrenRequest,
  type GetDataRequest,
  readCreate2Response,
  readCreateRequest,
  readCreateResponse,
  readCreateTTLRequest,
  readDeleteRequest,
  readGetChildrenResponse,
  readGetDataResponse,
  readPathWatchRequest,
  readSetDataRequest,
  readStatResponse,
  type SetDataRequest,
  writeCreate2Response,
  writeCreateRequest,
  writeCreateResponse,
  writeCreateTTLRequest,
  writeDeleteRequest,
  writeGetChildrenResponse,
  writeGetDataResponse,
  writePathWatchRequest,
  writeSetDataRequest,
  writeStatResponse,
} from './requests.js';
import type { Writer } from './writer.js';

/** A write op allowed inside multi (14). */
export type MultiOp =
  | { type: 'create' | 'create2' | 'createContainer'; request: CreateRequest }
  | { type: 'createTTL'; request: CreateTTLRequest }
  | { type: 'delete'; request: DeleteRequest }
  | { type: 'setData'; request: SetDataRequest }
  | { type: 'check'; request: CheckVersionRequest };

/** A read op allowed inside multiRead (22). The watch flag is ignored by the server. */
export type MultiReadOp =
  | { type: 'getChildren'; request: GetChildrenRequest }
  | { type: 'getData'; request: GetDataRequest };

/**
 * One result per op. create2, createContainer and createTTL ops all answer
 * 'create2'. In a failed write multi every result is 'error': 0 for the ops
 * before the failing one, its code for it, RUNTIMEINCONSISTENCY (-2) after it.
 */
export type MultiResult =
  | { type: 'create'; path: string }
  | { type: 'create2'; path: string; stat: Stat }
  | { type: 'delete' }
  | { type: 'setData'; stat: Stat }
  | { type: 'check' }
  | { type: 'getChildren'; children: string[] }
  | { type: 'getData'; data: Uint8Array | null; stat: Stat }
  | { type: 'error'; err: number };

export interface MultiRequest {
  ops: MultiOp[];
}

export interface MultiReadRequest {
  ops: MultiReadOp[];
}

const TERMINATOR = { type: -1, done: true, err: -1 } as const;

function writeOpHeader(w: Writer, type: number): void {
  writeMultiHeader(w, { type, done: false, err: -1 });
}

// MultiOperationRecord: (MultiHeader{op, false, -1} op-record)* MultiHeader{-1, true, -1}
export function writeMultiRequest(w: Writer, rec: MultiRequest): void {
  for (const op of rec.ops) {
    writeOpHeader(w, OpCode[op.type]);
    switch (op.type) {
      case 'create':
      case 'create2':
      case 'createContainer':
        writeCreateRequest(w, op.request);
        break;
      case 'createTTL':
        writeCreateTTLRequest(w, op.request);
        break;
      case 'delete':
      case 'check':
        writeDeleteRequest(w, op.request);
        break;
      case 'setData':
        writeSetDataRequest(w, op.request);
        break;
    }
  }
  writeMultiHeader(w, TERMINATOR);
}

export function writeMultiReadRequest(w: Writer, rec: MultiReadRequest): void {
  for (const op of rec.ops) {
    writeOpHeader(w, OpCode[op.type]);
    writePathWatchRequest(w, op.request);
  }
  writeMultiHeader(w, TERMINATOR);
}

/**
 * Reads MultiHeader-prefixed items until the `done` header. Every header is 9
 * bytes, so a malformed input runs out of bytes (ProtocolError) rather than looping.
 */
function readUntilDone<T>(r: Reader, readItem: (type: number, r: Reader) => T): T[] {
  const items: T[] = [];
  for (;;) {
    const h = readMultiHeader(r);
    if (h.done) return items;
    items.push(readItem(h.type, r));
  }
}

function unexpected(kind: string, type: number): never {
  throw new ProtocolError(`unexpected ${kind} type ${type} in multi`);
}

export function readMultiRequest(r: Reader): MultiRequest {
  return {
    ops: readUntilDone<MultiOp>(r, (type, ir) => {
      switch (type) {
        case OpCode.create:
          return { type: 'create', request: readCreateRequest(ir) };
        case OpCode.create2:
          return { type: 'create2', request: readCreateRequest(ir) };
        case OpCode.createContainer:
          return { type: 'createContainer', request: readCreateRequest(ir) };
        case OpCode.createTTL:
          return { type: 'createTTL', request: readCreateTTLRequest(ir) };
        case OpCode.delete:
          return { type: 'delete', request: readDeleteRequest(ir) };
        case OpCode.setData:
          return { type: 'setData', request: readSetDataRequest(ir) };
        case OpCode.check:
          return { type: 'check', request: readDeleteRequest(ir) };
        default:
          return unexpected('op', type);
      }
    }),
  };
}

export function readMultiReadRequest(r: Reader): MultiReadRequest {
  return {
    ops: readUntilDone<MultiReadOp>(r, (type, ir) => {
      switch (type) {
        case OpCode.getChildren:
          return { type: 'getChildren', request: readPathWatchRequest(ir) };
        case OpCode.getData:
          return { type: 'getData', request: readPathWatchRequest(ir) };
        default:
          return unexpected('read op', type);
      }
    }),
  };
}

// MultiResponse: (MultiHeader{type, false, err} result-record)* MultiHeader{-1, true, -1}
/** Decodes the results of either multi or multiRead (the layouts are shared). */
export function readMultiResponse(r: Reader): MultiResult[] {
  return readUntilDone<MultiResult>(r, (type, ir) => {
    switch (type) {
      case OpCode.create:
        return { type: 'create', path: readCreateResponse(ir).path };
      case OpCode.create2: {
        const { path, stat } = readCreate2Response(ir);
        return { type: 'create2', path, stat };
      }
      case OpCode.delete:
        return { type: 'delete' };
      case OpCode.setData:
        return { type: 'setData', stat: readStatResponse(ir).stat };
      case OpCode.check:
        return { type: 'check' };
      case OpCode.getChildren:
        return { type: 'getChildren', children: readGetChildrenResponse(ir).children };
      case OpCode.getData: {
        const { data, stat } = readGetDataResponse(ir);
        return { type: 'getData', data, stat };
      }
      case OpCode.error:
        return { type: 'error', err: readErrorResponse(ir).err };
      default:
        return unexpected('result', type);
    }
  });
}

export function writeMultiResponse(w: Writer, results: readonly MultiResult[]): void {
  for (const res of results) {
    switch (res.type) {
      case 'error':
        writeMultiHeader(w, { type: OpCode.error, done: false, err: res.err });
        w.int(res.err);
        continue;
      case 'create':
        writeMultiHeader(w, { type: OpCode.create, done: false, err: 0 });
        writeCreateResponse(w, res);
        continue;
      case 'create2':
        writeMultiHeader(w, { type: OpCode.create2, done: false, err: 0 });
        writeCreate2Response(w, res);
        continue;
      case 'delete':
      case 'check':
        writeMultiHeader(w, { type: OpCode[res.type], done: false, err: 0 });
        continue;
      case 'setData':
        writeMultiHeader(w, { type: OpCode.setData, done: false, err: 0 });
        writeStatResponse(w, res);
        continue;
      case 'getChildren':
        writeMultiHeader(w, { type: OpCode.getChildren, done: false, err: 0 });
        writeGetChildrenResponse(w, res);
        continue;
      case 'getData':
        writeMultiHeader(w, { type: OpCode.getData, done: false, err: 0 });
        writeGetDataResponse(w, res);
        continue;
    }
  }
  writeMultiHeader(w, TERMINATOR);
}
