// Serving one open connection, the parts that are not the attempt's own bookkeeping (attempt.ts):
// reading its chunks, why a connection that ended during the handshake failed, the oversized
// reply, and leaving a read-only server.
import { makeError, ProtocolError } from '../protocol/errors.js';
import { FrameSizeError } from '../protocol/frame.js';
import type { SessionContext } from './context.js';
import { formatHost, type HostAddress } from './hosts.js';
import { leaveForReadWrite } from './readonly-probe.js';
import type { Connection } from './transport.js';
import { type ChunkConsumer, ChunkQueue } from './transports/chunk-queue.js';

/**
 * Hands each chunk of `chunks` to `consumer` until the stream ends or `consumer.chunk` returns
 * false, then tells `consumer.ended` (with what `chunk` threw, if it threw). A ChunkQueue
 * (node:net, Bun, the simulator) pushes them in the socket's own callback, with no promise per
 * chunk and nothing parked while the connection idles; any other stream is pulled.
 */
export function readChunks(chunks: AsyncIterable<Uint8Array>, consumer: ChunkConsumer): void {
  if (chunks instanceof ChunkQueue) chunks.feed(consumer);
  else void pull(chunks, consumer);
}

async function pull(chunks: AsyncIterable<Uint8Array>, consumer: ChunkConsumer): Promise<void> {
  let error: unknown;
  try {
    for await (const chunk of chunks) if (!consumer.chunk(chunk)) break;
  } catch (thrown) {
    error = thrown;
  }
  consumer.ended(error);
}

/** Why a connection that `host` closed before its handshake reply is of no use. */
export function closedDuringHandshake(host: HostAddress, closeError: Error | undefined): Error {
  return makeError(
    'CONNECTIONLOSS',
    closeError
      ? `${formatHost(host)} closed the connection during the handshake: ${closeError.message} (a server at its limit of connections from one address, maxClientCnxns, does that)`
      : `${formatHost(host)} closed the connection during the handshake: it refused the session (its limit of connections from one address, maxClientCnxns, 60 by default, may be reached; or it is read-only, or behind our last zxid; its log says which)`,
    { cause: closeError },
  );
}

/**
 * An established connection failed on `error`. When it is a frame over the size limit, every
 * earlier frame was handled, so the oversized frame is the reply to the oldest pending request (a
 * huge child list): that caller is told why, or it would see a bare CONNECTIONLOSS and retry
 * forever.
 */
export function oversizedReply(ctx: SessionContext, error: unknown): void {
  if (!(error instanceof FrameSizeError) || error.length <= error.limit) return;
  const head = ctx.pending.shift();
  head?.settle(
    new ProtocolError(
      `the reply to ${head.op} is over the ${ctx.maxFrameSize}-byte frame limit (${error.message}); raise maxFrameSize (the server's jute.maxbuffer must allow it too)`,
      { op: head.op, path: head.path },
    ),
  );
}

/** The session sits on a read-only server: look for a read-write one, and leave for it. */
export function seekReadWrite(
  ctx: SessionContext,
  connection: Connection,
  host: HostAddress,
): void {
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
