// One established connection and what lives exactly as long as it: the server it reaches, whether
// that server is read-only, and the heartbeat that keeps it alive. The handshake (handshake.ts)
// makes it, and drops it when the link breaks or the session ends.
import { makeError, type ZooKeeperError } from '../protocol/errors.js';
import type { Clock } from './clock.js';
import { Heartbeat, type SessionTimers } from './heartbeat.js';
import type { HostAddress } from './hosts.js';
import type { Connection } from './transport.js';

/** What the heartbeat of a link asks of the session. */
export interface LinkEvents {
  /** Queue a ping (the client has been quiet too long). */
  ping(): void;
  /** The server went silent too long: why (the link is closed right after). */
  dead(error: ZooKeeperError): void;
}

/** One established connection with its server, read-only flag and running heartbeat. */
export class Link {
  readonly heartbeat: Heartbeat;

  constructor(
    readonly connection: Connection,
    readonly host: HostAddress,
    readonly readOnly: boolean,
    clock: Clock,
    timers: SessionTimers,
    events: LinkEvents,
  ) {
    this.heartbeat = new Heartbeat(clock, timers, {
      ping: () => events.ping(),
      dead: (silentFor) => {
        events.dead(
          makeError('CONNECTIONLOSS', `no reply from the server for ${Math.round(silentFor)} ms`),
        );
        connection.close();
      },
    });
    this.heartbeat.start();
  }

  /** Stops the heartbeat; returns when the server was last heard from on this link. */
  end(): number {
    this.heartbeat.stop();
    return this.heartbeat.lastHeard;
  }
}
