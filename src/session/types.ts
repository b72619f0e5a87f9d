// The public types the engine itself speaks in: session states, watch events and TLS settings.
// Everything else users program against is the client's (src/client/types.ts re-exports these).

/**
 * Session states. `auth-failed` and `closed` are final. `expired` ends one server session: with
 * renewal (the default, `ConnectOptions.renewSession`) the client then moves to `connecting` for a
 * new session; without it, `expired` is final too.
 */
export type SessionState =
  | 'connecting'
  | 'connected'
  | 'connected-readonly'
  | 'suspended'
  | 'expired'
  | 'auth-failed'
  | 'closed';

/** What happened to a watched node (Java's Watcher.Event.EventType names). */
export type EventType =
  | 'NodeCreated'
  | 'NodeDeleted'
  | 'NodeDataChanged'
  | 'NodeChildrenChanged'
  | 'DataWatchRemoved'
  | 'ChildWatchRemoved'
  | 'PersistentWatchRemoved'
  /**
   * Not a node event, for persistent watches only: the watch was armed again after a gap (a
   * reconnect, or a new session after an expiry) and changes made meanwhile may have been missed.
   * Read again what you follow. `cause` says which gap.
   */
  | 'Resync'
  /** Not a node event: the session ended (expired, closed, auth failed); `state` says which. */
  | 'None';

/** Why a persistent watch was told to resync: a reconnect of the same session, or a new session. */
export type ResyncCause = 'reconnect' | 'renewal';

/** A watch notification. */
export interface WatchedEvent {
  /** What happened. */
  type: EventType;
  /** Path relative to the chroot. */
  path: string;
  /** Present on `None` events only: the final session state that ended the watch. */
  state?: SessionState;
  /** Present on `Resync` events only: what the gap was. */
  cause?: ResyncCause;
}

/** A one-shot watcher, as in ZooKeeper: it fires once per registration and trigger. */
export type Watcher = (event: WatchedEvent) => void;

/** TLS settings of a connection (`ConnectOptions.tls`). */
export interface TlsOptions {
  /** PEM CA certificate(s) that sign the server certificate. */
  ca?: string | string[];
  /** PEM client certificate, for servers that want or need client auth (x509 scheme). */
  cert?: string;
  /** PEM private key of `cert`. */
  key?: string;
  /** Server name for SNI and certificate checks; defaults to the host connected to. */
  servername?: string;
  /** Verify the server certificate (default true). */
  rejectUnauthorized?: boolean;
}
