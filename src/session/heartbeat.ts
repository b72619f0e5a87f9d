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
}

const MAX_PING_INTERVAL = 10_000;

export function sessionTimers(sessionTimeout: number, hostCount: number): SessionTimers {
  const readTimeout = Math.max(1, Math.floor((sessionTimeout * 2) / 3));
  return {
    readTimeout,
    pingInterval: Math.max(1, Math.min(MAX_PING_INTERVAL, Math.floor(readTimeout / 2))),
    connectTimeout: Math.max(1, Math.floor(sessionTimeout / Math.max(1, hostCount))),
  };
}

export interface HeartbeatEvents {
  ping(): void;
  dead(silentFor: number): void;
}

export class Heartbeat {
  private heardAt: number;
  private lastSent: number;
  private timer: unknown = null;
  private running = false;

  constructor(
    private readonly clock: Clock,
    private readonly timers: SessionTimers,
    private readonly events: HeartbeatEvents,
  ) {
    this.heardAt = this.lastSent = clock.now();
  }

  start(): void {
    this.running = true;
    this.heardAt = this.lastSent = this.clock.now();
    this.schedule();
  }

  stop(): void {
    this.running = false;
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  /** A frame arrived. Cheap on purpose: it runs for every reply; the timer re-checks on expiry. */
  heard(): void {
    this.heardAt = this.clock.now();
  }

  /**
   * When the server was last heard from on this connection (the handshake counts). The one
   * record of it: the session's expiry countdown starts from here when the link breaks.
   */
  get lastHeard(): number {
    return this.heardAt;
  }

  sent(): void {
    this.lastSent = this.clock.now();
  }

  private schedule(): void {
    if (!this.running) return;
    const due = Math.min(
      this.heardAt + this.timers.readTimeout,
      this.lastSent + this.timers.pingInterval,
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
    if (now - this.lastSent >= this.timers.pingInterval) {
      this.events.ping();
      this.lastSent = now;
    }
    this.schedule();
  }
}
