// The session manager: finds a server, keeps one connection alive, pipelines requests over it and
// resumes the same session on another server when the link breaks, until the session ends. This
// file holds the session's state and its endings and wires the parts: the connect loop
// (connect-loop.ts) dials, serve.ts runs a connection, the handshake (handshake.ts) turns it into
// the session's link and back, identity.ts keeps what the server said about the session,
// replies.ts and submit.ts are the two directions of traffic.
//
// Two queues. The outbox (outbox.ts) holds frames not yet written: user requests in it survive a
// reconnect and go out on the next connection. `pending` holds written requests awaiting replies,
// answered strictly in order; when a link breaks they fail with CONNECTIONLOSS, because nobody can
// know whether the server applied them.
import type { Codec } from '../protocol/codecs.js';
import { makeError, type ZooKeeperError } from '../protocol/errors.js';
import { DEFAULT_MAX_FRAME } from '../protocol/frame.js';
import { requestTraced, traceRequest } from '../telemetry/request.js';
import { ConnectLog, sessionRenewed, sessionStateChanged } from '../telemetry/session.js';
import { type Clock, systemClock } from './clock.js';
import { closeOnServer } from './close.js';
import { connectLoop } from './connect-loop.js';
import { authFrame } from './control-frames.js';
import { LinkKeeper } from './handshake.js';
import { formatHost, type HostAddress, type HostList } from './hosts.js';
import { SessionIdentity } from './identity.js';
import { Outbox } from './outbox.js';
import { failAll, takeOwed } from './owed.js';
import { Deque } from './queue.js';
import { leaveForReadWrite } from './readonly-probe.js';
import { RenewalLog, type SessionRenewal } from './renewal.js';
import { type ReplyRoute, routeReply } from './replies.js';
import type { AuthEntry, PendingRequest } from './requests.js';
import { openForRequests } from './restore.js';
import type { SaslOptions } from './sasl/options.js';
import { type ServeRoute, serveConnection } from './serve.js';
import { waitForFirstSession } from './startup.js';
import { StateMachine } from './state.js';
import {
  type CallSink,
  frameTooLarge,
  queueCall,
  queueRequest,
  type SubmitDetails,
  type SubmitRoute,
} from './submit.js';
import type { Transport } from './transport.js';
import type { SessionState, TlsOptions } from './types.js';
import { WatchRegistry } from './watches.js';

/** The largest xid (int32); the next one wraps to 1. */
const MAX_XID = 0x7fff_ffff;

export interface SessionConfig {
  hosts: HostList;
  chroot: string;
  sessionTimeout: number;
  connectTimeout: number;
  readOnly: boolean;
  auth: readonly { scheme: string; auth: Uint8Array }[];
  /** SASL credentials, exchanged on every connection before any other request. */
  sasl?: SaslOptions;
  tls?: TlsOptions;
  transport: Transport;
  maxFrameSize?: number;
  /** Each call gives up (REQUESTTIMEOUT) after this many ms without a reply; 0 = no limit. */
  requestTimeout?: number;
  clock?: Clock;
  resume?: { id: bigint; password: Uint8Array };
  /**
   * After an expiry, open a new session on the same client (see state.ts) instead of ending.
   * Only once a session was established: a first connect that resumes an expired session fails.
   */
  renew?: boolean;
}

export type { SessionRenewal } from './renewal.js';

export type { CallSink, SubmitDetails } from './submit.js';

