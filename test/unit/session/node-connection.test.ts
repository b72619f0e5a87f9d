// The node:net connection's `closed` promise, made only when read: it settles on a close that
// came before the read as well as after it.
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { isPooled } from '../../../src/protocol/slab.js';
import { nodeTransport } from '../../../src/session/transports/node.js';

let server: Server | undefined;
/** The server's side of every connection, ended after each test: a failed one leaves none open. */
const serverSockets: Socket[] = [];
afterEach(async () => {
  for (const socket of serverSockets.splice(0)) socket.destroy();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A loopback server; resolves with its port and the sockets it accepts, in order. */
async function listen(): Promise<{ port: number; accepted: Socket[] }> {
  const accepted: Socket[] = [];
  server = createServer((socket) => {
    accepted.push(socket);
    serverSockets.push(socket);
  });
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

/**
 * A connection dialled to a fresh loopback server, its chunks as an iterator, and the server's
 * side of it (`peer`), once the server has accepted it.
 */
async function linked() {
  const { port, accepted } = await listen();
  const connection = await dial(port);
  const iterator = connection.chunks[Symbol.asyncIterator]();
  await expect.poll(() => accepted.length).toBe(1);
  return { connection, iterator, peer: accepted[0]! };
}

/** Takes chunks from `iterator` until `bytes` bytes have come; returns them in order. */
async function readAtLeast(
  iterator: AsyncIterator<Uint8Array>,
  bytes: number,
): Promise<Uint8Array[]> {
  const got: Uint8Array[] = [];
  let total = 0;
  while (total < bytes) {
    const next = await iterator.next();
    if (next.done) throw new Error(`stream ended after ${total} of ${bytes} bytes`);
    got.push(next.value);
    total += next.value.length;
  }
  return got;
}

describe('node:net connection reads', () => {
  it('a chunk keeps its bytes after later reads (each is copied out of the read buffer)', async () => {
    const { connection, iterator, peer } = await linked();
    peer.write(Buffer.alloc(1000, 0x41));
    const first = await readAtLeast(iterator, 1000);
    // The next read comes after the first was handed out: on Node both land in the process's one
    // read buffer, so a chunk that were a view of it would now read as B.
    peer.write(Buffer.alloc(1000, 0x42));
    const second = await readAtLeast(iterator, 1000);
    expect(first.every((chunk) => chunk.every((byte) => byte === 0x41))).toBe(true);
    expect(second.every((chunk) => chunk.every((byte) => byte === 0x42))).toBe(true);
    connection.close();
  });

  it('a small read is cut from a shared slab, a large one has a buffer of its own', async () => {
    const { connection, iterator, peer } = await linked();
    peer.write(Buffer.alloc(200, 0x44));
    const small = await readAtLeast(iterator, 200);
    expect(small.every((chunk) => isPooled(chunk))).toBe(true);
    peer.write(Buffer.alloc(8 * 1024, 0x45));
    const large = await readAtLeast(iterator, 8 * 1024);
    // A read over the pooled size gets a buffer of its own (TCP may split it: each part over 1 KiB).
    for (const chunk of large) expect(isPooled(chunk)).toBe(chunk.length <= 1024);
    connection.close();
  });

  it('more than the read buffer holds arrives whole and in order', async () => {
    const { connection, iterator, peer } = await linked();
    const sent = Buffer.alloc(300 * 1024);
    for (let i = 0; i < sent.length; i++) sent[i] = (i * 7 + (i >> 10)) & 0xff;
    peer.write(sent);
    const chunks = await readAtLeast(iterator, sent.length);
    expect(Buffer.concat(chunks).equals(sent)).toBe(true);
    expect(chunks.every((chunk) => !Buffer.isBuffer(chunk))).toBe(true);
    connection.close();
  });

  it('on Node, plain TCP reads go through onread: the socket emits no data events', async () => {
    const net = await import('node:net');
    const emitted: string[] = [];
    const emit = net.Socket.prototype.emit;
    net.Socket.prototype.emit = function (
      this: InstanceType<typeof net.Socket>,
      event: string | symbol,
      ...args: unknown[]
    ): boolean {
      // The server's side reads with 'data' events: only our connection's count.
      if (event === 'data' && this !== peer) emitted.push('data');
      return Reflect.apply(emit, this, [event, ...args]) as boolean;
    } as typeof emit;
    let peer: Socket | undefined;
    try {
      const link = await linked();
      peer = link.peer;
      const { connection, iterator } = link;
      peer.write(Buffer.alloc(64, 0x43));
      await readAtLeast(iterator, 64);
      connection.close();
    } finally {
      net.Socket.prototype.emit = emit;
    }
    expect(emitted).toEqual([]);
  });
});
