// The session's one explicit state machine: every move goes through `transition`, which checks it
// against the table and tells listeners in order.
import type { SessionState } from './types.js';

const MOVES: Readonly<Record<SessionState, readonly SessionState[]>> = {
  connecting: ['connected', 'connected-readonly', 'closed', 'auth-failed', 'expired'],
  connected: ['suspended', 'closed', 'expired', 'auth-failed'],
  'connected-readonly': ['suspended', 'closed', 'expired', 'auth-failed'],
  suspended: ['connected', 'connected-readonly', 'expired', 'closed', 'auth-failed'],
  expired: [],
  'auth-failed': [],
  closed: [],
};

export function isFinal(state: SessionState): boolean {
  return MOVES[state].length === 0;
}

export function isConnected(state: SessionState): boolean {
  return state === 'connected' || state === 'connected-readonly';
}

export type StateListener = (state: SessionState, previous: SessionState, cause?: Error) => void;

export class StateMachine {
  private current: SessionState = 'connecting';
  private readonly listeners = new Set<StateListener>();

  get state(): SessionState {
    return this.current;
  }

  /**
   * Moves to `next`; returns false (and changes nothing) when the move is not allowed. `cause`
   * says why, for moves the user did not ask for (a lost link, an expiry).
   */
  transition(next: SessionState, cause?: Error): boolean {
    const previous = this.current;
    if (!MOVES[previous].includes(next)) return false;
    this.current = next;
    for (const listener of [...this.listeners]) {
      try {
        listener(next, previous, cause);
      } catch (error) {
        // A throwing listener must not break the session; report it out of band.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
    return true;
  }

  subscribe(listener: StateListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