export class Session {
  readonly watches = new WatchRegistry();
  readonly chroot: string;
  private readonly machine: StateMachine;
  private readonly clock: Clock;
  private readonly maxFrameSize: number;
  /** What queueing a request needs: one object for the session's life, not one per request. */
  private readonly submitRoute: SubmitRoute;
  private readonly outbox = new Outbox((item) => {
    if (item.kind === 'auth') this.authInFlight.push(item.entry);
    else if (item.request) {
      this.pending.push(item.request);
      if (item.request.trace) item.request.trace.server = this.serverName();
    }
    this.links.current?.heartbeat.sent();
  });
  private readonly pending = new Deque<PendingRequest>();
  private readonly authInFlight = new Deque<AuthEntry>();
  private readonly auth: AuthEntry[];
  private readonly replies: ReplyRoute;
  private readonly serving: ServeRoute;
  private readonly identity: SessionIdentity;
  /** The established connection while there is one; the countdown to expiry while not. */
  private readonly links: LinkKeeper;
  private xid = 0;
  private readonly stop = new AbortController();
  private loop: Promise<void> | null = null;
  private closing: Promise<void> | null = null;
  /** The server acknowledged closeSession: never reconnect after that. */
  private closeAnswered = false;
  private lastError: unknown = null;
  /** Why the session ended, when something other than the state says it best. */
  private endReason: ZooKeeperError | null = null;
  /** When start()'s connectTimeout runs out (the first pass's budget is shared up to it). */
  private connectDeadline: number | null = null;
  /** The client is over for good (a final state without renewal): nothing is sent any more. */
  private over = false;
  /** A server granted a session at least once: from then on an expiry renews (if enabled). */
  private established = false;
  private readonly renewals = new RenewalLog();
  /** For the telemetry: since when a server is sought, and the last one connected to. */
  private readonly connects = new ConnectLog();

  constructor(private readonly config: SessionConfig) {
    this.chroot = config.chroot;
    this.machine = new StateMachine(config.renew ?? false);
    this.clock = config.clock ?? systemClock;
    this.maxFrameSize = config.maxFrameSize ?? DEFAULT_MAX_FRAME;
    this.submitRoute = {
      clock: this.clock,
      outbox: this.outbox,
      maxFrameSize: this.maxFrameSize,
      requestTimeout: config.requestTimeout,
    };
    this.identity = new SessionIdentity(config.sessionTimeout, config.hosts.size, config.resume);
    this.links = new LinkKeeper({
      clock: this.clock,
      hosts: config.hosts,
      identity: this.identity,
      outbox: this.outbox,
      pending: this.pending,
      authInFlight: this.authInFlight,
      sasl: config.sasl,
      state: () => this.state,
      closeAnswered: () => this.closeAnswered,
      lastError: () => this.lastError,
      failed: (error) => {
        this.lastError = error;
      },
      nextXid: () => this.nextXid(),
      suspend: (cause) => {
        this.connects.seeking(this.clock.now());
        this.renewals.linkLost();
        this.machine.transition('suspended', cause);
      },
      expire: (error) => this.expire(error),
      adopted: () => this.adopted(),
      authFailed: (error) => this.authFailed(error),
      open: (connection, readOnly) =>
        openForRequests(
          {
            auth: this.auth,
            watches: this.watches,
            chroot: this.chroot,
            outbox: this.outbox,
            lastZxid: () => this.identity.zxid,
            isCurrent: (c) => this.links.isCurrent(c),
            announce: (state) => this.machine.transition(state),
            resync: () => {
              const gap = this.renewals.takeGap();
              if (gap) this.watches.resync(gap);
            },
          },
          connection,
          readOnly,
        ),
    });
    this.auth = config.auth.map(({ scheme, auth }) => ({ scheme, auth, waiters: [] }));
    this.replies = {
      chroot: this.chroot,
      watches: this.watches,
      pending: this.pending,
      authInFlight: this.authInFlight,
      heard: () => this.links.current?.heartbeat.heard(),
      zxidSeen: (zxid) => {
        this.identity.zxid = zxid;
      },
      authFailed: (error) => this.authFailed(error),
    };
    this.serving = {
      maxFrameSize: this.maxFrameSize,
      pending: this.pending,
      connectRequest: () => this.identity.connectRequest(this.config.readOnly),
      handshake: (frame, connection, host) => {
        const established = this.links.handshake(frame, connection, host);
        const readOnly = this.links.current?.readOnly ?? false;
        if (established)
          this.connects.connected(this.identity.id, host, readOnly, this.clock.now());
        return established;
      },
      reply: (frame) => routeReply(frame, this.replies),
      established: (connection, host) => {
        if (!this.links.current?.readOnly) return;
        void leaveForReadWrite({
          connection,
          current: host,
          hosts: this.config.hosts,
          transport: this.config.transport,
          tls: this.config.tls,
          clock: this.clock,
          stop: this.stop.signal,
          isCurrent: (c) => this.links.isCurrent(c),
          leave: (found) =>
            this.dropConnection(
              `${formatHost(found)} serves reads and writes; leaving the read-only server`,
            ),
        });
      },
      lastError: () => this.lastError,
      failed: (error) => {
        this.lastError = error;
      },
      lost: (connection, host) => this.links.lost(connection, host),
    };
    this.machine.subscribe((state, previous, cause) =>
      sessionStateChanged(this.identity.id, state, previous, cause, this.connects.lastServer),
    );
    this.renewals.subscribe((r) => sessionRenewed(r.previousSessionId, r.sessionId));
  }

