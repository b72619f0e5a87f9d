// Serving one open connection: write the ConnectRequest, hand the first frame to the handshake
// and every later one to the reply path, until the link ends; then say why it ended.
import { makeError, ProtocolError } from '../protocol/errors.js';
import { FrameDecoder, FrameSizeError } from '../protocol/frame.js';
import { formatHost, type HostAddress } from './hosts.js';
import type { Deque } from './queue.js';
import type { PendingRequest } from './requests.js';
import type { Connection } from './transport.js';
import { ChunkQueue } from './transports/chunk-queue.js';

/** What serving a connection needs from the session, and what it tells it. */
export interface ServeRoute {
  readonly maxFrameSize: number;
  /** Written requests awaiting replies (the oldest learns when its reply is oversized). */
  readonly pending: Deque<PendingRequest>;
  /** The ConnectRequest frame for this connection. */
  connectRequest(): Uint8Array;
  /** The first frame: true when a session was established on this connection. */
  handshake(frame: Uint8Array, connection: Connection, host: HostAddress): boolean;
  /** Every later frame. Throws on malformed bytes (the link is then dropped). */
  reply(frame: Uint8Array): void;
  /** A session was established on this connection (runs after `handshake`). */
  established(connection: Connection, host: HostAddress): void;
  /** The session's record of why the last link ended; `null` when nothing is known yet. */
  lastError(): unknown;
  failed(error: unknown): void;
  /** An established connection ended. */
  lost(connection: Connection, host: HostAddress): void;
}

/** Resolves with whether a session was established on this connection. */
export async function serveConnection(
  route: ServeRoute,
  connection: Connection,
  host: HostAddress,
  handshakeDone: () => void,
): Promise<boolean> {
  const decoder = new FrameDecoder(route.maxFrameSize);
  let established = false;
  connection.write(route.connectRequest());
  try {
    let refused = false;
    // One frame handler per connection, not one closure per chunk.
    const onFrame = (frame: Uint8Array): void => {
      if (refused) return;
      if (established) {
        route.reply(frame);
        return;
      }
      handshakeDone();
      if (!route.handshake(frame, connection, host)) {
        refused = true;
        return;
      }
      established = true;
      route.established(connection, host);
    };
    await eachChunk(connection.chunks, (chunk) => {
      // Frames are handled as they are decoded, so that the replies ahead of an oversized one
      // in the same chunk are delivered before the oversized length ends the stream.
      decoder.decode(chunk, onFrame);
      return !refused;
    });
    if (refused) return false;
    const closeError = connection.closeError;
    if (!established) {
      route.failed(
        makeError(
          'CONNECTIONLOSS',
          closeError
            ? `${formatHost(host)} closed the connection during the handshake: ${closeError.message} (a server at its limit of connections from one address, maxClientCnxns, does that)`
            : `${formatHost(host)} closed the connection during the handshake: it refused the session (its limit of connections from one address, maxClientCnxns, 60 by default, may be reached; or it is read-only, or behind our last zxid; its log says which)`,
          { cause: closeError },
        ),
      );
    } else if (route.lastError() === null && closeError) {
      // The peer or the network ended it (a reset, a TLS alert): that is the cause users see.
      route.failed(closeError);
    }
  } catch (error) {
    // Malformed or hostile bytes: drop this link, keep the session, try the next host.
    route.failed(error);
    if (established && error instanceof FrameSizeError && error.length > error.limit) {
      // Every earlier frame was handled, so the oversized frame is the reply to the oldest
      // pending request (a huge child list): tell that caller why, or it would see a bare
      // CONNECTIONLOSS and retry forever.
      const head = route.pending.shift();
      head?.settle(
        new ProtocolError(
          `the reply to ${head.op} is over the ${route.maxFrameSize}-byte frame limit (${error.message}); raise maxFrameSize (the server's jute.maxbuffer must allow it too)`,
          { op: head.op, path: head.path },
        ),
      );
    }
  } finally {
    if (established) route.lost(connection, host);
  }
  return established;
}

/**
 * Hands each chunk of `chunks` to `onChunk` until the stream ends or `onChunk` returns false;
 * rejects with what `onChunk` throws. A ChunkQueue (node:net, Bun, the simulator) pushes them in
 * the socket's own callback, with no promise per chunk; any other stream is pulled.
 */
function eachChunk(
  chunks: AsyncIterable<Uint8Array>,
  onChunk: (chunk: Uint8Array) => boolean,
): Promise<void> {
  if (chunks instanceof ChunkQueue) return chunks.drive(onChunk);
  return pull(chunks, onChunk);
}

async function pull(
  chunks: AsyncIterable<Uint8Array>,
  onChunk: (chunk: Uint8Array) => boolean,
): Promise<void> {
  for await (const chunk of chunks) if (!onChunk(chunk)) return;
}
