// Transport over node:net / node:tls. Also serves Bun and Deno through their Node compatibility.
import type * as net from 'node:net';
import type * as tls from 'node:tls';
import { makeError } from '../../protocol/errors.js';
import { pooledCopy, setTransientBuffer } from '../../protocol/slab.js';
import type { Connection, Transport, TransportConnectOptions } from '../transport.js';
import { ChunkQueue } from './chunk-queue.js';
import { detectRuntime } from './runtime.js';

interface NodeSockets {
  net: typeof net;
  tls: typeof tls;
}

let modules: Promise<NodeSockets> | null = null;

/**
 * Loads node:net and node:tls on first use, through dynamic imports inside try/catch: a bundle
 * made for workerd then carries no top-level `import "node:net"` (which would demand
 * `nodejs_compat`), and a runtime without them gets a clear error instead of a load failure.
 * Internal (stripped from the published declarations, whose consumers need no @types/node).
 * @internal
 */
export function loadNodeSockets(): Promise<NodeSockets> {
  modules ??= (async () => {
    try {
      // Each awaited on its own: esbuild tolerates an unresolvable `await import()` only
      // directly inside the try block.
      const netModule = await import('node:net');
      const tlsModule = await import('node:tls');
      return { net: netModule, tls: tlsModule };
    } catch (error) {
      modules = null;
      throw makeError(
        'BADARGUMENTS',
        'node:net is not available in this runtime; pass a transport that is (see zookeeper-ts transports)',
        { cause: error },
      );
    }
  })();
  return modules;
}

/** What node:net's `onread` reads into: one buffer for every plain TCP socket of the process. */
const READ_BUFFER_BYTES = 64 * 1024;
let sharedReadBuffer: Uint8Array | null = null;

function readBuffer(): Uint8Array {
  if (!sharedReadBuffer) {
    sharedReadBuffer = new Uint8Array(READ_BUFFER_BYTES);
    setTransientBuffer(sharedReadBuffer.buffer);
  }
  return sharedReadBuffer;
}

/** Tests only: see {@link poisonReadsForTesting}. */
let poisonReads = false;
let poisonQueued = false;

function poison(): void {
  poisonQueued = false;
  sharedReadBuffer?.fill(0xee);
}

/**
 * Tests only: after each read, once the read's callback and the microtasks it queued have run,
 * fill the shared read buffer with garbage, as the next read of any socket would overwrite it.
 * A value kept from a read without a copy then shows as garbage at once, not only when another
 * socket happens to read in between.
 * @internal
 */
export function poisonReadsForTesting(on: boolean): void {
  poisonReads = on;
}

/**
 * node:net's `onread` for one connection: each read lands in the process's one read buffer.
 * Cheaper than 'data' events, which pass every read through the stream machinery (a Buffer
 * object, an event, and a tick to check for more) at several reads per lock acquisition. One
 * buffer serves all sockets, as nothing reads into it until this callback has returned, and an
 * idle connection holds none.
 *
 * While the session reads (the queue feeds it), the read is handed over in place, with no copy:
 * the session decodes and routes every whole frame in it inside the push, a partial frame at the
 * end is copied by the frame decoder, and a value that outlives its reply is copied out by the
 * protocol reader (Reader.buffer: getData's data, a SASL token; Reader.encodedStrings: a listing
 * a lock keeps while it waits), which knows the buffer as transient (slab.ts). The promise
 * reactions a reply sets off run before the next read too: Node runs the microtask queue when
 * the callback returns. Otherwise (before the session reads, or a reader that pulls chunks) the
 * read is copied into a chunk of its own: a small one cut from the shared slabs request frames
 * come from, a larger one a buffer of its own.
 */
function readInto(chunks: ChunkQueue): net.OnReadOpts {
  const buffer = readBuffer();
  return {
    buffer,
    callback(length: number): boolean {
      const read = length === buffer.length ? buffer : new Uint8Array(buffer.buffer, 0, length);
      chunks.push(chunks.feeding ? read : pooledCopy(read));
      if (poisonReads && !poisonQueued) {
        poisonQueued = true;
        setImmediate(poison);
      }
      return true;
    },
  };
}

