// One established connection and what lives exactly as long as it: the server it reaches, whether
// that server is read-only, and the heartbeat that keeps it alive. The handshake (handshake.ts)
// makes it; it is dropped when the link breaks (handshake.ts) or the session ends (dropLink).
import { makeError, type ZooKeeperError } from '../protocol/errors.js';
import type { Clock } from './clock.js';
import type { SessionContext } from './context.js';
import { Heartbeat, type HeartbeatEvents, type SessionTimers } from './heartbeat.js';
import type { HostAddress } from './hosts.js';
import type { Connection } from './transport.js';

/** What the heartbeat of a link asks of the session. */
export interface LinkEvents {
  /** Queue a ping (the client has been quiet too long). */
  ping(): void;
  /** The server went silent too long: why (the link is closed right after). */
  silent(error: ZooKeeperError): void;
}

/**
 * One established connection with its server, read-only flag and running heartbeat. The link is
 * its heartbeat's listener itself (prototype methods, not closures: a link lives as long as its
 * connection, and a process may hold thousands).
 */
export class Link implements HeartbeatEvents {
  readonly heartbeat: Heartbeat;

  constructor(
    readonly connection: Connection,
    readonly host: HostAddress,
    readonly readOnly: boolean,
    clock: Clock,
    timers: SessionTimers,
    private readonly events: LinkEvents,
    connectSentAt: number,
  ) {
    this.heartbeat = new Heartbeat(clock, timers, this);
    // The ConnectResponse proves the server heard the ConnectRequest, as of when it was sent.
    this.heartbeat.start(connectSentAt);
  }

  /** @internal The heartbeat's: the client has been quiet too long. */
  ping(): void {
    this.events.ping();
  }

  /** @internal The heartbeat's: nothing heard (or proven) for `silentFor` ms; the link is dropped. */
  dead(silentFor: number, unproven?: boolean): void {
    const ms = Math.round(silentFor);
    this.events.silent(
      makeError(
        'CONNECTIONLOSS',
        unproven
          ? `no reply from the server to anything sent in the last ${ms} ms`
          : `no reply from the server for ${ms} ms`,
      ),
    );
    this.connection.close();
  }

  /**
   * Stops the heartbeat; returns the send time of the newest request the server answered on this
   * link (the earliest it can have heard from us: its expiry clock restarted then or later).
   */
  end(): number {
    this.heartbeat.stop();
    return this.heartbeat.lastProven;
  }
}

/** Stops the countdown to expiry, if it runs. */
export function clearExpiry(ctx: SessionContext): void {
  if (ctx.expiryTimer !== null) ctx.clock.clearTimeout(ctx.expiryTimer);
  ctx.expiryTimer = null;
}

/**
 * The session ended: the countdown and the heartbeat stop, `announce` runs while the link still
 * names the server (a final-state listener may read it), then the link is closed.
 */
export function dropLink(ctx: SessionContext, announce: () => void): void {
  clearExpiry(ctx);
  const link = ctx.link;
  link?.end();
  announce();
  ctx.link = null;
  link?.connection.close();
}
