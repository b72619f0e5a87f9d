// The session's side of the routes its parts talk through: the connect loop (ConnectRoute), each
// served connection (ServeRoute), the link keeper (HandshakeRoute) and the reply router
// (ReplyRoute). One object per session answers all four with prototype methods. Written as
// closures, the same routes cost about thirty functions per session (56 bytes each, plus their
// objects) that an idle session keeps for its whole life; with thousands of sessions in one
// process that was the largest part of a session's heap after the socket.
import type { ZooKeeperError } from '../protocol/errors.js';
import type { ConnectLog } from '../telemetry/session.js';
import type { Clock } from './clock.js';
import type { ConnectRoute } from './connect-loop.js';
import { PING_FRAME } from './control-frames.js';
import type { HandshakeRoute, LinkKeeper } from './handshake.js';
import type { SessionTimers } from './heartbeat.js';
import { formatHost, type HostAddress, type HostList } from './hosts.js';
import type { SessionIdentity } from './identity.js';
import type { Outbox } from './outbox.js';
import type { Deque } from './queue.js';
import { leaveForReadWrite } from './readonly-probe.js';
import type { RenewalLog } from './renewal.js';
import { type ReplyRoute, routeReply } from './replies.js';
import type { AuthEntry, PendingRequest } from './requests.js';
import { openForRequests } from './restore.js';
import type { SaslOptions } from './sasl/options.js';
import { type ServeRoute, serveConnection } from './serve.js';
import type { StateMachine } from './state.js';
import type { Connection, Transport } from './transport.js';
import type { SessionState, TlsOptions } from './types.js';
import type { WatchRegistry } from './watches.js';

/**
 * What the wiring reads from and tells the session: the session's own state and its endings.
 * Implemented by {@link Session} (session.ts); nothing else uses these members.
 */
export interface WiredSession {
  readonly state: SessionState;
  readonly links: LinkKeeper;
  readonly machine: StateMachine;
  readonly renewals: RenewalLog;
  readonly connects: ConnectLog;
  readonly auth: AuthEntry[];
  readonly readOnlyAllowed: boolean;
  lastError: unknown;
  readonly closeAnswered: boolean;
  /** The session is over for good, or the server acknowledged closeSession. */
  readonly finished: boolean;
  readonly connectDeadline: number | null;
  nextXid(): number;
  expire(error: ZooKeeperError): void;
  adopted(): void;
  authFailed(error: ZooKeeperError): void;
  /** Ends the session for good in `closed` (the transport refused our settings). */
  unusable(error: ZooKeeperError): void;
  dropConnection(reason: string): void;
}

/** The parts every route hands out as they are: fixed for the session's life. */
export type WiringParts = Pick<
  SessionWiring,
  | 'clock'
  | 'hosts'
  | 'transport'
  | 'tls'
  | 'sasl'
  | 'stop'
  | 'maxFrameSize'
  | 'chroot'
  | 'watches'
  | 'outbox'
  | 'pending'
  | 'authInFlight'
  | 'identity'
>;

export class SessionWiring implements ConnectRoute, ServeRoute, HandshakeRoute, ReplyRoute {
  readonly clock: Clock;
  readonly hosts: HostList;
  readonly transport: Transport;
  readonly tls: TlsOptions | undefined;
  readonly sasl: SaslOptions | undefined;
  readonly stop: AbortSignal;
  readonly maxFrameSize: number;
  readonly chroot: string;
  readonly watches: WatchRegistry;
  readonly outbox: Outbox;
  readonly pending: Deque<PendingRequest>;
  readonly authInFlight: Deque<AuthEntry>;
  readonly identity: SessionIdentity;

  constructor(
    private readonly session: WiredSession,
    parts: WiringParts,
  ) {
    this.clock = parts.clock;
    this.hosts = parts.hosts;
    this.transport = parts.transport;
    this.tls = parts.tls;
    this.sasl = parts.sasl;
    this.stop = parts.stop;
    this.maxFrameSize = parts.maxFrameSize;
    this.chroot = parts.chroot;
    this.watches = parts.watches;
    this.outbox = parts.outbox;
    this.pending = parts.pending;
    this.authInFlight = parts.authInFlight;
    this.identity = parts.identity;
  }

