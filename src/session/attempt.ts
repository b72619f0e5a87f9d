// One connection attempt, from the dial to the end of the connection: dial within the attempt's
// budget, write the ConnectRequest, hand the first frame to the handshake and every later one to
// the reply path, and when the connection ends say why and whether a session was had.
//
// An object driven by callbacks (the dial's promise, the socket's chunks, the timers), not an
// async function: an established connection may stay idle for hours, and a parked async
// function keeps its generator, register file, promises and closures, about 1.5 KB per session
// that a process holding thousands of sessions pays for nothing.
import { makeError, ZooKeeperError } from '../protocol/errors.js';
import { FrameDecoder, type FrameSink } from '../protocol/frame.js';
import type { Interruptible, SessionContext } from './context.js';
import { handshake, linkLost } from './handshake.js';
import { formatHost, type HostAddress } from './hosts.js';
import { routeReply } from './replies.js';
import { closedDuringHandshake, oversizedReply, readChunks, seekReadWrite } from './serve.js';
import type { Connection } from './transport.js';
import type { ChunkConsumer } from './transports/chunk-queue.js';

/** Told once when an attempt is over: whether a session was established on its connection. */
export interface AttemptOwner {
  attemptEnded(established: boolean): void;
}

export class Attempt implements Interruptible, ChunkConsumer, FrameSink {
  /**
   * Only for the dial (the transport's seam takes a signal): dropped once connected, after which
   * `cut` closes the connection itself. An AbortSignal with its listener maps costs about 700
   * bytes, which a connection would otherwise carry for life.
   */
  private dialling: AbortController | null = new AbortController();
  private cutShort = false;
  private cutReason: unknown = undefined;
  private connection: Connection | null = null;
  /**
   * Made when the budget runs out, not up front: an error made at the start would keep its
   * message and stack trace (about 1 KB) as long as the connection.
   */
  private timedOut: ZooKeeperError | undefined = undefined;
  private handshakeTimer: unknown = null;
  private decoder: FrameDecoder | null = null;
  private established = false;
  /** The first frame refused the session: the rest of the stream is not read. */
  private refused = false;
  /** The server restarts a resumed session's expiry clock no earlier than this. */
  private connectSentAt = 0;
  /** ctx.lastError when serving began (kept when a cut explains less). */
  private earlier: unknown = null;
  private over = false;

  constructor(
    private readonly ctx: SessionContext,
    private readonly host: HostAddress,
    private readonly budget: number,
    private readonly owner: AttemptOwner,
  ) {}

  /** Dials; the owner hears of the end (never synchronously). */
  start(): void {
    const { ctx, host } = this;
    // The session stopping ends the attempt (ctx.halt interrupts it).
    ctx.waiting = this;
    this.handshakeTimer = ctx.clock.setTimeout(() => this.outOfTime(), this.budget);
    let dial: Promise<Connection>;
    try {
      dial = ctx.transport.connect({
        host: host.host,
        port: host.port,
        tls: ctx.tls,
        signal: this.dialling!.signal,
      });
    } catch (error) {
      dial = Promise.reject(error);
    }
    dial.then(
      (connection) => this.dialled(connection),
      (error: unknown) => this.failed(error),
    );
  }

  /** Ends the attempt early (the session stops, or the handshake budget ran out). */
  interrupt(reason: unknown): void {
    if (this.cutShort) return;
    this.cutShort = true;
    this.cutReason = reason;
    this.dialling?.abort(reason);
    this.connection?.close();
  }

  private outOfTime(): void {
    this.handshakeTimer = null;
    this.timedOut = makeError(
      'CONNECTIONLOSS',
      `no handshake from ${formatHost(this.host)} within ${this.budget} ms`,
    );
    this.interrupt(this.timedOut);
  }

  private dialled(connection: Connection): void {
    const { ctx } = this;
    this.connection = connection;
    this.dialling = null;
    // Stopped (or timed out) while the transport was still dialling: a transport that completes
    // the dial anyway must not get a handshake, which would open a session nobody ends.
    if (this.cutShort) {
      this.failed(this.cutReason);
      return;
    }
    this.earlier = ctx.lastError;
    this.decoder = new FrameDecoder(ctx.maxFrameSize);
    this.connectSentAt = ctx.clock.now();
    try {
      connection.write(ctx.identity.connectRequest(ctx.readOnlyAllowed));
    } catch (error) {
      this.failed(error);
      return;
    }
    readChunks(connection.chunks, this);
  }

