// The session manager: finds a server, keeps one connection alive, pipelines requests over it and
// resumes the same session on another server when the link breaks, until the session ends. This
// file holds the session's state and its endings; wiring.ts connects the parts to it: the
// connect loop (connect-loop.ts) dials, serve.ts runs a connection, the handshake (handshake.ts)
// turns it into the session's link and back, identity.ts keeps what the server said about the
// session, replies.ts and submit.ts are the two directions of traffic. Members marked @internal
// are the wiring's to read.
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
import { RenewalLog, type SessionRenewal } from './renewal.js';
import type { AuthEntry, PendingRequest } from './requests.js';
import type { SaslOptions } from './sasl/options.js';
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
import { SessionWiring, type WiredSession } from './wiring.js';

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

export class Session implements WiredSession {
  readonly watches = new WatchRegistry();
  readonly chroot: string;
  /** @internal */ readonly machine: StateMachine;
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
  /** @internal Credentials, re-sent with every handshake (read by the wiring). */
  readonly auth: AuthEntry[];
  /** The routes the session's parts talk through: one object, see wiring.ts. */
  private readonly wiring: SessionWiring;
  /** @internal */ readonly identity: SessionIdentity;
  /** @internal The established connection while there is one; the countdown to expiry while not. */
  readonly links: LinkKeeper;
  private xid = 0;
  private readonly stop = new AbortController();
  private loop: Promise<void> | null = null;
  private closing: Promise<void> | null = null;
  /** @internal The server acknowledged closeSession: never reconnect after that. */
  closeAnswered = false;
  /** @internal Why the last link or attempt ended (reported when connect() gives up). */
  lastError: unknown = null;
  /** Why the session ended, when something other than the state says it best. */
  private endReason: ZooKeeperError | null = null;
  /** @internal When start()'s connectTimeout runs out (the first pass shares its budget). */
  connectDeadline: number | null = null;
  /** The client is over for good (a final state without renewal): nothing is sent any more. */
  private over = false;
  /** A server granted a session at least once: from then on an expiry renews (if enabled). */
  private established = false;
  /** @internal */ readonly renewals = new RenewalLog();
  /** @internal For the telemetry: since when a server is sought, and the last one connected to. */
  readonly connects = new ConnectLog();

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
    this.auth = config.auth.map(({ scheme, auth }) => ({ scheme, auth, waiters: [] }));
    this.wiring = new SessionWiring(this, {
      clock: this.clock,
      hosts: config.hosts,
      transport: config.transport,
      tls: config.tls,
      sasl: config.sasl,
      stop: this.stop.signal,
      maxFrameSize: this.maxFrameSize,
      chroot: this.chroot,
      watches: this.watches,
      outbox: this.outbox,
      pending: this.pending,
      authInFlight: this.authInFlight,
      identity: this.identity,
    });
    this.links = new LinkKeeper(this.wiring);
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
    this.loop = connectLoop(this.wiring);
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

  /** @internal The next xid, as the Java client counts: 1 .. 2^31-1, then 1 again. */
  nextXid(): number {
    this.xid = this.xid >= MAX_XID ? 1 : this.xid + 1;
    return this.xid;
  }

  // ---- sessions come and go ----------------------------------------------------------------

  /** @internal A server granted a session: the first, a resumed one, or a successor. */
  adopted(): void {
    this.established = true;
    this.connectDeadline = null;
    this.renewals.granted(this.identity.id);
  }

  /** @internal The server session is over: renew it (when enabled and one was had) or end. */
  expire(error: ZooKeeperError): void {
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

  /** @internal */
  authFailed(error: ZooKeeperError): void {
    void this.shutdown('auth-failed', error);
  }

  /** @internal The transport refused our settings: no retry can succeed. */
  unusable(error: ZooKeeperError): void {
    void this.shutdown('closed', error);
  }

  /** @internal Over for good, or closed on the server: the connect loop stops. */
  get finished(): boolean {
    return this.over || this.closeAnswered;
  }

  /** @internal Whether a read-only server may be used (ConnectOptions.canBeReadOnly). */
  get readOnlyAllowed(): boolean {
    return this.config.readOnly;
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
