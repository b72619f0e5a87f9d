// The connected bookkeeping, from the handshake to the broken link. A ConnectResponse turns an open
// connection into the session's link: the server's answer adopted, the host marked as the one that
// worked, the expiry countdown stopped, the heartbeat started, then SASL or the restore of
// credentials and watches. A broken link turns back into a suspended session: the calls in flight
// fail with CONNECTIONLOSS and the countdown to expiry starts from the last frame heard.
import { decodeConnectResponse } from '../protocol/codecs.js';
import { makeError, type ZooKeeperError } from '../protocol/errors.js';
import type { Clock } from './clock.js';
import { handshakeRefusal, REPLY_HEADER_SIZE } from './control-frames.js';
import { formatHost, type HostAddress, type HostList } from './hosts.js';
import { hexSessionId, type SessionIdentity } from './identity.js';
import { Link, type LinkEvents } from './link.js';
import type { Outbox } from './outbox.js';
import type { Deque } from './queue.js';
import type { AuthEntry, PendingRequest } from './requests.js';
import type { SaslOptions } from './sasl/options.js';
import { saslOnConnection } from './sasl/session-hook.js';
import { isConnected, isFinal } from './state.js';
import type { Connection } from './transport.js';
import type { SessionState } from './types.js';

/** What the connected bookkeeping reads from the session, and what it tells it. */
export interface HandshakeRoute extends LinkEvents {
  readonly clock: Clock;
  readonly hosts: HostList;
  readonly identity: SessionIdentity;
  readonly outbox: Outbox;
  /** Written requests awaiting replies: they fail when the link breaks. */
  readonly pending: Deque<PendingRequest>;
  /** Written credentials awaiting replies: re-sent (with their waiters) by the next handshake. */
  readonly authInFlight: Deque<AuthEntry>;
  readonly sasl: SaslOptions | undefined;
  state(): SessionState;
  /** False once the server acknowledged closeSession: a lost link then suspends nothing. */
  closeAnswered(): boolean;
  /** The session's record of why the last link ended (reset by a successful handshake). */
  lastError(): unknown;
  failed(error: unknown): void;
  nextXid(): number;
  /** The link broke: the session is suspended, `cause` says why when known. */
  suspend(cause: Error | undefined): void;
  /** The server no longer knows the session, or nothing was heard for a whole timeout. */
  expire(error: ZooKeeperError): void;
  /** A server granted the session (`identity` holds its answer); runs before anything else. */
  adopted(): void;
  /** SASL credentials were refused. */
  authFailed(error: ZooKeeperError): void;
  /** The connection is ready: restore credentials and watches, then let requests out. */
  open(connection: Connection, readOnly: boolean): void;
}

/** The session's current link, and the countdown to expiry while it has none. */
export class LinkKeeper {
  private link: Link | null = null;
  private expiryTimer: unknown = null;

  constructor(private readonly route: HandshakeRoute) {}

  /** The established connection, while there is one. */
  get current(): Link | null {
    return this.link;
  }

  /** Whether `connection` is the session's link (it may have broken meanwhile). */
  isCurrent(connection: Connection): boolean {
    return this.current?.connection === connection;
  }

  /** The first frame of a connection: true when it established the session. */
  handshake(frame: Uint8Array, connection: Connection, host: HostAddress): boolean {
    const { route } = this;
    if (frame.length === REPLY_HEADER_SIZE) throw handshakeRefusal(frame);
    // The client ended while this handshake was in flight: the session it opens is not wanted
    // (the server ends it once the connection closes and its timeout runs out).
    if (isFinal(route.state())) throw makeError('CONNECTIONLOSS', 'the client has ended');
    const response = decodeConnectResponse(frame);
    if (response.timeOut <= 0) {
      // The server no longer knows this session (expired, or a wrong password). A refusal of a
      // session already retired here (a handshake sent before the expiry) is no news.
      if (route.identity.id !== 0n)
        route.expire(makeError('SESSIONEXPIRED', `session ${route.identity.hexId} has expired`));
      return false;
    }
    if (route.identity.isRetired(response.sessionId)) {
      // A handshake sent before this client declared the session expired reached a server that
      // had not expired it yet. It stays dead here: dial again for a new session.
      throw makeError(
        'CONNECTIONLOSS',
        `${formatHost(host)} resumed session ${hexSessionId(response.sessionId)}, which this client already declared expired`,
      );
    }
    route.identity.adopt(response, route.hosts.size);
    route.adopted();
    route.hosts.markConnected();
    route.failed(null);
    this.clearExpiry();
    // The closures below keep this frame's variables as long as the link lives: they read the
    // flag, not the response (and its password buffer).
    const readOnly = response.readOnly;
    // Before any transition: a 'connected' listener may read `server`.
    this.link = new Link(connection, host, readOnly, route.clock, route.identity.timers, route);
    const sasl = route.sasl;
    if (!sasl) route.open(connection, readOnly);
    else
      saslOnConnection(sasl, route.pending, connection, {
        nextXid: () => route.nextXid(),
        sent: () => this.current?.heartbeat.sent(),
        done: () => {
          if (this.isCurrent(connection)) route.open(connection, readOnly);
        },
        failed: (error) => route.authFailed(error),
      });
    return true;
  }

  /** An established connection ended: fail what waited on it, suspend, start the countdown. */
  lost(connection: Connection, host: HostAddress): void {
    const { route } = this;
    const link = this.link;
    if (link?.connection !== connection) return;
    this.link = null;
    // The session's clock runs from the last frame heard, not from when the link broke.
    const lastHeard = link.end();
    const lastError = route.lastError();
    const reason = lastError instanceof Error ? lastError.message : 'the connection closed';
    const message = `connection to ${formatHost(host)} lost: ${reason}`;
    const cause = lastError instanceof Error ? lastError : undefined;
    for (const request of route.pending.drain()) {
      request.settle(
        makeError('CONNECTIONLOSS', message, {
          op: request.op,
          path: request.path,
          cause,
        }),
      );
    }
    // Credentials without a reply are re-sent (with their waiters) by the next handshake.
    route.authInFlight.drain();
    route.outbox.detach();
    if (isFinal(route.state()) || route.closeAnswered()) return;
    route.suspend(cause);
    this.armExpiry(lastHeard);
  }

  /**
   * The session ended: the countdown and the heartbeat stop, `announce` runs while `current` still
   * names the server (a final-state listener may read it), then the link is closed.
   */
  end(announce: () => void): void {
    this.clearExpiry();
    const link = this.link;
    link?.end();
    announce();
    this.link = null;
    link?.connection.close();
  }

  private clearExpiry(): void {
    if (this.expiryTimer !== null) this.route.clock.clearTimeout(this.expiryTimer);
    this.expiryTimer = null;
  }

  private armExpiry(lastHeard: number): void {
    const { route } = this;
    const { clock, identity } = route;
    this.clearExpiry();
    if (identity.id === 0n) return;
    // Nothing heard for a whole session timeout: the server has expired us, or will before we
    // could prove otherwise. Declaring it here keeps locks safe and stops retrying forever.
    const remaining = Math.max(0, lastHeard + identity.timeout - clock.now());
    this.expiryTimer = clock.setTimeout(() => {
      this.expiryTimer = null;
      if (isConnected(route.state()) || isFinal(route.state())) return;
      route.expire(
        makeError(
          'SESSIONEXPIRED',
          `no server answered for ${identity.timeout} ms (the session timeout): session ${identity.hexId} is considered expired`,
        ),
      );
    }, remaining);
  }
}