  /** @internal The connection's: a chunk arrived. */
  chunk(chunk: Uint8Array): boolean {
    // Frames are handled as they are decoded, so that the replies ahead of an oversized one in
    // the same chunk are delivered before the oversized length ends the stream.
    // One clock read per chunk: the link's heartbeat hears of every frame in it at once (all had
    // arrived by now), and what their routing queues is written stamped with it (Outbox.release).
    const ctx = this.ctx;
    const now = ctx.clock.now();
    if (this.established) ctx.link?.heartbeat.heard(now);
    const outbox = ctx.outbox;
    outbox.hold();
    try {
      this.decoder!.decode(chunk, this);
    } finally {
      outbox.release(now);
    }
    return !this.refused;
  }

  /** @internal The decoder's: one whole frame, `length` bytes of `bytes` from `start`. */
  frame(bytes: Uint8Array, start: number, length: number): void {
    if (this.refused) return;
    // Every frame but the first: straight to the reply path, reading nothing else of the attempt.
    if (this.established) {
      routeReply(bytes, start, length, this.ctx);
      return;
    }
    const { ctx, connection, host } = this;
    this.stopHandshakeTimer();
    const frame = new Uint8Array(bytes.buffer, bytes.byteOffset + start, length);
    if (!handshake(ctx, frame, connection!, host, this.connectSentAt)) {
      this.refused = true;
      return;
    }
    this.established = true;
    ctx.connected(host, ctx.link?.readOnly ?? false);
    if (ctx.link?.readOnly) seekReadWrite(ctx, connection!, host);
  }

  /** @internal The connection's: reading is over (`error`: what a frame's handling threw). */
  ended(error: unknown): void {
    // After the socket's callback, as an awaited stream would be.
    queueMicrotask(() => this.served(error));
  }

  /** The connection ended: say why, suspend the session if it was had, end the attempt. */
  private served(error: unknown): void {
    const { ctx, connection, host } = this;
    try {
      try {
        if (error === undefined) this.closed();
        else {
          // Malformed or hostile bytes: drop this link, keep the session, try the next host.
          ctx.lastError = error;
          if (this.established) oversizedReply(ctx, error);
        }
      } finally {
        if (this.established) linkLost(ctx, connection!, host);
      }
    } catch (thrown) {
      this.failed(thrown);
      return;
    }
    // We closed it (the budget ran out, or the session stopped) before a session was had:
    // serving saw only the stream end and blamed the server; the cut is what happened.
    if (!this.established && this.cutShort) this.blame(this.cutReason, this.earlier);
    this.finish(this.established);
  }

  /** The stream ended on its own: the server's close, a reset, or our own close. */
  private closed(): void {
    const { ctx, connection } = this;
    if (this.refused) return;
    const closeError = connection!.closeError;
    if (!this.established) ctx.lastError = closedDuringHandshake(this.host, closeError);
    else if (ctx.lastError === null && closeError) {
      // The peer or the network ended it (a reset, a TLS alert): that is the cause users see.
      ctx.lastError = closeError;
    }
  }

  /** The dial, the ConnectRequest or the serving failed with `error`. */
  private failed(error: unknown): void {
    const { ctx } = this;
    const reason: unknown = this.cutShort ? this.cutReason : error;
    this.blame(reason, ctx.lastError);
    if (error instanceof ZooKeeperError && error.code === 'BADARGUMENTS') {
      // The transport refused our settings (e.g. TLS options a runtime cannot honour): no
      // retry can succeed, so stop now with that reason instead of at connectTimeout.
      void ctx.shutdown('closed', error);
    }
    this.finish(false);
  }

  private finish(established: boolean): void {
    if (this.over) return;
    this.over = true;
    const { ctx } = this;
    this.stopHandshakeTimer();
    if (ctx.waiting === this) ctx.waiting = null;
    this.connection?.close();
    this.owner.attemptEnded(established);
  }

  private stopHandshakeTimer(): void {
    if (this.handshakeTimer === null) return;
    this.ctx.clock.clearTimeout(this.handshakeTimer);
    this.handshakeTimer = null;
  }

  /**
   * Records why the attempt failed. An attempt that connect()'s deadline cut short says only that
   * time ran out: the earlier failure (a refused certificate, a refused connection), when there
   * is one, says why, and is kept.
   */
  private blame(reason: unknown, earlier: unknown): void {
    const { ctx, timedOut } = this;
    const outOfTime =
      timedOut !== undefined &&
      reason === timedOut &&
      this.budget < ctx.identity.timers.connectTimeout;
    ctx.lastError = outOfTime && earlier ? earlier : reason;
  }
}
