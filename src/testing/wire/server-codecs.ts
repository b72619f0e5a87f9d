/**
 * The server's side of the wire protocol, for the test servers (test/unit/session/fake-server.ts,
 * test/chaos, the simulator in test/sim) and the golden-frame tests: reading requests and
 * writing replies. The library only ever writes requests and reads replies, so none of this
 * ships in src/. Every single-record op needs nothing new: its request and response records
 * (src/protocol/requests.ts) are declared once and read and write both ways; only multi's
 * framing of ops and results is written here, driven by the same codec table.
 */

import {
  type Codec,
  type CodecName,
  codecs,
  type RecordCodec,
  recordCodecs,
} from '../../protocol/codecs.js';
import { ProtocolError } from '../../protocol/errors.js';
import {
  MULTI_DONE,
  MULTI_OPS,
  MULTI_READ_OPS,
  type MultiOp,
  type MultiReadOp,
  type MultiResult,
} from '../../protocol/multi.js';
import { OpCode } from '../../protocol/ops.js';
import type { Reader } from '../../protocol/reader.js';
import {
  ConnectRequest,
  ConnectResponse,
  ErrorResponse,
  MultiHeader,
  ReplyHeader,
  RequestHeader,
  WatcherEvent,
} from '../../protocol/records.js';
import type { Writer } from '../../protocol/writer.js';

/** A codec that can also play the server's side. */
export interface ServerCodec<Req, Res> extends Codec<Req, Res> {
  /** Reads the request body, as a server does. */
  readRequest(r: Reader): Req;
  /** Writes the response body, as a server does. */
  writeResponse(w: Writer, res: Res): void;
}

type ServerOf<C> = C extends Codec<infer Req, infer Res> ? ServerCodec<Req, Res> : never;

function server<Req, Res>(codec: RecordCodec<Req, Res>): ServerCodec<Req, Res> {
  return { ...codec, readRequest: codec.request.read, writeResponse: codec.response.write };
}

const anyRecordCodec = recordCodecs as unknown as Record<string, RecordCodec<unknown, unknown>>;

/**
 * Reads MultiHeader-prefixed ops until the `done` header: `names` are the ops allowed,
 * `kind` words the error for another.
 */
function multiRequestReader<Op>(names: readonly string[], kind: string) {
  const allowed = new Map(names.map((name) => [anyRecordCodec[name]!.code, anyRecordCodec[name]!]));
  return (r: Reader): { ops: Op[] } => {
    const ops: Op[] = [];
    for (;;) {
      const h = MultiHeader.read(r);
      if (h.done) return { ops };
      const codec = allowed.get(h.type);
      if (codec === undefined)
        throw new ProtocolError(`unexpected ${kind} type ${h.type} in multi`);
      ops.push({ type: codec.name, request: codec.request.read(r) } as Op);
    }
  };
}

/** Writes a multi reply: each result's header and response record (ErrorResponse for 'error'). */
function writeMultiResponse(w: Writer, results: MultiResult[]): void {
  for (const res of results) {
    if (res.type === 'error') {
      MultiHeader.write(w, { type: OpCode.error, done: false, err: res.err });
      ErrorResponse.write(w, res);
      continue;
    }
    const codec = anyRecordCodec[res.type]!;
    MultiHeader.write(w, { type: codec.code, done: false, err: 0 });
    codec.response.write(w, res);
  }
  MultiHeader.write(w, MULTI_DONE);
}

const single = Object.fromEntries(
  Object.entries(anyRecordCodec).map(([name, codec]) => [name, server(codec)]),
);

/** Every operation's codec with its server halves, by op name. */
export const serverCodecs = {
  ...single,
  multi: {
    ...codecs.multi,
    readRequest: multiRequestReader<MultiOp>(MULTI_OPS, 'op'),
    writeResponse: writeMultiResponse,
  },
  multiRead: {
    ...codecs.multiRead,
    readRequest: multiRequestReader<MultiReadOp>(MULTI_READ_OPS, 'read op'),
    writeResponse: writeMultiResponse,
  },
} as unknown as { readonly [N in CodecName]: ServerOf<(typeof codecs)[N]> };

const byCode = new Map<number, ServerCodec<unknown, unknown>>(
  Object.values(serverCodecs).map((c) => [c.code, c as ServerCodec<unknown, unknown>]),
);

/** The server codec of an opcode, or undefined for an opcode no codec has. */
export function serverCodecByCode(code: number): ServerCodec<unknown, unknown> | undefined {
  return byCode.get(code);
}

/** The first client frame's body, as the server reads it. */
export const readConnectRequest = ConnectRequest.read;
/** The first server frame's body. */
export const writeConnectResponse = ConnectResponse.write;
/** The header of every request after the handshake. */
export const readRequestHeader = RequestHeader.read;
/** The header of every reply and notification. */
export const writeReplyHeader = ReplyHeader.write;
/** A notification's body (after a ReplyHeader with xid -1). */
export const writeWatcherEvent = WatcherEvent.write;
