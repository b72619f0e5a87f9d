// An in-memory ZooKeeper-ish server for fault tests of the session: each host runs a script that
// can answer properly or misbehave (garbage, wrong xids, absurd lengths, silence).
import { FrameDecoder } from '../../../src/protocol/frame.js';
import { OpCode } from '../../../src/protocol/ops.js';
import { Reader } from '../../../src/protocol/reader.js';
import { frame, type Writer } from '../../../src/protocol/writer.js';
import type {
  Connection,
  Transport,
  TransportConnectOptions,
} from '../../../src/session/transport.js';
import { ChunkQueue } from '../../../src/session/transports/chunk-queue.js';
import {
  serverCodecs as codecs,
  readConnectRequest,
  readRequestHeader,
  writeConnectResponse,
  writeReplyHeader,
} from '../../../src/testing/wire/server-codecs.js';

export interface ServerSide {
  /** Frames the client sent (length prefix stripped). */
  onFrame(listener: (body: Uint8Array) => void): void;
  send(bytes: Uint8Array): void;
  close(): void;
  readonly closed: boolean;
}

export type Script = (server: ServerSide) => void;

class FakeConnection implements Connection {
  readonly chunks = new ChunkQueue();
  readonly closed: Promise<void>;
  private resolveClosed!: () => void;
  private isClosed = false;
  private readonly frameListeners: ((body: Uint8Array) => void)[] = [];
  private readonly decoder = new FrameDecoder(10_000_000);

  constructor() {
    this.closed = new Promise((r) => {
      this.resolveClosed = r;
    });
  }

  readonly server: ServerSide = {
    onFrame: (listener) => this.frameListeners.push(listener),
    send: (bytes) => {
      if (!this.isClosed) queueMicrotask(() => this.chunks.push(bytes));
    },
    close: () => this.close(),
    get closed() {
      return false;
    },
  };

  write(bytes: Uint8Array): undefined {
    if (this.isClosed) return undefined;
    const copy = bytes.slice();
    queueMicrotask(() => {
      if (this.isClosed) return;
      for (const body of this.decoder.push(copy)) for (const l of this.frameListeners) l(body);
    });
    return undefined;
  }

  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.chunks.end();
    this.resolveClosed();
  }
}

/** A Transport over scripted in-memory hosts; unknown hosts refuse the connection. */
export class FakeNetwork implements Transport {
  readonly connections: { host: string; port: number; connection: FakeConnection }[] = [];

  constructor(private readonly scripts: Record<string, Script>) {}

  async connect(options: TransportConnectOptions): Promise<Connection> {
    const script = this.scripts[`${options.host}:${options.port}`];
    if (!script) throw new Error(`connect ECONNREFUSED ${options.host}:${options.port}`);
    const connection = new FakeConnection();
    this.connections.push({ host: options.host, port: options.port, connection });
    script(connection.server);
    return connection;
  }

  openConnections(): number {
    return this.connections.filter(
      (c) => !(c.connection as unknown as { isClosed: boolean }).isClosed,
    ).length;
  }
}

let nextSession = 0x100n;

/** The handshake answer: a session for a new client, the same one for a resuming client. */
export function connectResponse(body: Uint8Array, timeOut = 1_000): Uint8Array {
  const request = readConnectRequest(new Reader(body));
  const sessionId = request.sessionId === 0n ? nextSession++ : request.sessionId;
  return handshakeAnswer(sessionId, timeOut, 7);
}

/**
 * A connect response naming `sessionId` (0n with timeOut 0: the session is gone), its password
 * sixteen bytes of `passwordByte`.
 */
export function handshakeAnswer(sessionId: bigint, timeOut = 1_000, passwordByte = 3): Uint8Array {
  return frame((w) =>
    writeConnectResponse(w, {
      protocolVersion: 0,
      timeOut,
      sessionId,
      passwd: new Uint8Array(16).fill(passwordByte),
      readOnly: false,
    }),
  );
}

/** A reply frame: header plus an optional body writer. */
export function reply(xid: number, err = 0, body?: (w: Writer) => void): Uint8Array {
  return frame((w) => {
    writeReplyHeader(w, { xid, zxid: 5n, err });
    body?.(w);
  });
}

/**
 * Answers the handshake as a server does (a session of `timeOut` ms), then hands every later frame
 * to `onRequest`.
 */
export function handshakeThen(
  onRequest: (server: ServerSide, body: Uint8Array) => void,
  timeOut = 1_000,
): Script {
  return (server) => {
    let handshaken = false;
    server.onFrame((body) => {
      if (handshaken) return onRequest(server, body);
      handshaken = true;
      server.send(connectResponse(body, timeOut));
    });
  };
}

/** A server that behaves: handshake, pings, and getData answered with `data`. */
export function goodServer(data = 'good'): Script {
  return handshakeThen((server, body) => {
    const header = readRequestHeader(new Reader(body));
    if (header.type !== OpCode.getData) return server.send(reply(header.xid));
    server.send(
      reply(header.xid, 0, (w) =>
        codecs.getData.writeResponse(w, {
          data: new TextEncoder().encode(data),
          stat: {
            czxid: 1n,
            mzxid: 1n,
            ctime: 0n,
            mtime: 0n,
            version: 0,
            cversion: 0,
            aversion: 0,
            ephemeralOwner: 0n,
            dataLength: data.length,
            numChildren: 0,
            pzxid: 1n,
          },
        }),
      ),
    );
  });
}

/** Handshakes properly, then runs `afterHandshake` on the first request instead of answering it. */
export function misbehaveAfterHandshake(
  afterHandshake: (server: ServerSide, xid: number) => void,
): Script {
  return handshakeThen((server, body) => {
    const header = readRequestHeader(new Reader(body));
    if (header.xid < 0) return; // pings, auth: ignored
    afterHandshake(server, header.xid);
  });
}
