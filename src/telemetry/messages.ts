// The message shapes published on the library's channels (see names.ts). Times are
// `performance.now()` milliseconds; durations are milliseconds.

/** The context of one request on `zookeeper-ts:request`; filled in as the request goes. */
export interface RequestMessage {
  /** The operation (`create`, `getData`, `multi`...). */
  readonly op: string;
  /** The path as the caller wrote it (relative to the chroot); undefined for path-less ops. */
  readonly path: string | undefined;
  /** The request's xid on its session. */
  readonly xid: number;
  /** The session id (0n before the first session). */
  readonly sessionId: bigint;
  /** `host:port` of the server it was written to; null while it waits for a connection. */
  server: string | null;
  /** When the call was made. */
  readonly startTime: number;
  /** When it settled. */
  endTime?: number;
  /** endTime - startTime. */
  duration?: number;
  /** `OK`, or the error's code (`NONODE`, `CONNECTIONLOSS`...). */
  resultCode?: string;
  /** The request frame's size, bytes. */
  bytesSent: number;
  /** The reply frame's size, bytes (undefined when no reply came). */
  bytesReceived?: number;
  /** Set by the tracing channel: the value the call resolved with. */
  result?: unknown;
  /** Set by the tracing channel: the error the call rejected with. */
  error?: unknown;
}

/** A session state change (`zookeeper-ts:session`). */
export interface SessionStateMessage {
  /** Tells the session messages apart. */
  readonly type: 'state';
  /** The session's id (0n before the first session). */
  readonly sessionId: bigint;
  /** The new state (`connected`, `suspended`, `expired`...). */
  readonly state: string;
  /** The state before. */
  readonly previous: string;
  /** Why, for moves the user did not ask for (a lost link, an expiry). */
  readonly cause: Error | undefined;
  /**
   * `host:port` of the server connected to, or last connected to (the one lost, for `suspended`);
   * null before the first connection.
   */
  readonly server: string | null;
}

/** A server accepted the handshake (`zookeeper-ts:session`). */
export interface SessionConnectMessage {
  /** Tells the session messages apart. */
  readonly type: 'connect';
  /** The session's id. */
  readonly sessionId: bigint;
  /** `host:port` of the server. */
  readonly server: string;
  /** False for the first connection of the client, true for every later one. */
  readonly reconnect: boolean;
  /** The server serves reads only. */
  readonly readOnly: boolean;
  /** From losing the previous link (or from connect()) to this handshake, ms. */
  readonly duration: number;
}

/** A new session after an expiry (`zookeeper-ts:session`). */
export interface SessionRenewedMessage {
  /** Tells the session messages apart. */
  readonly type: 'renewed';
  /** The id of the session that expired. */
  readonly previousSessionId: bigint;
  /** The id of the new session. */
  readonly sessionId: bigint;
}

/** The server answered credentials (`zookeeper-ts:session`). */
export interface SessionAuthMessage {
  /** Tells the session messages apart. */
  readonly type: 'auth';
  /** The credentials' scheme (`digest`...). */
  readonly scheme: string;
  /** Whether the server accepted them. */
  readonly ok: boolean;
  /** The refusal's code (`AUTHFAILED`...) when not ok. */
  readonly code: string | undefined;
}

/** Every message on `zookeeper-ts:session`, told apart by `type`. */
export type SessionMessage =
  | SessionStateMessage
  | SessionConnectMessage
  | SessionRenewedMessage
  | SessionAuthMessage;

/**
 * The server notified a watch and the session handed the event to its watchers
 * (`zookeeper-ts:watch`). One message per notification, however many watchers it reached.
 */
export interface WatchEventMessage {
  /** Tells the watch messages apart. */
  readonly type: 'event';
  /** The session the server notified. */
  readonly sessionId: bigint;
  /** The event's type (`NodeDeleted`, `NodeDataChanged`...). */
  readonly eventType: string;
  /** The node, relative to the chroot. */
  readonly path: string;
  /** How many one-shot watchers and persistent listeners it was handed to (0: none was left). */
  readonly delivered: number;
}

/** An acquire began (`zookeeper-ts:lock`). */
export interface LockAcquireStartMessage {
  /** Tells the lock messages apart. */
  readonly type: 'acquire-start';
  /** Ties the acquire's messages together (unique within the process). */
  readonly acquireId: number;
  /** The lock's path. */
  readonly lockPath: string;
  /** The recipe's node kind (`lock-`, `__READ__`, `__WRIT__`...). */
  readonly kind: string;
  /** The session the acquire runs on. */
  readonly sessionId: bigint;
}

/** How an acquire ended (`zookeeper-ts:lock`). */
export interface LockAcquireEndMessage {
  /** `granted`, `timeout` (its timeout ran out, or `timeout: 0` found it taken), `aborted`
   * (the caller's signal), `failed` (any other error). */
  readonly type: 'granted' | 'timeout' | 'aborted' | 'failed';
  /** The acquire's id (as in its `acquire-start`). */
  readonly acquireId: number;
  /** The lock's path. */
  readonly lockPath: string;
  /** The recipe's node kind. */
  readonly kind: string;
  /** From the acquire call to its end, ms. */
  readonly waitTime: number;
  /** Contenders ahead at entry (when the first listing was read); undefined before it. */
  readonly queuePosition: number | undefined;
  /** Whether it had to wait for a contender ahead. */
  readonly waited: boolean;
  /** The held node (granted only). */
  readonly node: string | undefined;
  /** The error, unless granted. */
  readonly error: unknown;
}

/** A held lock ended (`zookeeper-ts:lock`): released, or lost. */
export interface LockHoldEndMessage {
  /** Tells the lock messages apart. */
  readonly type: 'released' | 'lost';
  /** The lock's path. */
  readonly lockPath: string;
  /** The held node. */
  readonly node: string;
  /** The recipe's node kind. */
  readonly kind: string;
  /** From the grant to this end, ms. */
  readonly holdTime: number;
  /** Why it was lost (`deleted`, `suspended`, `expired`, `closed`, `auth-failed`); lost only. */
  readonly reason: string | undefined;
  /** A release after the loss was already reported (`released` only). */
  readonly afterLoss: boolean;
}

/** Leadership gained or lost, a revocation asked of a holder (`zookeeper-ts:lock`). */
export interface LockElectionMessage {
  /** Tells the lock messages apart. */
  readonly type: 'leader-gained' | 'leader-lost' | 'revocation-requested';
  /** The election's (or lock's) path. */
  readonly lockPath: string;
  /** This participant's (holder's) node. */
  readonly node: string;
  /** Why leadership ended (leader-lost): a loss reason, or `closed`. */
  readonly reason: string | undefined;
}

/** Every message on `zookeeper-ts:lock`, told apart by `type`. */
export type LockMessage =
  | LockAcquireStartMessage
  | LockAcquireEndMessage
  | LockHoldEndMessage
  | LockElectionMessage;
