// The session's one context: its parts and its changing state in one object, passed as it is to
// every module of the engine (the connect loop, serving a connection, the handshake, the reply
// path, the endings), which read and change it directly. Nothing is routed through callbacks: a
// part is added here, once, and every module sees it.
//
// The context's methods are prototype methods, not closures: a process may hold thousands of idle
// sessions, and each closure would cost every one of them its function and context for life.
import { ClientClosedError, makeError, type ZooKeeperError } from '../protocol/errors.js';
import { DEFAULT_MAX_FRAME } from '../protocol/frame.js';
import { sessionConnected, sessionRenewed, sessionStateChanged } from '../telemetry/session.js';
import { type Clock, systemClock } from './clock.js';
import type { ConnectLoop } from './connect-loop.js';
import { PING_FRAME } from './control-frames.js';
import { formatHost, type HostAddress, type HostList } from './hosts.js';
import { SessionIdentity } from './identity.js';
import { dropLink, type Link, type LinkEvents } from './link.js';
import { Outbox, type OutboxOwner } from './outbox.js';
import { failAll, takeOwed } from './owed.js';
import { Deque } from './queue.js';
import { RenewalLog, type RenewalObserver, type SessionRenewal } from './renewal.js';
import type { AuthEntry, Outbound, PendingRequest } from './requests.js';
import type { OpenRoute } from './restore.js';
import type { SaslOptions } from './sasl/options.js';
import { StateMachine, type StateObserver } from './state.js';
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

/**
 * The one party told of every state move and renewal right after telemetry, before any
 * subscriber (the client's listeners): an object with methods, so that a client costs its
 * session no listener closures or sets.
 */
export interface SessionRelay {
  stateChanged(state: SessionState, previous: SessionState, cause: Error | undefined): void;
  renewed(renewal: SessionRenewal): void;
}

/** What the connect loop waits on (an attempt, a pause): ended early when the session stops. */
export interface Interruptible {
  interrupt(reason: unknown): void;
}

/** A final state the session can end in. */
export type Ending = 'expired' | 'auth-failed' | 'closed';