  // ---- shared by several routes ---------------------------------------------------------

  lastError(): unknown {
    return this.session.lastError;
  }

  failed(error: unknown): void {
    this.session.lastError = error;
  }

  authFailed(error: ZooKeeperError): void {
    this.session.authFailed(error);
  }

  // ---- ConnectRoute: the connect loop -----------------------------------------------------

  running(): boolean {
    return !this.session.finished;
  }

  timers(): SessionTimers {
    return this.identity.timers;
  }

  sessionTimeout(): number {
    return this.identity.timeout;
  }

  deadline(): number | null {
    return this.session.state === 'connecting' ? this.session.connectDeadline : null;
  }

  serve(connection: Connection, host: HostAddress, handshakeDone: () => void): Promise<boolean> {
    return serveConnection(this, connection, host, handshakeDone);
  }

  unusable(error: ZooKeeperError): void {
    this.session.unusable(error);
  }

  // ---- ServeRoute: one connection ---------------------------------------------------------

  connectRequest(): Uint8Array {
    return this.identity.connectRequest(this.session.readOnlyAllowed);
  }

  handshake(frame: Uint8Array, connection: Connection, host: HostAddress): boolean {
    const { links, connects } = this.session;
    const established = links.handshake(frame, connection, host);
    if (established)
      connects.connected(
        this.identity.id,
        host,
        links.current?.readOnly ?? false,
        this.clock.now(),
      );
    return established;
  }

  reply(frame: Uint8Array): void {
    routeReply(frame, this);
  }

  established(connection: Connection, host: HostAddress): void {
    if (!this.session.links.current?.readOnly) return;
    void leaveForReadWrite({
      connection,
      current: host,
      hosts: this.hosts,
      transport: this.transport,
      tls: this.tls,
      clock: this.clock,
      stop: this.stop,
      isCurrent: (c) => this.session.links.isCurrent(c),
      leave: (found) =>
        this.session.dropConnection(
          `${formatHost(found)} serves reads and writes; leaving the read-only server`,
        ),
    });
  }

  lost(connection: Connection, host: HostAddress): void {
    this.session.links.lost(connection, host);
  }

  // ---- HandshakeRoute: the link keeper ----------------------------------------------------

  state(): SessionState {
    return this.session.state;
  }

  closeAnswered(): boolean {
    return this.session.closeAnswered;
  }

  nextXid(): number {
    return this.session.nextXid();
  }

  suspend(cause: Error | undefined): void {
    this.session.connects.seeking(this.clock.now());
    this.session.renewals.linkLost();
    this.session.machine.transition('suspended', cause);
  }

  expire(error: ZooKeeperError): void {
    this.session.expire(error);
  }

  adopted(): void {
    this.session.adopted();
  }

  /** The link's heartbeat: the client has been quiet too long. */
  ping(): void {
    this.outbox.push({ kind: 'control', frame: PING_FRAME });
  }

  /** The link's heartbeat: the server went silent (the link is closed right after). */
  silent(error: ZooKeeperError): void {
    this.session.lastError = error;
  }

  open(connection: Connection, readOnly: boolean): void {
    const session = this.session;
    openForRequests(
      {
        auth: session.auth,
        watches: this.watches,
        chroot: this.chroot,
        outbox: this.outbox,
        lastZxid: () => this.identity.zxid,
        isCurrent: (c) => session.links.isCurrent(c),
        announce: (state) => session.machine.transition(state),
        resync: () => {
          const gap = session.renewals.takeGap();
          if (gap) this.watches.resync(gap);
        },
      },
      connection,
      readOnly,
    );
  }

  // ---- ReplyRoute: every frame after the handshake ----------------------------------------

  get sessionId(): bigint {
    return this.identity.id;
  }

  heard(): void {
    this.session.links.current?.heartbeat.heard();
  }

  zxidSeen(zxid: bigint): void {
    this.identity.zxid = zxid;
  }
}
