// The session manager: finds a server, keeps one connection alive, pipelines requests over it and
// resumes the same session on another server when the link breaks, until the session ends. This
// file is the session's face to the client; its parts and state are one SessionContext
// (context.ts), passed as it is to the modules that do the work: the connect loop
// (connect-loop.ts) dials, attempt.ts runs a connection, the handshake (handshake.ts) turns it into
// the session's link and back, replies.ts and submit.ts are the two directions of traffic, and the
// context's own methods end or renew the session.
//
// Two queues. The outbox (outbox.ts) holds frames not yet written: user requests in it survive a
// reconnect and go out on the next connection. `pending` holds written requests awaiting replies,
// answered strictly in order; when a link breaks they fail with CONNECTIONLOSS, because nobody can
// know whether the server applied them.
import type { Codec } from '../protocol/codecs.js';
import { ClientClosedError } from '../protocol/errors.js';
import { requestTraced, traceRequest } from '../telemetry/request.js';
import { closeOnServer } from './close.js';
import { ConnectLoop } from './connect-loop.js';
import { type SessionConfig, SessionContext, type SessionRelay } from './context.js';
import { authFrame } from './control-frames.js';
import { frameTooLarge } from './frame-limit.js';
import type { HostAddress, HostList } from './hosts.js';
import type { SessionRenewal } from './renewal.js';
import type { AuthEntry } from './requests.js';
import { waitForFirstSession } from './startup.js';
import { type CallSink, queueCall, queueRequest, type SubmitDetails } from './submit.js';
import type { SessionState } from './types.js';
import type { WatchRegistry } from './watches.js';

export type { SessionConfig, SessionRelay } from './context.js';
export type { SessionRenewal } from './renewal.js';
export type { CallSink, SubmitDetails } from './submit.js';

export class Session {
  /** @internal The session's parts and state (see context.ts). */
  readonly ctx: SessionContext;

  constructor(config: SessionConfig) {
    // The context publishes its own state moves and renewals (no listener closures per session).
    this.ctx = new SessionContext(config);
  }

  get watches(): WatchRegistry {
    return this.ctx.watches;
  }
  get chroot(): string {
    return this.ctx.chroot;
  }
  get state(): SessionState {
    return this.ctx.state;
  }
  get sessionId(): bigint {
    return this.ctx.identity.id;
  }
  get sessionPassword(): Uint8Array {
    return this.ctx.identity.password;
  }
  /** The timeout the server granted (the requested one until then), ms. */
  get sessionTimeout(): number {
    return this.ctx.identity.timeout;
  }
  get lastZxid(): bigint {
    return this.ctx.identity.zxid;
  }
  get hostList(): HostList {
    return this.ctx.hosts;
  }
  /** The server the session is connected to, or null while not connected. */
  get server(): HostAddress | null {
    return this.ctx.link?.host ?? null;
  }

  onState(
    listener: (state: SessionState, previous: SessionState, cause?: Error) => void,
  ): () => void {
    return this.ctx.machine.subscribe(listener);
  }

  /**
   * Starts the connect loop. Resolves once a session is established and the initial credentials
   * are accepted; rejects (and closes) when that takes longer than `connectTimeout`, or at once
   * when `signal` aborts.
   */
  start(signal?: AbortSignal): Promise<void> {
    const { ctx } = this;
    ctx.seeking();
    ctx.connectDeadline = ctx.clock.now() + ctx.connectTimeout;
    ctx.loop = new ConnectLoop(ctx);
    ctx.loop.next();
    return waitForFirstSession(ctx, signal);
  }

  /**
   * Queues a request; it is written on the current connection or the next one. The promise
   * resolves with the decoded reply, or with `shape(reply)` (see {@link queueRequest}).
   */
  submit<Req, Res, Out = Res>(
    codec: Codec<Req, Res>,
    body: Req,
    details: SubmitDetails = {},
    shape?: (reply: Res) => Out,
  ): Promise<Out> {
    const { ctx } = this;
    const op = details.op ?? codec.name;
    if (ctx.over || ctx.closing) {
      return Promise.reject(ctx.finalError(op, details.path));
    }
    const signal = details.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const xid = ctx.nextXid();
    if (!requestTraced()) return queueRequest(ctx, xid, codec, body, details, shape);
    const start = { op, path: details.path, xid, sessionId: ctx.identity.id, chroot: ctx.chroot };
    return traceRequest(start, ctx.serverName(), (message) =>
      queueRequest(ctx, xid, codec, body, details, shape, message),
    );
  }

  /**
   * @internal {@link submit} with the outcome told to `sink.replied(step, ...)` instead of a
   * promise, never synchronously (see {@link queueCall}). With a request subscriber the call goes
   * through {@link submit}, so that telemetry sees it as any other request.
   */
  call<Req, Res, Out = Res>(
    codec: Codec<Req, Res>,
    body: Req,
    details: SubmitDetails,
    sink: CallSink,
    step: number,
    shape?: (reply: Res) => Out,
  ): void {
    const { ctx } = this;
    if (ctx.over || ctx.closing || details.signal?.aborted || requestTraced()) {
      this.submit(codec, body, details, shape).then(
        (value) => sink.replied(step, null, value),
        (error: Error) => sink.replied(step, error, undefined),
      );
      return;
    }
    queueCall(ctx, ctx.nextXid(), codec, body, details, sink, step, shape);
  }

  /** Adds credentials now and for every later reconnect; resolves when the server accepts them. */
  addAuth(scheme: string, auth: Uint8Array): Promise<void> {
    const { ctx } = this;
    if (ctx.over || ctx.closing) return Promise.reject(ctx.finalError('addAuth'));
    // Kept and re-sent with every handshake: one the server must refuse would loop forever.
    const tooLarge = frameTooLarge(
      authFrame({ scheme, auth, waiters: [] }).frame,
      ctx.maxFrameSize,
      'addAuth',
    );
    if (tooLarge) return Promise.reject(tooLarge);
    return new Promise((resolve, reject) => {
      const entry: AuthEntry = { scheme, auth, waiters: [{ resolve, reject }] };
      ctx.auth.push(entry);
      // When not connected, the next handshake sends it with the others.
      if (ctx.link) ctx.outbox.push(authFrame(entry));
    });
  }

  /**
   * Sets the one relay told of every state move and renewal before any subscriber (the client):
   * an object instead of two subscribed closures and the sets that hold them.
   */
  relayTo(relay: SessionRelay): void {
    this.ctx.relay = relay;
  }

  /** Listens to renewals (a new session after an expiry); returns the unsubscribe function. */
  onRenewed(listener: (renewal: SessionRenewal) => void): () => void {
    return this.ctx.renewals.subscribe(listener);
  }

  close(): Promise<void> {
    const { ctx } = this;
    if (!ctx.closing) ctx.closing = closeSession(ctx);
    return ctx.closing;
  }

  /** Drops the current connection (for tests of failover and for moving to another server). */
  dropConnection(reason = 'dropped by the client'): void {
    this.ctx.dropConnection(reason);
  }
}

/** Ends the session on the server (its ephemeral nodes go at once), then here. */
async function closeSession(ctx: SessionContext): Promise<void> {
  await closeOnServer(ctx);
  await ctx.shutdown('closed', new ClientClosedError());
}
