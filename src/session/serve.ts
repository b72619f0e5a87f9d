// Serving one open connection: write the ConnectRequest, hand the first frame to the handshake
// and every later one to the reply path, until the link ends; then say why it ended.
import { makeError, ProtocolError } from '../protocol/errors.js';
import { FrameDecoder, FrameSizeError } from '../protocol/frame.js';
import type { SessionContext } from './context.js';
import { handshake, linkLost } from './handshake.js';
import { formatHost, type HostAddress } from './hosts.js';
import { leaveForReadWrite } from './readonly-probe.js';
import { routeReply } from './replies.js';
import type { Connection } from './transport.js';
import { ChunkQueue } from './transports/chunk-queue.js';

/** Resolves with whether a session was established on this connection. */
export async function serveConnection(
  ctx: SessionContext,
  connection: Connection,
  host: HostAddress,
  handshakeDone: () => void,
): Promise<boolean> {
  const decoder = new FrameDecoder(ctx.maxFrameSize);
  let established = false;
  // The server restarts a resumed session's expiry clock no earlier than this.
  const connectSentAt = ctx.clock.now();
  connection.write(ctx.identity.connectRequest(ctx.readOnlyAllowed));
  try {
    let refused = false;
    // One frame handler per connection, not one closure per chunk.
    const onFrame = (frame: Uint8Array): void => {
      if (refused) return;
      if (established) {
        routeReply(frame, ctx);
        return;
      }
      handshakeDone();
      if (!handshake(ctx, frame, connection, host, connectSentAt)) {
        refused = true;
        return;
      }
      established = true;
      ctx.connected(host, ctx.link?.readOnly ?? false);
      if (ctx.link?.readOnly) seekReadWrite(ctx, connection, host);
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
      ctx.lastError = makeError(
        'CONNECTIONLOSS',
        closeError
          ? `${formatHost(host)} closed the connection during the handshake: ${closeError.message} (a server at its limit of connections from one address, maxClientCnxns, does that)`
          : `${formatHost(host)} closed the connection during the handshake: it refused the session (its limit of connections from one address, maxClientCnxns, 60 by default, may be reached; or it is read-only, or behind our last zxid; its log says which)`,
        { cause: closeError },
      );
    } else if (ctx.lastError === null && closeError) {
      // The peer or the network ended it (a reset, a TLS alert): that is the cause users see.
      ctx.lastError = closeError;
    }
  } catch (error) {
    // Malformed or hostile bytes: drop this link, keep the session, try the next host.
    ctx.lastError = error;
    if (established && error instanceof FrameSizeError && error.length > error.limit) {
      // Every earlier frame was handled, so the oversized frame is the reply to the oldest
      // pending request (a huge child list): tell that caller why, or it would see a bare
      // CONNECTIONLOSS and retry forever.
      const head = ctx.pending.shift();
      head?.settle(
        new ProtocolError(
          `the reply to ${head.op} is over the ${ctx.maxFrameSize}-byte frame limit (${error.message}); raise maxFrameSize (the server's jute.maxbuffer must allow it too)`,
          { op: head.op, path: head.path },
        ),
      );
    }
  } finally {
    if (established) linkLost(ctx, connection, host);
  }
  return established;
}

/** The session sits on a read-only server: look for a read-write one, and leave for it. */
function seekReadWrite(ctx: SessionContext, connection: Connection, host: HostAddress): void {
  void leaveForReadWrite({
    connection,
    current: host,
    hosts: ctx.hosts,
    transport: ctx.transport,
    tls: ctx.tls,
    clock: ctx.clock,
    stop: ctx.stopSignal,
    isCurrent: (c) => ctx.isCurrent(c),
    leave: (found) =>
      ctx.dropConnection(
        `${formatHost(found)} serves reads and writes; leaving the read-only server`,
      ),
  });
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
