// The TCP side of the in-process server: one loopback listener per member (Node, Bun and Deno
// through node:net, loaded only when asked, so a bundle for workerd carries no import of it).
// Each accepted socket becomes a Link to its member, like an in-memory connection.
import type { Socket } from 'node:net';
import { makeError } from '../protocol/errors.js';
import type { ClientSide, Link } from './links.js';

/** @internal An open listener. */
export interface TcpListener {
  readonly port: number;
  close(): Promise<void>;
}

/** @internal Listens on `host:port` (0: any free port); every connection goes to `open`. */
export async function listenTcp(
  host: string,
  port: number,
  open: (client: string | undefined, side: ClientSide) => Link,
): Promise<TcpListener> {
  let net: typeof import('node:net');
  try {
    net = await import('node:net');
  } catch (error) {
    throw makeError(
      'BADARGUMENTS',
      'startServer: node:net is not available in this runtime; pass { listen: false } and connect with server.transport',
      { cause: error },
    );
  }
  const sockets = new Set<Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    const link = open(undefined, {
      deliver: (bytes) => {
        if (!socket.destroyed) socket.write(bytes);
      },
      end: () => socket.destroy(),
    });
    socket.on('data', (chunk: Uint8Array) => link.toServer(chunk));
    socket.on('error', () => {});
    socket.once('close', () => {
      sockets.delete(socket);
      link.clientClosed();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port, exclusive: true }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return {
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
