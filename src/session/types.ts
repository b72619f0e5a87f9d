// The public types the engine itself speaks in: session states, watch events and TLS settings.
// Everything else users program against is the client's (src/client/types.ts re-exports these).

/** Session states. `expired`, `auth-failed` and `closed` are final. */
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
  /** Not a node event: the session ended (expired, closed, auth failed); `state` says which. */
  | 'None';

/** A watch notification. */
export interface WatchedEvent {
  /** What happened. */
  type: EventType;
  /** Path relative to the chroot. */
  path: string;
  /** Present on `None` events only: the final session state that ended the watch. */
  state?: SessionState;
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