class NodeConnection implements Connection {
  private drain: Promise<void> | null = null;
  private error: Error | undefined;
  private isClosed = false;
  /**
   * `closed`, made when first read: a connection may stay open for hours in a process that holds
   * thousands, and few readers ever ask (the read-only probe).
   */
  private whenClosed: Promise<void> | null = null;
  private resolveClosed: (() => void) | null = null;

  /**
   * @param readsInto the socket reads through `onread` into `chunks` ({@link readInto}); else its
   * 'data' events are pushed there
   */
  constructor(
    private readonly socket: net.Socket,
    readonly chunks: ChunkQueue,
    readsInto: boolean,
  ) {
    socket.setNoDelay(true);
    // The Buffers go to the frame decoder as they are: the frames it cuts from them are plain
    // Uint8Array views (made with the Uint8Array constructor), so decoded data handed to users
    // is never a Buffer, and no view per chunk is made here.
    if (!readsInto) socket.on('data', (chunk: Uint8Array) => chunks.push(chunk));
    // 'close' comes once; `on` rather than `once`, whose wrapper costs a bound function and a
    // state object per connection.
    socket.on('close', () => this.ended());
    // Errors surface as a close (node emits 'error' before 'close'); the first one is the cause.
    socket.on('error', (error: Error) => {
      this.error ??= error;
    });
  }

  get closed(): Promise<void> {
    if (!this.whenClosed) {
      this.whenClosed = this.isClosed
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            this.resolveClosed = resolve;
          });
    }
    return this.whenClosed;
  }

  private ended(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.chunks.end();
    this.resolveClosed?.();
    this.resolveClosed = null;
  }

  get closeError(): Error | undefined {
    return this.error;
  }

  write(bytes: Uint8Array): Promise<void> | undefined {
    if (this.socket.destroyed) return undefined;
    if (this.socket.write(bytes)) return undefined;
    if (!this.drain) {
      this.drain = new Promise<void>((resolve) => {
        const done = () => {
          this.socket.off('drain', done);
          this.socket.off('close', done);
          this.drain = null;
          resolve();
        };
        this.socket.on('drain', done);
        this.socket.on('close', done);
      });
    }
    return this.drain;
  }

  close(): void {
    this.socket.destroy();
  }
}

/** TCP and TLS through `node:net` and `node:tls`: the default on Node, Bun and Deno; honours every TLS option. */
export const nodeTransport: Transport = {
  async connect(options: TransportConnectOptions): Promise<Connection> {
    const { net, tls } = await loadNodeSockets();
    return new Promise((resolve, reject) => {
      const { host, port, signal } = options;
      const chunks = new ChunkQueue();
      // `onread` on Node's plain TCP only: a TLS socket decrypts through its own stream, and
      // Bun's and Deno's node:net are not Node's (their own transports read their own way).
      const readsInto = !options.tls && detectRuntime() === 'node';
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      const socket = options.tls
        ? tls.connect({
            host,
            port,
            ca: options.tls.ca,
            cert: options.tls.cert,
            key: options.tls.key,
            servername: options.tls.servername ?? (net.isIP(host) ? undefined : host),
            rejectUnauthorized: options.tls.rejectUnauthorized ?? true,
          })
        : net.connect(readsInto ? { host, port, onread: readInto(chunks) } : { host, port });
      const readyEvent = options.tls ? 'secureConnect' : 'connect';
      const cleanup = () => {
        signal.removeEventListener('abort', onAbort);
        socket.off('error', onError);
        socket.off(readyEvent, onReady);
      };
      const onAbort = () => {
        cleanup();
        socket.destroy();
        reject(signal.reason);
      };
      const onError = (error: Error) => {
        cleanup();
        socket.destroy();
        reject(error);
      };
      const onReady = () => {
        cleanup();
        resolve(new NodeConnection(socket, chunks, readsInto));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      socket.once('error', onError);
      socket.once(readyEvent, onReady);
    });
  },
};
