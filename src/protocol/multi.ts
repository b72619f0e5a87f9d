/**
 * multi (14) and multiRead (22), the client's halves: a MultiHeader{type, done: false, err}
 * before each op or result, then the terminator MultiHeader{type: -1, done: true, err: -1}.
 * Each op's body is the request (or response) record of that op's own codec, so this file
 * holds no per-op layout: it walks the headers and looks each op's codec up in the table it
 * is given (codecs.ts passes the codec table), once per op name or opcode when the table is
 * built, not per call. The server's halves (reading ops, writing results) are only used by
 * the servers of `zookeeper-ts/testing` and the test fakes (src/testing/wire/server-codecs.ts).
 * Byte layouts: docs/protocol.md.
 */

import { makeError, ProtocolError } from './errors.js';
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

/** An op codec as multi needs it: the codec table's entries are these. */
export interface OpCodec {
  readonly name: string;
  readonly code: number;
  /** The op's request record, written after its MultiHeader. */
  readonly request: JuteType<unknown>;
  /** The op's response record, read after its result's MultiHeader. */
  readonly response: JuteType<unknown>;
}

/** The per-op codecs multi looks up; the codec table is one. */
export type OpCodecs = Readonly<Record<string, OpCodec>>;

/** The client's half of multi and multiRead: the request is written, the reply read. */
export interface MultiCodec<Req> {
  write(w: Writer, req: Req): void;
  read(r: Reader): MultiResult[];
}

/** The MultiHeader that ends a multi request and a multi reply. */
export const MULTI_DONE: MultiHeader = { type: OpCode.error, done: true, err: -1 };

/** The op's header and request writer, fetched from the table once. */
interface OpWriter {
  readonly header: MultiHeader;
  readonly write: (w: Writer, request: unknown) => void;
}

/** The result's tag and response reader, fetched from the table once. */
interface ResultReader {
  readonly type: string;
  readonly read: (r: Reader) => unknown;
}

/**
 * The client's half of multi or multiRead: `ops` names the ops the request may hold, `kind`
 * words the error for another; the reply reads any result type (one layout for both).
 */
export function multiCodec<Op extends { type: string; request: unknown }>(
  table: OpCodecs,
  ops: readonly Op['type'][],
  kind: string,
): MultiCodec<{ ops: Op[] }> {
  const writers = new Map<string, OpWriter>();
  for (const name of ops) {
    const codec = table[name]!;
    // A request op's header has no error yet: err -1, as the Java client writes it.
    writers.set(name, {
      header: { type: codec.code, done: false, err: -1 },
      write: codec.request.write,
    });
  }
  // Indexed by opcode (all small and positive; 'error' (-1) is read apart).
  const readers: (ResultReader | undefined)[] = [];
  for (const name of RESULT_OPS) {
    const codec = table[name]!;
    readers[codec.code] = { type: codec.name, read: codec.response.read };
  }
  return {
    // MultiOperationRecord: (MultiHeader{op, false, -1} op-record)* MultiHeader{-1, true, -1}
    write(w: Writer, req: { ops: Op[] }): void {
      for (const op of req.ops) {
        const opWriter = writers.get(op.type);
        if (opWriter === undefined) {
          throw makeError('BADARGUMENTS', `${String(op.type)} is not a ${kind} of this multi`);
        }
        MultiHeader.write(w, opWriter.header);
        opWriter.write(w, op.request);
      }
      MultiHeader.write(w, MULTI_DONE);
    },
    // MultiResponse: (MultiHeader{type, false, err} result-record)* MultiHeader{-1, true, -1}
    read(r: Reader): MultiResult[] {
      const results: MultiResult[] = [];
      // The MultiHeader's fields, read in place: no header object per result. Every header is
      // 9 bytes, so a malformed input runs out of bytes (ProtocolError) rather than looping.
      for (;;) {
        const type = r.int();
        const done = r.bool();
        r.int(); // err: the result body says it again (ErrorResponse) or it is 0
        if (done) return results;
        if (type === OpCode.error) {
          results.push({ type: 'error', err: ErrorResponse.read(r).err });
          continue;
        }
        const reader = type >= 0 ? readers[type] : undefined;
        if (reader === undefined)
          throw new ProtocolError(`unexpected result type ${type} in multi`);
        results.push(tag(reader.type, reader.read(r)));
      }
    },
  };
}

/**
 * The op's response record, tagged with its type. The record is a fresh object: adding the tag
 * in place is cheaper than copying it (a spread doubled decode time).
 */
function tag(type: string, body: unknown): MultiResult {
  if (body === undefined) return { type } as MultiResult;
  (body as { type: string }).type = type;
  return body as MultiResult;
}
