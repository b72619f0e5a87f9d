/**
 * Raw frames for the harness tests: a ConnectRequest, a ping, a create, and a connection that
 * speaks them. The harness tests use these instead of src/, which the harness exists to test.
 * Layouts: a frame is a 4-byte big-endian length then the body; a request body starts with its
 * xid and opcode (ping xid -2, opcode 11; create opcode 1); a ConnectRequest is protocol
 * version, last zxid seen, timeout, session id, password, read-only flag.
 */
import { connect as netConnect, type Socket } from 'node:net';
import { expect } from 'vitest';
import { parseMntr, type ZkServer } from '../harness/index.js';

/** ConnectRequest for a new session: 45-byte body, 49 bytes on the wire. */
export function connectRequest(timeoutMs = 10_000): Buffer {
  const frame = Buffer.alloc(49);
  frame.writeInt32BE(45, 0); // length
  frame.writeInt32BE(0, 4); // protocolVersion
  frame.writeBigInt64BE(0n, 8); // lastZxidSeen
  frame.writeInt32BE(timeoutMs, 16);
  frame.writeBigInt64BE(0n, 20); // sessionId
  frame.writeInt32BE(16, 28); // passwd: 16 zero bytes
  frame.writeUInt8(0, 48); // readOnly
  return frame;
}

export const PING = Buffer.from('00000008fffffffe0000000b', 'hex');

/** create(path, data, world:anyone ALL, persistent) with the given xid. */
export function createRequest(xid: number, path: string): Buffer {
  const ustring = (s: string) => {
    const bytes = Buffer.from(s, 'utf8');
    const len = Buffer.alloc(4);
    len.writeInt32BE(bytes.length);
    return Buffer.concat([len, bytes]);
  };
  const int = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeInt32BE(n);
    return b;
  };
  const body = Buffer.concat([
    int(xid),
    int(1), // OpCode.create
    ustring(path),
    ustring('x'), // data
    int(1), // one ACL
    int(31), // Perms.ALL
    ustring('world'),
    ustring('anyone'),
    int(0), // CreateMode.PERSISTENT
  ]);
  return Buffer.concat([int(body.length), body]);
}

/** A raw client connection that splits the byte stream into frames. */
export class RawConnection {
  private buffer = Buffer.alloc(0);
  private readonly frames: Buffer[] = [];
  private waiter: (() => void) | undefined;
  closed = false;

  constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      while (this.buffer.length >= 4 && this.buffer.length >= 4 + this.buffer.readInt32BE(0)) {
        const length = this.buffer.readInt32BE(0);
        this.frames.push(this.buffer.subarray(4, 4 + length));
        this.buffer = this.buffer.subarray(4 + length);
      }
      this.waiter?.();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      this.closed = true;
      this.waiter?.();
    });
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = netConnect({ host: '127.0.0.1', port }, () =>
        resolve(new RawConnection(socket)),
      );
      socket.once('error', reject);
    });
  }

  /** Sends a ConnectRequest and returns the negotiated session timeout. */
  async handshake(): Promise<number> {
    this.socket.write(connectRequest());
    const response = await this.nextFrame(5000);
    expect(response.length).toBe(37);
    return response.readInt32BE(4);
  }

  /** The next frame, or `undefined` after `timeoutMs` or when the connection closed. */
  async nextFrame(timeoutMs: number): Promise<Buffer>;
  async nextFrame(timeoutMs: number, optional: true): Promise<Buffer | undefined>;
  async nextFrame(timeoutMs: number, optional = false): Promise<Buffer | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (this.frames.length === 0 && !this.closed && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deadline - Date.now());
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    const frame = this.frames.shift();
    if (!frame && !optional)
      throw new Error(`no frame within ${timeoutMs} ms (closed: ${this.closed})`);
    return frame;
  }

  /** Error code of the reply to a request (ReplyHeader: xid, zxid, err). */
  async request(frame: Buffer): Promise<number> {
    this.socket.write(frame);
    const reply = await this.nextFrame(5000);
    return reply.readInt32BE(12);
  }

  close(): void {
    this.socket.destroy();
  }
}

export async function createNode(server: { port: number }, path: string): Promise<number> {
  const conn = await RawConnection.open(server.port);
  try {
    await conn.handshake();
    return await conn.request(createRequest(1, path));
  } finally {
    conn.close();
  }
}

export async function znodeCount(server: ZkServer): Promise<number> {
  return Number(parseMntr(await server.fourLetter('mntr')).zk_znode_count);
}

export const NODEEXISTS = -110;

/** `scheme:user` entries of a WhoAmIResponse (ReplyHeader, then vector<ClientInfo>). */
export function parseWhoAmI(frame: Buffer): string[] {
  expect(frame.readInt32BE(12)).toBe(0); // err
  let offset = 16;
  const ustring = () => {
    const length = frame.readInt32BE(offset);
    const value = frame.toString('utf8', offset + 4, offset + 4 + length);
    offset += 4 + length;
    return value;
  };
  const count = frame.readInt32BE(offset);
  offset += 4;
  return Array.from({ length: count }, () => `${ustring()}:${ustring()}`);
}
