// Keepalive and dead-link detection, timed from the negotiated session timeout as the Java client
// does: the link is dead after 2/3 of the timeout without a byte from the server, and a ping goes
// out once the client has been quiet for half of that (at most every 10 s).
import type { Clock } from './clock.js';

export interface SessionTimers {
  /** No frame from the server for this long => the connection is dead. */
  readTimeout: number;
  /** Send a ping when nothing was written for this long. */
  pingInterval: number;
  /** Budget for one connection attempt (TCP + handshake). */
  connectTimeout: number;
  /** The session timeout itself: how long a proof that the server heard us stays good. */
  sessionTimeout: number;
}

const MAX_PING_INTERVAL = 10_000;

export function sessionTimers(sessionTimeout: number, hostCount: number): SessionTimers {
  const readTimeout = Math.max(1, Math.floor((sessionTimeout * 2) / 3));
  return {
    readTimeout,
    pingInterval: Math.max(1, Math.min(MAX_PING_INTERVAL, Math.floor(readTimeout / 2))),
    connectTimeout: Math.max(1, Math.floor(sessionTimeout / Math.max(1, hostCount))),
    sessionTimeout,
  };
}

export interface HeartbeatEvents {
  ping(): void;
  /**
   * The link is dead: nothing heard for `silentFor` ms, or (`unproven`) nothing the server
   * answered was sent within the last session timeout, so the server may have expired us.
   */
  dead(silentFor: number, unproven?: boolean): void;
}

export class Heartbeat {
  private heardAt: number;
  private lastSent: number;
  // The server restarts the session's expiry clock when it *receives* a request, so a reply only
  // proves the session alive as of when its request was sent (the earliest the server can have
  // heard it), however long the reply took. Pings are not PendingRequests: the oldest unanswered
  // one's send time stands for them all (a reply to a later ping then proves a little less).
  private provenAt: number;
  private pingsInFlight = 0;
  private oldestPingSentAt = 0;
  private timer: unknown = null;
  private running = false;

  constructor(
    private readonly clock: Clock,
    private readonly timers: SessionTimers,
    private readonly events: HeartbeatEvents,
  ) {
    this.heardAt = this.lastSent = this.provenAt = clock.now();
  }

  /** `provenAt`: when the ConnectRequest that the server answered was sent. */
  start(provenAt: number = this.clock.now()): void {
    this.running = true;
    this.heardAt = this.lastSent = this.clock.now();
    this.provenAt = provenAt;
    this.pingsInFlight = 0;
    this.schedule();
  }

  stop(): void {
    this.running = false;
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  /**
   * Bytes arrived (at `at`: the caller's clock read, one per chunk read). Cheap on purpose: it
   * runs for every chunk; the timer re-checks on expiry.
   */
  heard(at: number = this.clock.now()): void {
    this.heardAt = at;
  }

  /** When the server was last heard from on this connection (the handshake counts). */
  get lastHeard(): number {
    return this.heardAt;
  }

  /** A frame is being written; `at` lets the caller's own clock read serve (one per frame). */
  sent(at: number = this.clock.now()): void {
    this.lastSent = at;
  }

  /** The server answered a request sent at `sentAt`: it heard from us no earlier than that. */
  proven(sentAt: number): void {
    if (sentAt > this.provenAt) this.provenAt = sentAt;
  }

  /** A ping is being written (at `at`, as for {@link sent}). */
  pingSent(at: number = this.clock.now()): void {
    if (this.pingsInFlight++ === 0) this.oldestPingSentAt = at;
  }

  /** A ping was answered (replies come in order: the oldest unanswered one, at the latest). */
  pingAnswered(): void {
    if (this.pingsInFlight === 0) return;
    this.pingsInFlight--;
    this.proven(this.oldestPingSentAt);
  }

  /**
   * The send time of the newest request (or ping, or ConnectRequest) the server answered on this
   * connection: the session's expiry countdown starts from here when the link breaks.
   */
  get lastProven(): number {
    return this.provenAt;
  }

  private schedule(): void {
    if (!this.running) return;
    const due = Math.min(
      this.heardAt + this.timers.readTimeout,
      this.lastSent + this.timers.pingInterval,
      this.provenAt + this.timers.sessionTimeout,
    );
    this.timer = this.clock.setTimeout(() => this.fire(), Math.max(0, due - this.clock.now()));
  }

  private fire(): void {
    this.timer = null;
    if (!this.running) return;
    const now = this.clock.now();
    const silentFor = now - this.heardAt;
    if (silentFor >= this.timers.readTimeout) {
      this.running = false;
      this.events.dead(silentFor);
      return;
    }
    if (now >= this.provenAt + this.timers.sessionTimeout) {
      // Replies still come, but none to anything sent within a session timeout: the server may
      // have expired the session already, and the client must not believe otherwise for longer.
      this.running = false;
      this.events.dead(now - this.provenAt, true);
      return;
    }
    if (now - this.lastSent >= this.timers.pingInterval) {
      this.events.ping();
      this.lastSent = now;
    }
    this.schedule();
  }
}
