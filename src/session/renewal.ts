// What the session keeps across its server sessions: who listens to renewals, which session was
// replaced, and which gap the persistent watches must hear of once they are armed again.
//
// Sessions come and go; the client stays. After an expiry the client asks for a new session on
// the same ensemble (unless renewal is off); once a server grants it, the renewal listeners hear
// of it first (the old session id and the new one), then the state moves to `connected`. The
// persistent watches are armed again on every new connection, but the server sends no catch-up
// events for them, so each is told with a `Resync` event that changes may have been missed.
import { rethrowLater, Subscribers } from './subscribers.js';
import type { ResyncCause } from './types.js';

/** What a renewal listener learns: the session that expired and the one that replaced it. */
export interface SessionRenewal {
  /** The id of the session that expired. */
  previousSessionId: bigint;
  /** The id of the new session. */
  sessionId: bigint;
}

/** Told of every renewal before the listeners (the session's telemetry). */
export interface RenewalObserver {
  renewed(renewal: SessionRenewal): void;
}

export class RenewalLog extends Subscribers<(renewal: SessionRenewal) => void> {
  /** The session that expired, while its successor is being sought. */
  private replaced: bigint | null = null;
  /** The gap the persistent watches must hear of (see WatchRegistry.resync). */
  private gap: ResyncCause | null = null;

  constructor(private readonly observer: RenewalObserver | null = null) {
    super();
  }

  /** The link broke: unless a renewal is pending, the gap is a reconnect. */
  linkLost(): void {
    this.gap ??= 'reconnect';
  }

  /** Session `id` expired; a new one is being sought. */
  expired(id: bigint): void {
    this.replaced = id;
    this.gap = 'renewal';
  }

  /** A server granted session `id`: tells the listeners if it replaces an expired one. */
  granted(id: bigint): void {
    const previousSessionId = this.replaced;
    if (previousSessionId === null) return;
    this.replaced = null;
    const renewal: SessionRenewal = { previousSessionId, sessionId: id };
    // A throwing listener must not break the handshake: it is reported out of band.
    if (this.observer) {
      try {
        this.observer.renewed(renewal);
      } catch (error) {
        rethrowLater(error);
      }
    }
    this.tell((listener) => listener(renewal));
  }

  /** The gap to announce now that the watches are armed again (once), or null. */
  takeGap(): ResyncCause | null {
    const gap = this.gap;
    this.gap = null;
    return gap;
  }
}
