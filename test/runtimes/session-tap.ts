// A TCP proxy that reads the ZooKeeper handshake passing through it: the first frame the server
// sends on each connection is the ConnectResponse (protocol version, timeout, session id and
// password). The workerd example check uses it to learn the Durable Object's session from
// outside, then cut the object off while another client takes the session over and closes it:
// the server expires it, as after a partition.
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';

export interface TappedSession {
  id: bigint;
  password: Uint8Array;
}

export class SessionTap {
  private readonly sockets = new Set<Socket>();
  private refusing = false;
  /** Every session the server granted or resumed through this tap, by id (hex). */
  readonly sessions = new Map<string, TappedSession>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(host: string, port: number): Promise<SessionTap> {
    let tap: SessionTap | undefined;
    const server = createServer((client) => tap!.accept(client, host, port));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('tap has no port');
    tap = new SessionTap(server, address.port);
    return tap;
  }

  get connectString(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** Refuse new connections (they are closed at once) until `refuse(false)`. */
  refuse(on: boolean): void {
    this.refusing = on;
  }

  /** Closes every connection through the tap. */
  cut(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket, host: string, port: number): void {
    if (this.refusing) {
      client.destroy();
      return;
    }
    const upstream = tcpConnect({ host, port });
    this.sockets.add(client);
    this.sockets.add(upstream);
    let first: Buffer | undefined = Buffer.alloc(0);
    upstream.on('data', (chunk: Buffer) => {
      if (first !== undefined) {
        first = Buffer.concat([first, chunk]);
        const session = parseConnectResponse(first);
        if (session) {
          this.sessions.set(session.id.toString(16), session);
          first = undefined;
        }
      }
      client.write(chunk);
    });
    client.on('data', (chunk: Buffer) => upstream.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  }
}

/** len, protocolVersion, timeOut, sessionId (int64), passwd (int32 length + bytes), readOnly. */
function parseConnectResponse(bytes: Buffer): TappedSession | undefined {
  if (bytes.length < 4) return undefined;
  const length = bytes.readInt32BE(0);
  if (bytes.length < 4 + length || length < 20) return undefined;
  const id = bytes.readBigInt64BE(12);
  const passwordLength = bytes.readInt32BE(20);
  if (id === 0n || passwordLength <= 0) return undefined; // a refused resume: session 0
  return { id, password: new Uint8Array(bytes.subarray(24, 24 + passwordLength)) };
}
