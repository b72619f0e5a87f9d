// The node:net connection's `closed` promise, made only when read: it settles on a close that
// came before the read as well as after it.
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeTransport } from '../../../src/session/transports/node.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A loopback server; resolves with its port and the sockets it accepts, in order. */
async function listen(): Promise<{ port: number; accepted: Socket[] }> {
  const accepted: Socket[] = [];
  server = createServer((socket) => accepted.push(socket));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { port: address.port, accepted };
}

async function dial(port: number) {
  return nodeTransport.connect({
    host: '127.0.0.1',
    port,
    signal: new AbortController().signal,
  });
}

/** Waits until the connection's chunk stream has ended (the socket's close was seen). */
async function streamEnd(connection: Awaited<ReturnType<typeof dial>>): Promise<void> {
  for await (const _ of connection.chunks) {
    // Nothing is sent; the loop ends with the stream.
  }
}

describe('node:net connection closed', () => {
  it('read before the close, it settles when the peer closes', async () => {
    const { port, accepted } = await listen();
    const connection = await dial(port);
    const closed = connection.closed;
    expect(connection.closed).toBe(closed);
    await expect.poll(() => accepted.length).toBe(1);
    accepted[0]!.destroy();
    await closed;
  });

  it('read only after the close, it is already settled', async () => {
    const { port } = await listen();
    const connection = await dial(port);
    connection.close();
    await streamEnd(connection);
    let settled = false;
    void connection.closed.then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(true);
  });
});
