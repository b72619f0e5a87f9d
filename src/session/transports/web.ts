/// <reference path="../../web-globals.ts" preserve="true" />
// Connections over WHATWG streams: the shape of `cloudflare:sockets` sockets, of Deno's
// `conn.readable`/`conn.writable`, and of Node's `Duplex.toWeb()`. Uses only web-standard globals.
import { untilAborted } from '../abortable.js';
import { type Deferred, deferred } from '../deferred.js';
import type { Connection, Transport, TransportConnectOptions } from '../transport.js';

/** A byte socket as a pair of WHATWG streams (a `cloudflare:sockets` `Socket` is one). */
export interface WebStreamSocket {
  /** Bytes from the server. */
  readonly readable: ReadableStream<Uint8Array>;
  /** Bytes to the server. */
  readonly writable: WritableStream<Uint8Array>;
  /** Settles once the connection is up; rejects when it cannot be made (cloudflare:sockets). */
  readonly opened?: Promise<unknown>;
  /** Tears the socket down (both directions). May return a promise; may throw if already closed. */
  close(): unknown;
}

/**
 * Opens one socket. It may return it before the connection is up, as `cloudflare:sockets`'
 * `connect()` does: `opened`, when present, is awaited before the session writes.
 */
export type WebStreamOpener = (
  options: TransportConnectOptions,
) => WebStreamSocket | Promise<WebStreamSocket>;

// Bytes handed to the writer but not yet taken by its sink, above which `write` asks the session
// to wait. Our own mark rather than the stream's: sockets' writable queues are often one chunk
// deep, and waiting on every frame would serialise pipelined requests.
const HIGH_WATER_BYTES = 256 * 1024;

const ignore = () => {};

/** A `Transport` for any runtime whose sockets are WHATWG streams. */
export function webStreamTransport(open: WebStreamOpener): Transport {
  return {
    async connect(options: TransportConnectOptions): Promise<Connection> {
      const { signal } = options;
      signal.throwIfAborted();
      const socket = await untilAborted(
        Promise.resolve().then(() => open(options)),
        signal,
        closeQuietly,
      );
      await untilAborted(Promise.resolve(socket.opened), signal, () => closeQuietly(socket));
      return new WebStreamConnection(socket);
    },
  };
}

function closeQuietly(socket: WebStreamSocket): void {
  try {
    const result = socket.close();
    if (result instanceof Promise) result.catch(ignore);
  } catch {
    // Closed already.
  }
}

/** One connection over a stream pair. Exported for adapters that open sockets their own way. */
export class WebStreamConnection implements Connection {
  readonly chunks: AsyncIterable<Uint8Array>;
  readonly closed: Promise<void>;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  private resolveClosed!: () => void;
  private unacknowledged = 0;
  private drained: Deferred | null = null;
  private done = false;

  constructor(private readonly socket: WebStreamSocket) {
    this.reader = socket.readable.getReader();
    this.writer = socket.writable.getWriter();
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
    this.chunks = this.read();
  }

  private async *read(): AsyncGenerator<Uint8Array> {
    try {
      while (!this.done) {
        const { value, done } = await this.reader.read();
        if (done) return;
        if (value.byteLength === 0) continue;
        // Hand out plain Uint8Array views (Node's Duplex.toWeb yields Buffers).
        yield value.constructor === Uint8Array
          ? value
          : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
      }
    } catch {
      // A reset or a read after close: both end the stream, as the Connection contract says.
    } finally {
      this.close();
    }
  }

  write(bytes: Uint8Array): Promise<void> | undefined {
    if (this.done) return undefined;
    const size = bytes.byteLength;
    this.unacknowledged += size;
    this.writer.write(bytes).then(
      () => {
        this.unacknowledged -= size;
        if (this.drained && this.unacknowledged <= HIGH_WATER_BYTES / 2) this.releaseWaiters();
      },
      () => this.close(),
    );
    if (this.unacknowledged <= HIGH_WATER_BYTES) return undefined;
    this.drained ??= deferred();
    return this.drained.promise;
  }

  private releaseWaiters(): void {
    const drained = this.drained;
    this.drained = null;
    drained?.resolve();
  }

  close(): void {
    if (this.done) return;
    this.done = true;
    this.reader.cancel().catch(ignore);
    this.writer.abort().catch(ignore);
    closeQuietly(this.socket);
    this.releaseWaiters();
    this.resolveClosed();
  }
}
