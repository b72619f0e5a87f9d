// Bun's own sockets: Bun.connect. Its write() takes what the kernel accepts and returns the count,
// so the rest is kept here, in order, and flushed from the drain handler.
import { makeError } from '../../protocol/errors.js';
import { type Deferred, deferred } from '../deferred.js';
import type { Connection, Transport, TransportConnectOptions } from '../transport.js';
import { ChunkQueue } from './chunk-queue.js';

// The slice of Bun's API used here, so the project type-checks without bun-types.
interface BunSocket {
  write(data: Uint8Array): number;
  terminate(): void;
  setNoDelay?(noDelay?: boolean): boolean;
}

interface BunSocketHandlers {
  open(socket: BunSocket): void;
  handshake(socket: BunSocket, success: boolean, authorizationError: Error | null): void;
  data(socket: BunSocket, data: Uint8Array): void;
  drain(socket: BunSocket): void;
  end(socket: BunSocket): void;
  close(socket: BunSocket, error?: Error): void;
  error(socket: BunSocket, error: Error): void;
  connectError(socket: BunSocket, error: Error): void;
}

interface BunNet {
  connect(options: {
    hostname: string;
    port: number;
    tls?: {
      ca?: string | string[];
      cert?: string;
      key?: string;
      serverName?: string;
      rejectUnauthorized?: boolean;
    };
    socket: BunSocketHandlers;
  }): Promise<BunSocket>;
}

function bunNamespace(): BunNet {
  const bun = (globalThis as { Bun?: BunNet }).Bun;
  if (!bun) throw makeError('BADARGUMENTS', 'the bun transport needs the Bun runtime');
  return bun;
}

class BunConnection implements Connection {
  readonly chunks = new ChunkQueue();
  readonly closed: Promise<void>;
  private resolveClosed!: () => void;
  private socket: BunSocket | null = null;
  /** Bytes the socket did not take yet, oldest first; new writes queue behind them. */
  private readonly backlog: Uint8Array[] = [];
  private drained: Deferred | null = null;
  private done = false;

  constructor() {
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
  }

  attach(socket: BunSocket): void {
    if (this.socket) return;
    this.socket = socket;
    socket.setNoDelay?.(true);
    if (this.done) socket.terminate();
  }

  received(data: Uint8Array): void {
    // Copied: the runtime does not promise that the buffer stays ours after the callback.
    this.chunks.push(new Uint8Array(data));
  }

  write(bytes: Uint8Array): Promise<void> | undefined {
    if (this.done || !this.socket) return undefined;
    if (this.backlog.length === 0) {
      const written = this.socket.write(bytes);
      if (written < 0) {
        this.close();
        return undefined;
      }
      if (written >= bytes.byteLength) return undefined;
      this.backlog.push(bytes.subarray(written));
    } else {
      this.backlog.push(bytes);
    }
    this.drained ??= deferred();
    return this.drained.promise;
  }

  /** The socket can take more: send the backlog until it stalls again. */
  flush(): void {
    const socket = this.socket;
    if (!socket || this.done) return;
    while (this.backlog.length > 0) {
      const head = this.backlog[0]!;
      const written = socket.write(head);
      if (written < 0) {
        this.close();
        return;
      }
      if (written < head.byteLength) {
        this.backlog[0] = head.subarray(written);
        return;
      }
      this.backlog.shift();
    }
    this.releaseWaiters();
  }

  private releaseWaiters(): void {
    const drained = this.drained;
    this.drained = null;
    drained?.resolve();
  }

  /** The socket is gone (closed by either side). */
  ended(): void {
    this.done = true;
    this.backlog.length = 0;
    this.chunks.end();
    this.releaseWaiters();
    this.resolveClosed();
  }

  close(): void {
    if (this.done) return;
    this.socket?.terminate();
    this.ended();
  }
}

/** Transport over Bun.connect (TLS through its `tls` options). */
export const bunTransport: Transport = {
  connect(options: TransportConnectOptions): Promise<Connection> {
    const bun = bunNamespace();
    const { host, port, tls, signal } = options;
    signal.throwIfAborted();
    const connection = new BunConnection();
    return new Promise<Connection>((resolve, reject) => {
      let settled = false;
      const settle = (error: unknown) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        if (error === null) {
          resolve(connection);
        } else {
          connection.close();
          reject(error);
        }
      };
      const onAbort = () => settle(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      bun
        .connect({
          hostname: host,
          port,
          tls: tls && {
            ca: tls.ca,
            cert: tls.cert,
            key: tls.key,
            serverName: tls.servername,
            rejectUnauthorized: tls.rejectUnauthorized ?? true,
          },
          socket: {
            open: (socket) => {
              connection.attach(socket);
              if (!tls) settle(null);
            },
            handshake: (socket, success, authorizationError) => {
              connection.attach(socket);
              if (!success) settle(authorizationError ?? new Error('TLS handshake failed'));
              else if (authorizationError && tls?.rejectUnauthorized !== false)
                settle(authorizationError);
              else settle(null);
            },
            data: (_socket, data) => connection.received(data),
            drain: () => connection.flush(),
            end: () => connection.close(),
            close: (_socket, error) => {
              connection.ended();
              settle(error ?? new Error(`connection to ${host}:${port} closed while connecting`));
            },
            error: (_socket, error) => {
              settle(error);
              connection.close();
            },
            connectError: (_socket, error) => settle(error),
          },
        })
        .then((socket) => connection.attach(socket), settle);
    });
  },
};