  get state(): SessionState {
    return this.machine.state;
  }
  get sessionId(): bigint {
    return this.identity.id;
  }
  get sessionPassword(): Uint8Array {
    return this.identity.password;
  }
  get sessionTimeout(): number {
    return this.identity.timeout;
  }
  get lastZxid(): bigint {
    return this.identity.zxid;
  }
  get hostList(): HostList {
    return this.config.hosts;
  }
  /** The server the session is connected to, or null while not connected. */
  get server(): HostAddress | null {
    return this.links.current?.host ?? null;
  }

  onState(
    listener: (state: SessionState, previous: SessionState, cause?: Error) => void,
  ): () => void {
    return this.machine.subscribe(listener);
  }

  /**
   * Starts the connect loop. Resolves once a session is established and the initial credentials
   * are accepted; rejects (and closes) when that takes longer than `connectTimeout`.
   */
  start(): Promise<void> {
    this.connects.seeking(this.clock.now());
    this.connectDeadline = this.clock.now() + this.config.connectTimeout;
    this.loop = connectLoop({
      clock: this.clock,
      hosts: this.config.hosts,
      transport: this.config.transport,
      tls: this.config.tls,
      stop: this.stop.signal,
      running: () => !this.over && !this.closeAnswered,
      timers: () => this.identity.timers,
      sessionTimeout: () => this.identity.timeout,
      deadline: () => (this.state === 'connecting' ? this.connectDeadline : null),
      serve: (connection, host, handshakeDone) =>
        serveConnection(this.serving, connection, host, handshakeDone),
      failed: (error) => {
        this.lastError = error;
      },
      lastError: () => this.lastError,
      unusable: (error) => void this.shutdown('closed', error),
    });
    return waitForFirstSession({
      clock: this.clock,
      hosts: this.config.hosts,
      connectTimeout: this.config.connectTimeout,
      auth: this.auth,
      subscribe: (listener) => this.machine.subscribe(listener),
      endError: () => this.endReason ?? this.finalError(),
      lastError: () => this.lastError,
      timedOut: (error) => void this.shutdown('closed', error),
    });
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
    const op = details.op ?? codec.name;
    if (this.over || this.closing) {
      return Promise.reject(this.finalError(op, details.path));
    }
    const signal = details.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const xid = this.nextXid();
    if (!requestTraced()) return queueRequest(this.submitRoute, xid, codec, body, details, shape);
    const start = { op, path: details.path, xid, sessionId: this.identity.id, chroot: this.chroot };
    return traceRequest(start, this.serverName(), (message) =>
      queueRequest(this.submitRoute, xid, codec, body, details, shape, message),
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
    if (this.over || this.closing || details.signal?.aborted || requestTraced()) {
      this.submit(codec, body, details, shape).then(
        (value) => sink.replied(step, null, value),
        (error: Error) => sink.replied(step, error, undefined),
      );
      return;
    }
    queueCall(this.submitRoute, this.nextXid(), codec, body, details, sink, step, shape);
  }

  /** Adds credentials now and for every later reconnect; resolves when the server accepts them. */
  addAuth(scheme: string, auth: Uint8Array): Promise<void> {
    if (this.over || this.closing) return Promise.reject(this.finalError('addAuth'));
    // Kept and re-sent with every handshake: one the server must refuse would loop forever.
    const tooLarge = frameTooLarge(
      authFrame({ scheme, auth, waiters: [] }).frame,
      this.maxFrameSize,
      'addAuth',
    );
    if (tooLarge) return Promise.reject(tooLarge);
    return new Promise((resolve, reject) => {
      const entry: AuthEntry = { scheme, auth, waiters: [{ resolve, reject }] };
      this.auth.push(entry);
      // When not connected, the next handshake sends it with the others.
      if (this.links.current) this.outbox.push(authFrame(entry));
    });
  }

  /** Listens to renewals (a new session after an expiry); returns the unsubscribe function. */
  onRenewed(listener: (renewal: SessionRenewal) => void): () => void {
    return this.renewals.subscribe(listener);
  }

  close(): Promise<void> {
    if (!this.closing) this.closing = this.closeSession();
    return this.closing;
  }

  /** Drops the current connection (for tests of failover and for moving to another server). */
  dropConnection(reason = 'dropped by the client'): void {
    const link = this.links.current;
    if (!link) return;
    this.lastError = makeError('CONNECTIONLOSS', reason);
    link.connection.close();
  }

  /** `host:port` of the current server, or null. */
  private serverName(): string | null {
    const host = this.links.current?.host;
    return host ? formatHost(host) : null;
  }

  // ---- writing -----------------------------------------------------------------------------

  private nextXid(): number {
    // The Java client's rule: 1 .. 2^31-1, wrapping to 1; 0 and negatives are reserved.
    this.xid = this.xid >= MAX_XID ? 1 : this.xid + 1;
    return this.xid;
  }

  // ---- sessions come and go ----------------------------------------------------------------

  /** A server granted a session: the first one, one resumed, or the successor of an expired one. */
  private adopted(): void {
    this.established = true;
    this.connectDeadline = null;
    this.renewals.granted(this.identity.id);
  }

  /** The server session is over: renew it (when enabled, and a session was had) or end here. */
  private expire(error: ZooKeeperError): void {
    if (!this.config.renew || !this.established || this.closing) {
      void this.shutdown('expired', error);
      return;
    }
    // What the old session owed is taken first, so that a call made by a listener of the expiry
    // waits for the new session instead of failing with the old one.
    const owed = takeOwed(this.pending, this.outbox, this.authInFlight);
    this.links.end(() => this.machine.transition('expired', error));
    failAll(owed, error);
    this.watches.endOneShot('expired');
    this.renewals.expired(this.identity.id);
    this.identity.retire(this.config.hosts.size);
    // The connect loop runs on: its next handshake asks for a new session.
    this.machine.transition('connecting');
  }

  // ---- endings -----------------------------------------------------------------------------

  private authFailed(error: ZooKeeperError): void {
    void this.shutdown('auth-failed', error);
  }

  private finalError(op?: string, path?: string): ZooKeeperError {
    const details = { op, path };
    switch (this.state) {
      case 'expired':
        return makeError('SESSIONEXPIRED', `session ${this.identity.hexId} has expired`, details);
      case 'auth-failed':
        return makeError('AUTHFAILED', 'authentication failed; the session is unusable', details);
      default:
        return makeError('SESSIONEXPIRED', 'the client is closed', details);
    }
  }

  /** Moves to a final state and fails everything that waits. */
  private async shutdown(
    state: 'expired' | 'auth-failed' | 'closed',
    error: ZooKeeperError,
  ): Promise<void> {
    if (this.over) return;
    this.over = true;
    this.endReason = error;
    const owed = takeOwed(this.pending, this.outbox, this.authInFlight);
    this.links.end(() => {
      this.machine.transition(state, error);
      this.stop.abort(error);
    });
    failAll(owed, error);
    for (const entry of this.auth)
      for (const waiter of entry.waiters.splice(0)) waiter.reject(error);
    this.watches.endAll(state, error);
    await this.loop?.catch(() => {});
  }

  /** Ends the session on the server (its ephemeral nodes go at once), then here. */
  private async closeSession(): Promise<void> {
    await closeOnServer({
      clock: this.clock,
      state: () => this.state,
      subscribe: (listener) => this.machine.subscribe(listener),
      sessionId: () => this.identity.id,
      sessionTimeout: () => this.identity.timeout,
      nextXid: () => this.nextXid(),
      send: (item) => this.outbox.push(item),
      answered: () => {
        this.closeAnswered = true;
      },
    });
    await this.shutdown('closed', makeError('SESSIONEXPIRED', 'the client is closed'));
  }
}
