// The session's one explicit state machine: every move goes through `transition`, which checks it
// against the table and tells listeners in order.
//
//   connecting ──► connected / connected-readonly ◄──► suspended
//       ▲                       │                          │
//       │ (renewal)             ▼                          ▼
//       └──────────────────── expired ◄────────────────────┘
//
// `expired` ends one server session. With renewal (the default) the client moves on to
// `connecting` for a new session right after every listener has heard of the expiry; without it,
// `expired` is final. `auth-failed` and `closed` are always final.
import { rethrowLater, Subscribers } from './subscribers.js';
import type { SessionState } from './types.js';

type Moves = Readonly<Record<SessionState, readonly SessionState[]>>;

const MOVES: Moves = {
  connecting: ['connected', 'connected-readonly', 'closed', 'auth-failed', 'expired'],
  connected: ['suspended', 'closed', 'expired', 'auth-failed'],
  'connected-readonly': ['suspended', 'closed', 'expired', 'auth-failed'],
  suspended: ['connected', 'connected-readonly', 'expired', 'closed', 'auth-failed'],
  expired: [],
  'auth-failed': [],
  closed: [],
};

/** The same table, with the one move renewal adds: from an expired session to a new one. */
const RENEWING_MOVES: Moves = { ...MOVES, expired: ['connecting', 'closed'] };

/**
 * Whether `state` ends a server session: nothing more happens on that session. (With renewal,
 * `expired` is followed by a new session.)
 */
export function isFinal(state: SessionState): boolean {
  return MOVES[state].length === 0;
}

export function isConnected(state: SessionState): boolean {
  return state === 'connected' || state === 'connected-readonly';
}

export type StateListener = (state: SessionState, previous: SessionState, cause?: Error) => void;

/** Told of every move before the listeners (the session's telemetry): an object, not a closure. */
export interface StateObserver {
  stateChanged(state: SessionState, previous: SessionState, cause: Error | undefined): void;
}

export class StateMachine extends Subscribers<StateListener> {
  private current: SessionState = 'connecting';
  private readonly moves: Moves;

  /**
   * `renews`: an expired session is followed by a new one (see the table above). `observer`
   * hears of every move first.
   */
  constructor(
    renews = false,
    private readonly observer: StateObserver | null = null,
  ) {
    super();
    this.moves = renews ? RENEWING_MOVES : MOVES;
  }

  get state(): SessionState {
    return this.current;
  }

  /**
   * Moves to `next`; returns false (and changes nothing) when the move is not allowed. `cause`
   * says why, for moves the user did not ask for (a lost link, an expiry).
   */
  transition(next: SessionState, cause?: Error): boolean {
    const previous = this.current;
    if (!this.moves[previous].includes(next)) return false;
    this.current = next;
    if (this.observer) {
      try {
        this.observer.stateChanged(next, previous, cause);
      } catch (error) {
        rethrowLater(error);
      }
    }
    // A throwing listener must not break the session (Subscribers.tell reports it out of band).
    this.tell((listener) => listener(next, previous, cause));
    return true;
  }
}
