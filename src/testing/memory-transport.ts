// The in-memory transport: a client's connection to a member is a pair of queues, no socket, so
// it works on every runtime (workerd included). Its host names are the server's addresses.

import type { Connection, Transport, TransportConnectOptions } from '../session/transport.js';
import { ChunkQueue } from '../session/transports/chunk-queue.js';
import type { Link } from './links.js';

/** What the transport needs from the server: a Link to the member at an address, or a refusal. */
export type OpenLink = (
  address: string,
  client: string,
  side: { deliver(bytes: Uint8Array): void; end(): void },
) => Link;

class MemoryConnection implements Connection {
  readonly chunks = new ChunkQueue();
  readonly closed: Promise<void>;
  private resolveClosed!: () => void;
  private isClosed = false;
  link!: Link;

  constructor() {
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
  }

  write(bytes: Uint8Array): undefined {
    if (!this.isClosed) this.link.toServer(bytes);
    return undefined;
  }

  /** The server's side ended the connection. */
  ended(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.chunks.end();
    this.resolveClosed();
  }

  close(): void {
    if (this.isClosed) return;
    this.ended();
    this.link.clientClosed();
  }
}

/** @internal A transport whose connections reach the model's members in memory. */
export function memoryTransport(open: OpenLink, client: string): Transport {
  return {
    async connect(options: TransportConnectOptions): Promise<Connection> {
      options.signal.throwIfAborted();
      const connection = new MemoryConnection();
      connection.link = open(`${options.host}:${options.port}`, client, {
        deliver: (bytes) => connection.chunks.push(bytes),
        end: () => connection.ended(),
      });
      return connection;
    },
  };
}
