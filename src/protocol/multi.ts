/**
 * multi (14) and multiRead (22): a MultiHeader{type, done: false, err} before
 * each op or result, then the terminator MultiHeader{type: -1, done: true, err: -1}.
 * Each op's body is the request (or response) record of that op's own codec, so
 * this file holds no per-op layout: it walks the headers and looks the codec up
 * by opcode in the table it is given (codecs.ts passes the codec table).
 * Byte layouts: docs/protocol.md.
 */

import type { ServerCodec } from './codecs.js';
import { ProtocolError } from './errors.js';
import type { JuteType } from './jute.js';
import { OpCode } from './ops.js';
import type { Reader } from './reader.js';
import { ErrorResponse, MultiHeader, type Stat } from './records.js';
import type {
  CreateRequest,
  CreateTTLRequest,
  GetChildrenRequest,
  GetDataRequest,
  PathVersionRequest,
  SetDataRequest,
} from './requests.js';
import type { Writer } from './writer.js';

/** The write ops allowed inside multi (14), by op name. */
export const MULTI_OPS = [
  'create',
  'create2',
  'createContainer',
  'createTTL',
  'delete',
  'setData',
  'check',
] as const;

/** The read ops allowed inside multiRead (22). */
export const MULTI_READ_OPS = ['getChildren', 'getData'] as const;

/**
 * The result types a multi reply may hold (besides 'error'): create2,
 * createContainer and createTTL ops all answer 'create2'.
 */
const RESULT_OPS = [
  'create',
  'create2',
  'delete',
  'setData',
  'check',
  'getChildren',
  'getData',
] as const;

/** A write op allowed inside multi (14). */
export type MultiOp =
  | { type: 'create' | 'create2' | 'createContainer'; request: CreateRequest }
  | { type: 'createTTL'; request: CreateTTLRequest }
  | { type: 'delete' | 'check'; request: PathVersionRequest }
  | { type: 'setData'; request: SetDataRequest };

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

/** The body of a multi request. */
export interface MultiRequest {
  ops: MultiOp[];
}

/** The body of a multiRead request. */
export interface MultiReadRequest {
  ops: MultiReadOp[];
}

/** The per-op codecs multi looks up by name; the codec table is one. */
export type OpCodecs = Record<string, ServerCodec<unknown, unknown>>;

const TERMINATOR: MultiHeader = { type: OpCode.error, done: true, err: -1 };

/** The op codecs of `names`, by opcode: what a header's `type` may name. */
function byCode(
  table: OpCodecs,
  names: readonly string[],
): Map<number, ServerCodec<unknown, unknown>> {
  return new Map(names.map((name) => [table[name]!.code, table[name]!]));
}

/**
 * Reads MultiHeader-prefixed items until the `done` header. Every header is 9
 * bytes, so a malformed input runs out of bytes (ProtocolError) rather than looping.
 */
function readUntilDone<T>(r: Reader, readItem: (h: MultiHeader, r: Reader) => T): T[] {
  const items: T[] = [];
  for (;;) {
    const h = MultiHeader.read(r);
    if (h.done) return items;
    items.push(readItem(h, r));
  }
}

function unexpected(kind: string, type: number): never {
  throw new ProtocolError(`unexpected ${kind} type ${type} in multi`);
}

/**
 * The request record of multi or multiRead: `ops` names the allowed ops, `kind`
 * words the error for a header naming another.
 */
export function multiRequest<Op extends { type: string; request: unknown }>(
  table: OpCodecs,
  ops: readonly Op['type'][],
  kind: string,
): JuteType<{ ops: Op[] }> {
  const allowed = byCode(table, ops);
  return {
    // MultiOperationRecord: (MultiHeader{op, false, -1} op-record)* MultiHeader{-1, true, -1}
    write(w: Writer, rec: { ops: Op[] }): void {
      for (const op of rec.ops) {
        const codec = table[op.type]!;
        // A request op's header has no error yet: err -1, as the Java client writes it.
        MultiHeader.write(w, { type: codec.code, done: false, err: -1 });
        codec.write(w, op.request);
      }
      MultiHeader.write(w, TERMINATOR);
    },
    read(r: Reader): { ops: Op[] } {
      const items = readUntilDone(r, (h, ir) => {
        const codec = allowed.get(h.type) ?? unexpected(kind, h.type);
        return { type: codec.name, request: codec.readRequest(ir) } as Op;
      });
      return { ops: items };
    },
  };
}

/** The reply record of multi and multiRead (one layout): a result per op, in op order. */
export function multiResponse(table: OpCodecs): JuteType<MultiResult[]> {
  const allowed = byCode(table, RESULT_OPS);
  return {
    // MultiResponse: (MultiHeader{type, false, err} result-record)* MultiHeader{-1, true, -1}
    write(w: Writer, results: MultiResult[]): void {
      for (const res of results) {
        if (res.type === 'error') {
          MultiHeader.write(w, { type: OpCode.error, done: false, err: res.err });
          ErrorResponse.write(w, res);
          continue;
        }
        const codec = table[res.type]!;
        MultiHeader.write(w, { type: codec.code, done: false, err: 0 });
        codec.writeResponse(w, res);
      }
      MultiHeader.write(w, TERMINATOR);
    },
    read(r: Reader): MultiResult[] {
      return readUntilDone(r, (h, ir): MultiResult => {
        if (h.type === OpCode.error) return { type: 'error', err: ErrorResponse.read(ir).err };
        const codec = allowed.get(h.type) ?? unexpected('result', h.type);
        // The op's response record, tagged with its type. The record is a fresh object:
        // adding the tag in place is cheaper than copying it (a spread doubled decode time).
        const body = codec.read(ir) as { type?: string } | undefined;
        if (body === undefined) return { type: codec.name } as MultiResult;
        body.type = codec.name;
        return body as MultiResult;
      });
    },
  };
}
