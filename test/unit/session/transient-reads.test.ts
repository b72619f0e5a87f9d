// On Node, a plain TCP connection hands each read to the session in place, in the one buffer
// every socket of the process reads into, and the next read overwrites it (transports/node.ts).
// These tests run real Clients over loopback TCP to the in-process server with that buffer
// poisoned after every read (filled with garbage once the read's callback and its microtasks
// have run): whatever the library keeps from a read without copying it shows as garbage here at
// once, not only when another socket happens to read in between.
import { createServer, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { Op } from '../../../src/client/multi.js';
import { Mutex } from '../../../src/locks/index.js';
import { Reader } from '../../../src/protocol/reader.js';
import { isPooled, setTransientBuffer } from '../../../src/protocol/slab.js';
import { Writer } from '../../../src/protocol/writer.js';
import { nodeTransport, poisonReadsForTesting } from '../../../src/session/transports/node.js';
import { startServer, type TestServer } from '../../../src/testing/index.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
});

beforeAll(() => poisonReadsForTesting(true));
afterAll(() => poisonReadsForTesting(false));

async function tcpServer(): Promise<TestServer> {
  const server = await startServer({ listen: true });
  open.push(server);
  return server;
}

async function client(server: TestServer): Promise<Client> {
  const c = await Client.connect(server.connectString);
  open.push(c);
  return c;
}

/** One macrotask: the poison queued by the reads before it has been written. */
function afterPoison(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** `length` bytes of a pattern no poison fill looks like. */
function pattern(length: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 31 + seed) & 0xff;
  return bytes;
}

describe('reads handed over in place (Node onread)', () => {
  it("getData's data is the caller's own: later reads and the poison leave it as read", async () => {
    const server = await tcpServer();
    const [a, b] = [await client(server), await client(server)];
    const small = pattern(300, 1);
    await a.create('/small', small);
    await a.create('/other', pattern(300, 2));
    const { data } = await a.getData('/small');
    // Another session's reads land in the same buffer; then the poison.
    for (let i = 0; i < 5; i++) await b.getData('/other');
    await afterPoison();
    expect(data).toEqual(small);
    expect(isPooled(data!)).toBe(false);
  });

  it('a value larger than one read, whose frame spans reads, comes whole', async () => {
    const server = await tcpServer();
    const c = await client(server);
    const big = pattern(200 * 1024, 3);
    await c.create('/big', big);
    const [first, second] = await Promise.all([c.getData('/big'), c.getData('/big')]);
    await afterPoison();
    // Compared as Buffers: a deep equality over 200 KiB takes seconds.
    expect(Buffer.compare(first.data, big)).toBe(0);
    expect(Buffer.compare(second.data, big)).toBe(0);
  });

  it('children, watch events and multi results are whole after the poison', async () => {
    const server = await tcpServer();
    const [a, b] = [await client(server), await client(server)];
    await a.create('/parent');
    const names = Array.from({ length: 40 }, (_, i) => `child-${String(i).padStart(3, '0')}`);
    const results = await a.multi(names.map((name) => Op.create(`/parent/${name}`)));
    const seen = new Promise<string>((resolve) => {
      void a.exists('/parent/child-000', { watch: (event) => resolve(event.path) });
    });
    await b.delete('/parent/child-000');
    const children = await a.getChildren('/parent');
    await afterPoison();
    expect(await seen).toBe('/parent/child-000');
    expect(results.map((r) => ('path' in r ? r.path : ''))).toEqual(
      names.map((name) => `/parent/${name}`),
    );
    expect([...children].sort()).toEqual(names.slice(1));
  });

  it('a lock queue of waiting contenders hands the lock on in order', async () => {
    const server = await tcpServer();
    const clients = [await client(server), await client(server), await client(server)];
    const holder = await new Mutex(clients[0]!, '/lock').acquire({ timeout: 10_000 });
    const order: number[] = [];
    const waits = clients.slice(1).map(async (c, i) => {
      const lease = await new Mutex(c, '/lock').acquire({ timeout: 10_000 });
      order.push(i + 1);
      // Others read meanwhile; the poison runs before the release.
      await afterPoison();
      await lease.release();
    });
    // Both waiters are queued (their listings read) before the holder lets go.
    await expect
      .poll(async () => (await clients[0]!.getChildren('/lock')).length, { timeout: 10_000 })
      .toBe(3);
    await afterPoison();
    await holder.release();
    await Promise.all(waits);
    expect(order).toHaveLength(2);
  });
});

describe('a reader that pulls chunks (no session feeding on them)', () => {
  it('gets each read as a copy of its own', async () => {
    const peers: Socket[] = [];
    const server = createServer((socket) => peers.push(socket));
    open.push({
      close: () =>
        new Promise<void>((resolve) => {
          for (const peer of peers) peer.destroy();
          server.close(() => resolve());
        }),
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const connection = await nodeTransport.connect({
      host: '127.0.0.1',
      port: address.port,
      signal: new AbortController().signal,
    });
    open.push({ close: async () => connection.close() });
    await expect.poll(() => peers.length).toBe(1);
    const chunks = connection.chunks[Symbol.asyncIterator]();
    peers[0]!.write(Uint8Array.from([1, 2, 3]));
    const first = (await chunks.next()).value as Uint8Array;
    await afterPoison();
    peers[0]!.write(Uint8Array.from([4, 5]));
    const second = (await chunks.next()).value as Uint8Array;
    await afterPoison();
    expect([...first, ...second]).toEqual([1, 2, 3, 4, 5]);
  });
});

describe('the protocol reader on the transient buffer', () => {
  const transient = new Uint8Array(256);
  // Put back afterwards: the unit tier's files share a process, and its Node reads their buffer.
  let previous: ArrayBufferLike | null = null;
  beforeAll(() => {
    previous = setTransientBuffer(transient.buffer);
  });
  afterAll(() => {
    setTransientBuffer(previous);
  });

  function encodedIn(target: Uint8Array, write: (w: Writer) => void): Reader {
    const w = new Writer(64);
    write(w);
    const bytes = w.copy();
    target.set(bytes);
    return new Reader(new Uint8Array(target.buffer, 0, bytes.length));
  }

  it('copies a buffer out of it', () => {
    const r = encodedIn(transient, (w) => w.buffer(new Uint8Array([1, 2, 3])));
    const value = r.buffer()!;
    transient.fill(0xee);
    expect([...value]).toEqual([1, 2, 3]);
  });

  it('copies an encoded listing out of it', () => {
    const r = encodedIn(transient, (w) => {
      w.int(2);
      w.ustring('a');
      w.ustring('bc');
    });
    const listing = r.encodedStrings();
    transient.fill(0xee);
    expect(new Reader(listing).strings()).toEqual(['a', 'bc']);
  });
});
