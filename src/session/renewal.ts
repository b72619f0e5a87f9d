// What the session keeps across its server sessions: who listens to renewals, which session was
// replaced, and which gap the persistent watches must hear of once they are armed again.
//
// Sessions come and go; the client stays. After an expiry the client asks for a new session on
// the same ensemble (unless renewal is off); once a server grants it, the renewal listeners hear
// of it first (the old session id and the new one), then the state moves to `connected`. The
// persistent watches are armed again on every new connection, but the server sends no catch-up
// events for them, so each is told with a `Resync` event that changes may have been missed.
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

export class RenewalLog {
  /** Made by the first subscriber: most sessions have none (see SessionRelay). */
  private listeners: Set<(renewal: SessionRenewal) => void> | null = null;
  /** The session that expired, while its successor is being sought. */
  private replaced: bigint | null = null;
  /** The gap the persistent watches must hear of (see WatchRegistry.resync). */
  private gap: ResyncCause | null = null;

  constructor(private readonly observer: RenewalObserver | null = null) {}

  subscribe(listener: (renewal: SessionRenewal) => void): () => void {
    this.listeners ??= new Set();
    const listeners = this.listeners;
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      // The last one gone (connect()'s own wait, once connected): the set goes too.
      if (listeners.size === 0 && this.listeners === listeners) this.listeners = null;
    };
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
    const listeners = this.listeners ?? [];
    for (const listener of this.observer ? [this.observer, ...listeners] : [...listeners]) {
      try {
        if (typeof listener === 'function') listener(renewal);
        else listener.renewed(renewal);
      } catch (error) {
        // A throwing listener must not break the handshake; report it out of band.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  /** The gap to announce now that the watches are armed again (once), or null. */
  takeGap(): ResyncCause | null {
    const gap = this.gap;
    this.gap = null;
    return gap;
  }
}
