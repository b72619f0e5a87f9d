// An adapter-level check that the smoke suite cannot make: against a peer that stops reading,
// write() must signal backpressure (a promise) instead of buffering without bound, and once the
// peer reads again every byte must arrive, in order. Needs a node:net server in the same
// runtime, so it runs under Node, Bun and Deno (workerd cannot listen).
import type { Transport } from '../../src/index.js';

const CHUNK = 256 * 1024;
const CHUNKS = 64; // 16 MiB: more than loopback socket buffers hold

function pattern(offset: number, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = ((offset + i) * 13) % 251;
  return bytes;
}

/** Resolves with null when the transport behaved, or with what went wrong. */
export async function checkBackpressure(transport: Transport): Promise<string | null> {
  const net = await import('node:net');
  let received = 0;
  let firstMismatch = -1;
  let peer: import('node:net').Socket | null = null;
  let resumePeer!: () => void;
  const peerConnected = new Promise<void>((resolve) => {
    resumePeer = resolve;
  });
  const server = net.createServer((socket) => {
    peer = socket;
    socket.pause();
    socket.on('data', (data: Uint8Array) => {
      if (firstMismatch < 0) {
        const expected = pattern(received, data.byteLength);
        const at = data.findIndex((byte, i) => byte !== expected[i]);
        if (at >= 0) firstMismatch = received + at;
      }
      received += data.byteLength;
    });
    resumePeer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as import('node:net').AddressInfo;
  const connection = await transport.connect({
    host: '127.0.0.1',
    port,
    signal: new AbortController().signal,
  });
  try {
    await peerConnected;
    let signalled = false;
    for (let i = 0; i < CHUNKS; i++) {
      const wait = connection.write(pattern(i * CHUNK, CHUNK));
      if (!wait) continue;
      if (!signalled) {
        signalled = true;
        // Only now let the peer read: the promise must settle once it drains.
        (peer as import('node:net').Socket | null)?.resume();
      }
      await wait;
    }
    if (!signalled) return `${CHUNKS * CHUNK} bytes to a stalled peer never signalled backpressure`;
    const deadline = Date.now() + 20_000;
    while (received < CHUNKS * CHUNK && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    if (received !== CHUNKS * CHUNK) return `peer got ${received} of ${CHUNKS * CHUNK} bytes`;
    if (firstMismatch >= 0) return `bytes out of order from offset ${firstMismatch}`;
    return null;
  } finally {
    connection.close();
    (peer as import('node:net').Socket | null)?.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
