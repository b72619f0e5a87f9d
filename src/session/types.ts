// Public types of the client: the shapes users program against (see shared/API.md).
import { CreateFlag, Perms as ProtocolPerms } from '../protocol/ops.js';

/** Session states. `expired`, `auth-failed` and `closed` are final. */
export type SessionState =
  | 'connecting'
  | 'connected'
  | 'connected-readonly'
  | 'suspended'
  | 'expired'
  | 'auth-failed'
  | 'closed';

/** Node metadata. zxids and session ids are bigint (they exceed 2^53); times are ms since the epoch. */
export interface Stat {
  czxid: bigint;
  mzxid: bigint;
  ctime: number;
  mtime: number;
  version: number;
  cversion: number;
  aversion: number;
  ephemeralOwner: bigint;
  dataLength: number;
  numChildren: number;
  pzxid: bigint;
}

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

export interface WatchedEvent {
  type: EventType;
  /** Path relative to the chroot. */
  path: string;
  /** Present on `None` events only: the final session state that ended the watch. */
  state?: SessionState;
}

/** A one-shot watcher, as in ZooKeeper: it fires once per registration and trigger. */
export type Watcher = (event: WatchedEvent) => void;

export interface Id {
  scheme: string;
  id: string;
}

export interface ACL {
  perms: number;
  id: Id;
}

export interface ClientInfo {
  authScheme: string;
  user: string;
}

export interface AuthInfo {
  scheme: string;
  /** For `digest`: `user:password`. Strings are UTF-8 encoded. */
  credentials: string | Uint8Array;
}

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

export type Data = Uint8Array | string;

/** How a node is created; values are ZooKeeper's CreateMode flags (one table, in the protocol). */
export const CreateMode = CreateFlag;
export type CreateMode = (typeof CreateMode)[keyof typeof CreateMode];

/** Permission bits of an ACL entry. */
export const Perms = ProtocolPerms;

/** Well-known ids and ACLs, as in ZooKeeper's ZooDefs.Ids. */
export const Ids = {
  ANYONE_ID_UNSAFE: Object.freeze({ scheme: 'world', id: 'anyone' }) as Id,
  AUTH_IDS: Object.freeze({ scheme: 'auth', id: '' }) as Id,
  OPEN_ACL_UNSAFE: Object.freeze([
    Object.freeze({ perms: 31, id: { scheme: 'world', id: 'anyone' } }),
  ]) as readonly ACL[],
  CREATOR_ALL_ACL: Object.freeze([
    Object.freeze({ perms: 31, id: { scheme: 'auth', id: '' } }),
  ]) as readonly ACL[],
  READ_ACL_UNSAFE: Object.freeze([
    Object.freeze({ perms: 1, id: { scheme: 'world', id: 'anyone' } }),
  ]) as readonly ACL[],
} as const;

export interface CreateOptions {
  mode?: CreateMode;
  acl?: readonly ACL[];
  /** Time to live in ms, for the *_WITH_TTL modes (server needs extendedTypesEnabled). */
  ttl?: number;
}

export interface WatchOptions {
  watch?: Watcher;
}

export interface PersistentWatchOptions {
  /** Also watch every descendant (PERSISTENT_RECURSIVE). */
  recursive?: boolean;
  /** Aborting ends the iteration and removes the watch on the server. */
  signal?: AbortSignal;
}

/** Kinds accepted by `removeWatches`. */
export type WatcherKind = 'children' | 'data' | 'any' | 'persistent' | 'persistentRecursive';

export interface RemoveWatchesOptions {
  /** Remove the local watchers even if the server cannot be reached. */
  local?: boolean;
}

export interface ConnectOptions {
  /** Requested session timeout in ms; the server negotiates it (see `client.sessionTimeout`). Default 30 000. */
  sessionTimeout?: number;
  /** `connect()` rejects if no session is established by then, ms. Default 10 000. */
  connectTimeout?: number;
  /** Accept read-only servers (canBeReadOnly). Default false. */
  readOnly?: boolean;
  /** Credentials sent after every (re)connect. */
  auth?: readonly AuthInfo[];
  /**
   * SASL authentication (DIGEST-MD5), run after every (re)connect before any other request;
   * requests made meanwhile wait for it. `connect()` resolves only once the server accepted the
   * credentials; bad ones end the session with AUTHFAILED (`connect()` rejects, or, after a
   * reconnect, the session moves to `auth-failed`). Combines with `auth` and TLS.
   *
   * @example
   * await connect('zk:2181', { sasl: { mechanism: 'DIGEST-MD5', username: 'app', password } });
   */
  sasl?: import('./sasl/options.js').SaslOptions;
  /** `true` for TLS with the system CAs, or TLS options. */
  tls?: boolean | TlsOptions;
  /** Runtime adapter; the right one for the runtime is picked by default. */
  transport?: import('./transport.js').Transport;
  /**
   * Each call rejects with REQUESTTIMEOUT when no reply came within this many ms (its reply, if
   * it comes later, is dropped). Default 0: a call waits as long as the session lives.
   */
  requestTimeout?: number;
  /** Largest frame accepted or sent, bytes (ZooKeeper's jute.maxbuffer). Default 1 048 575. */
  maxFrameSize?: number;
  /** Resume an existing session (e.g. one stored by a previous request in a serverless runtime). */
  session?: { id: bigint; password: Uint8Array };
  /** Shuffle the host list before use (default true, as the Java client). */
  shuffleHosts?: boolean;
}