export class SessionContext
  implements OutboxOwner, LinkEvents, OpenRoute, StateObserver, RenewalObserver
{
  // ---- fixed for the session's life ------------------------------------------------------
  readonly clock: Clock;
  readonly hosts: HostList;
  readonly transport: Transport;
  readonly tls: TlsOptions | undefined;
  readonly sasl: SaslOptions | undefined;
  readonly chroot: string;
  readonly maxFrameSize: number;
  /** Each call gives up after this many ms without a reply; 0 or undefined = no limit. */
  readonly requestTimeout: number | undefined;
  /** How long start() waits for the first session. */
  readonly connectTimeout: number;
  /** Whether a read-only server may be used (ConnectOptions.canBeReadOnly). */
  readonly readOnlyAllowed: boolean;
  /** After an expiry, a new session is sought (once one was established). */
  readonly renews: boolean;

  // ---- the parts -------------------------------------------------------------------------
  readonly watches = new WatchRegistry();
  /** Frames not yet written (user requests survive a reconnect in it). */
  readonly outbox: Outbox = new Outbox(this);
  /** Written requests awaiting replies, answered strictly in order. */
  readonly pending = new Deque<PendingRequest>();
  /** Written credentials awaiting replies: re-sent (with their waiters) by the next handshake. */
  readonly authInFlight = new Deque<AuthEntry>();
  /** Credentials, re-sent with every handshake. */
  readonly auth: AuthEntry[];
  /** What the session is on the server; its `timeout` is the one session timeout everyone reads. */
  readonly identity: SessionIdentity;
  readonly machine: StateMachine;
  readonly renewals: RenewalLog = new RenewalLog(this);

  // ---- what changes --------------------------------------------------------------------
  /** The established connection while there is one. */
  link: Link | null = null;
  /** The countdown to expiry while there is no link (see handshake.ts). */
  expiryTimer: unknown = null;
  /** Why the last link or attempt ended (reported when connect() gives up). */
  lastError: unknown = null;
  /** The server acknowledged closeSession: never reconnect after that. */
  closeAnswered = false;
  /** When start()'s connectTimeout runs out (the first pass shares its budget); null after. */
  connectDeadline: number | null = null;
  /** The client is over for good (a final state without renewal): nothing is sent any more. */
  over = false;
  /** A server granted a session at least once: from then on an expiry renews (if enabled). */
  established = false;
  /** Why the session ended, when something other than the state says it best. */
  endReason: ZooKeeperError | null = null;
  /** The last xid handed out. */
  xid = 0;
  /** The connect loop, once started. */
  loop: ConnectLoop | null = null;
  /** close(), once called. */
  closing: Promise<void> | null = null;
  /** The session ended for good: the connect loop stops (see halt). */
  stopped = false;
  /** Why it stopped. */
  stopReason: unknown = undefined;
  /** The connect loop's current attempt or pause, which halt() ends early; null between. */
  waiting: Interruptible | null = null;
  /**
   * Made only when a wait needs an AbortSignal (the read-only probe): an AbortController with its
   * signal and listener maps is about 500 bytes, which every idle session would carry for life.
   */
  private stopController: AbortController | null = null;
  /** Since when a server is sought (connect() or the lost link), ms on the session's clock. */
  seekingSince = 0;
  /** `host:port` of the last server a handshake succeeded with; null before the first. */
  lastServer: string | null = null;
  /** Told of every state move and renewal after telemetry (the client; see SessionRelay). */
  relay: SessionRelay | null = null;

  constructor(config: SessionConfig) {
    this.clock = config.clock ?? systemClock;
    this.hosts = config.hosts;
    this.transport = config.transport;
    this.tls = config.tls;
    this.sasl = config.sasl;
    this.chroot = config.chroot;
    this.maxFrameSize = config.maxFrameSize ?? DEFAULT_MAX_FRAME;
    this.requestTimeout = config.requestTimeout;
    this.connectTimeout = config.connectTimeout;
    this.readOnlyAllowed = config.readOnly;
    this.renews = config.renew ?? false;
    this.auth = config.auth.map(({ scheme, auth }) => ({ scheme, auth, waiters: [] }));
    this.identity = new SessionIdentity(config.sessionTimeout, config.hosts.size, config.resume);
    this.machine = new StateMachine(this.renews, this);
  }

  get state(): SessionState {
    return this.machine.state;
  }

  /** Over for good, or closed on the server: the connect loop stops. */
  get finished(): boolean {
    return this.over || this.closeAnswered;
  }

  /** The next xid, as the Java client counts: 1 .. 2^31-1, then 1 again. */
  nextXid(): number {
    this.xid = this.xid >= MAX_XID ? 1 : this.xid + 1;
    return this.xid;
  }

  /** `host:port` of the current server, or null. */
  serverName(): string | null {
    const host = this.link?.host;
    return host ? formatHost(host) : null;
  }

  /** Whether `connection` is the session's link (it may have broken meanwhile). */
  isCurrent(connection: unknown): boolean {
    return this.link?.connection === connection;
  }

  /** Aborted when the session ends for good (made on first use). */
  get stopSignal(): AbortSignal {
    if (!this.stopController) {
      this.stopController = new AbortController();
      if (this.stopped) this.stopController.abort(this.stopReason);
    }
    return this.stopController.signal;
  }

  /** Stops the connect loop: its attempt or pause ends now, and every wait on stopSignal. */
  halt(reason: unknown): void {
    if (this.stopped) return;
    this.stopped = true;
    this.stopReason = reason;
    this.waiting?.interrupt(reason);
    this.stopController?.abort(reason);
  }

  /** Drops the current connection; `reason` is what the lost calls and the state report. */
  dropConnection(reason: string): void {
    const link = this.link;
    if (!link) return;
    this.lastError = makeError('CONNECTIONLOSS', reason);
    link.connection.close();
  }

  /** The session starts looking for a server (connect(), or the link broke). */
  seeking(): void {
    this.seekingSince = this.clock.now();
  }

  /** A handshake with `host` established the session: the connect event says how long it took. */
  connected(host: HostAddress, readOnly: boolean): void {
    const reconnect = this.lastServer !== null;
    this.lastServer = formatHost(host);
    const duration = this.clock.now() - this.seekingSince;
    sessionConnected(this.identity.id, this.lastServer, reconnect, readOnly, duration);
  }

  // ---- told by the parts -------------------------------------------------------------------

  /** The state machine's: every move is published, then relayed (before any subscriber hears of it). */
  stateChanged(state: SessionState, previous: SessionState, cause: Error | undefined): void {
    try {
      sessionStateChanged(this.identity.id, state, previous, cause, this.lastServer);
    } finally {
      this.relay?.stateChanged(state, previous, cause);
    }
  }

  /** The renewal log's: every renewal is published, then relayed (before any subscriber hears of it). */
  renewed(renewal: SessionRenewal): void {
    try {
      sessionRenewed(renewal.previousSessionId, renewal.sessionId);
    } finally {
      this.relay?.renewed(renewal);
    }
  }

  /** The outbox's: `item` is being written on the current connection, at `now` (or just after). */
  written(item: Outbound, now: number): void {
    // The outbox's one clock reading per write serves the request's send time and the heartbeat's.
    if (item.kind === 'auth') this.authInFlight.push(item.entry);
    else if (item.request) {
      // Its reply will prove the server heard from us no earlier than now (see heartbeat.ts).
      item.request.sentAt = now;
      this.pending.push(item.request);
      if (item.request.trace) item.request.trace.server = this.serverName();
    } else if (item.frame === PING_FRAME) this.link?.heartbeat.pingSent(now);
    this.link?.heartbeat.sent(now);
  }

  /** The link's heartbeat: the client has been quiet too long. */
  ping(): void {
    this.outbox.push({ kind: 'control', frame: PING_FRAME });
  }

  /** The link's heartbeat: the server went silent (the link is closed right after). */
  silent(error: ZooKeeperError): void {
    this.lastError = error;
  }

  /** Opening a ready connection: the newest zxid seen (for SetWatches). */
  lastZxid(): bigint {
    return this.identity.zxid;
  }

  /** Opening a ready connection: every watch is armed again; the state says so. */
  announce(state: 'connected' | 'connected-readonly'): void {
    this.machine.transition(state);
  }

  /** Opening a ready connection: the persistent watches hear of the gap, once. */
  resync(): void {
    const gap = this.renewals.takeGap();
    if (gap) this.watches.resync(gap);
  }

  // ---- sessions come and go ----------------------------------------------------------------

  /** A server granted a session: the first, a resumed one, or a successor. */
  adopted(): void {
    this.established = true;
    this.connectDeadline = null;
    this.renewals.granted(this.identity.id);
  }

  /** The server session is over: renew it (when enabled and one was had) or end. */
  expire(error: ZooKeeperError): void {
    if (!this.renews || !this.established || this.closing) {
      void this.shutdown('expired', error);
      return;
    }
    // What the old session owed is taken first, so that a call made by a listener of the expiry
    // waits for the new session instead of failing with the old one.
    const owed = takeOwed(this.pending, this.outbox, this.authInFlight);
    dropLink(this, () => this.machine.transition('expired', error));
    failAll(owed, error);
    this.watches.endOneShot('expired');
    this.renewals.expired(this.identity.id);
    this.identity.retire(this.hosts.size);
    // The connect loop runs on: its next handshake asks for a new session.
    this.machine.transition('connecting');
  }

  /** Why a call made now cannot be served (the session is over or closing). */
  finalError(op?: string, path?: string): ZooKeeperError {
    const details = { op, path };
    switch (this.state) {
      case 'expired':
        return makeError('SESSIONEXPIRED', `session ${this.identity.hexId} has expired`, details);
      case 'auth-failed':
        return makeError('AUTHFAILED', 'authentication failed; the session is unusable', details);
      default:
        return new ClientClosedError(details);
    }
  }

  /** Moves to a final state and fails everything that waits. */
  async shutdown(state: Ending, error: ZooKeeperError): Promise<void> {
    if (this.over) return;
    this.over = true;
    this.endReason = error;
    const owed = takeOwed(this.pending, this.outbox, this.authInFlight);
    dropLink(this, () => {
      this.machine.transition(state, error instanceof ClientClosedError ? undefined : error);
      this.halt(error);
    });
    failAll(owed, error);
    for (const entry of this.auth)
      for (const waiter of entry.waiters.splice(0)) waiter.reject(error);
    this.watches.endAll(state, error);
    await this.loop?.ended();
  }
}
