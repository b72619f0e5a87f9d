// The listeners of one session part (its states, its renewals), in a set made by the first
// subscriber and dropped with the last: most sessions have none once connect() has resolved (see
// SessionRelay), so an idle session holds no set per part.

/** A listener threw: surface it out of band, without breaking the session code that told it. */
export function rethrowLater(error: unknown): void {
  queueMicrotask(() => {
    throw error;
  });
}

/** The base of a session part that listeners subscribe to. */
export class Subscribers<L> {
  private listeners: Set<L> | null = null;

  subscribe(listener: L): () => void {
    this.listeners ??= new Set();
    const listeners = this.listeners;
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      // The last one gone (connect()'s own wait, once connected): the set goes too.
      if (listeners.size === 0 && this.listeners === listeners) this.listeners = null;
    };
  }

  /**
   * Calls `call` with each listener subscribed now, in the order they came; one that throws is
   * reported out of band (rethrowLater) and the others are still told.
   */
  protected tell(call: (listener: L) => void): void {
    if (this.listeners === null) return;
    for (const listener of [...this.listeners]) {
      try {
        call(listener);
      } catch (error) {
        rethrowLater(error);
      }
    }
  }
}
