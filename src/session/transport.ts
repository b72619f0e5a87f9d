/// <reference path="../web-globals.ts" preserve="true" />
// The seam between the session core and a runtime's sockets. The core imports no runtime module:
// every runtime (Node, Bun, Deno, workerd) supplies one small adapter with this shape.
import type { TlsOptions } from './types.js';

/** Where and how a {@link Transport} connects. */
export interface TransportConnectOptions {
  /** Host name or IP address of the server. */
  host: string;
  /** TCP port of the server. */
  port: number;
  /** TLS settings, or undefined for plain TCP. */
  tls?: TlsOptions;
  /** Aborted when the attempt is abandoned (connect timeout, client closed). */
  signal: AbortSignal;
}

/** One established byte stream to a server. */
export interface Connection {
  /**
   * Queues bytes for sending. Returns undefined when the bytes were accepted at once, or a promise
   * that settles once the peer has drained them (backpressure); callers wait before writing more.
   */
  write(bytes: Uint8Array): Promise<void> | undefined;
  /** Incoming bytes in arbitrary chunks; the iteration ends when the connection closes. */
  readonly chunks: AsyncIterable<Uint8Array>;
  /** Closes the connection at once (no graceful drain). Idempotent. */
  close(): void;
  /** Settles when the connection is closed, from either side. Never rejects. */
  readonly closed: Promise<void>;
  /**
   * Why the connection closed, when the runtime said (a reset, a TLS alert): set before `chunks`
   * ends. The session passes it on as the `cause` of the CONNECTIONLOSS errors and of the
   * `suspended` state change. Optional: adapters that cannot tell leave it undefined.
   */
  readonly closeError?: Error;
}

/**
 * A runtime's way of opening byte streams to servers (`ConnectOptions.transport`). The package
 * ships one per runtime in `zookeeper-ts/transports`; the default picks the right one.
 */
export interface Transport {
  /** Opens a connection; rejects when the host cannot be reached or the signal aborts. */
  connect(options: TransportConnectOptions): Promise<Connection>;
}
