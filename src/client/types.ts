// Public types of the client: the shapes users program against. The few the engine itself speaks
// in (session states, watch events, TLS settings) are declared in src/session/types.ts and
// re-exported here, so that users and the lock recipes find every public type in one module.
import type { ZooKeeperError } from '../protocol/errors.js';
import { CreateFlag, Perms as ProtocolPerms } from '../protocol/ops.js';
import type { SessionRenewal } from '../session/renewal.js';
import type { SaslOptions } from '../session/sasl/options.js';
import type { StopSignal } from '../session/signal-waiters.js';
import type { Transport } from '../session/transport.js';
import type { SessionState, TlsOptions, Watcher } from '../session/types.js';

export type { SessionRenewal } from '../session/renewal.js';
export type {
  EventType,
  ResyncCause,
  SessionState,
  TlsOptions,
  WatchedEvent,
  Watcher,
} from '../session/types.js';

/** What a state listener learns besides the new state (see `Client.on('state')`). */
export interface StateChange {
  /** The state before this change. */
  previous: SessionState;
  /**
   * Why, when the client did not ask for it: what broke the link (a `ConnectionLossError` whose
   * own `cause` is the runtime's error, such as ECONNRESET), or what ended the session (a
   * `SessionExpiredError`, ...). Absent for a move the user asked for, such as `close()`.
   */
  cause?: ZooKeeperError;
}

/** The events of `Client.on`, and what each listener receives. */
export interface ClientEvents {
  /** The session changed state (see `Client.on`). */
  state: (state: SessionState, change: StateChange) => void;
  /**
   * `close()` was called: from now on the server may end the session, and delete its ephemeral
   * nodes, at any instant (see `Client.closing`). Called once, before anything is sent.
   */
  closing: () => void;
  /**
   * A new session replaced an expired one (see `ConnectOptions.renewSession`): called once per
   * renewal, when a server has granted the new session and before the state moves to
   * `connected`. Every ephemeral node of the old session is gone; one-shot watches of the old
   * session have ended; persistent watches carry on (each first yields a `Resync` event).
   */
  renewed: (renewal: SessionRenewal) => void;
  /**
   * A listener of this client threw (or its promise rejected): a `ListenerError` whose `cause` is
   * what it threw. The client carries on; with no `error` listener it goes to `console.error`.
   */
  error: (error: Error) => void;
}

/** Node metadata. zxids and session ids are bigint (they exceed 2^53); times are ms since the epoch. */
export interface Stat {
  /** zxid of the transaction that created the node. */
  czxid: bigint;
  /** zxid of the transaction that last modified the node's data. */
  mzxid: bigint;
  /** Creation time, ms since the epoch. */
  ctime: number;
  /** Last data modification time, ms since the epoch. */
  mtime: number;
  /** Number of changes to the data (the version that setData and delete check). */
  version: number;
  /** Number of changes to the children. */
  cversion: number;
  /** Number of changes to the ACL. */
  aversion: number;
  /** Session id of the owner for an ephemeral node, else 0n. */
  ephemeralOwner: bigint;
  /** Length of the data, bytes. */
  dataLength: number;
  /** Number of children. */
  numChildren: number;
  /** zxid of the last change to the children. */
  pzxid: bigint;
}

/** An identity in an ACL: a scheme and an id within it. */
export interface Id {
  /** `world`, `auth`, `digest`, `ip`, `x509`, `sasl`, ... */
  scheme: string;
  /** The id in that scheme: `anyone` for `world`, `user:base64(sha1(user:password))` for `digest`, ... */
  id: string;
}

/** One ACL entry: permissions granted to an identity. */
export interface ACL {
  /** {@link Perms} bits, OR-ed together. */
  perms: number;
  /** Who gets them. */
  id: Id;
}

/** One identity the server knows the session by (the answer of `whoAmI`). */
export interface ClientInfo {
  /** The authentication scheme (`ip`, `digest`, `x509`, ...). */
  authScheme: string;
  /** The user within that scheme. */
  user: string;
}

/** Credentials sent with addAuth, and after every reconnect. */
export interface AuthInfo {
  /** The authentication scheme, e.g. `digest`. */
  scheme: string;
  /** For `digest`: `user:password`. Strings are UTF-8 encoded. */
  credentials: string | Uint8Array;
}

/** Node data: bytes, or a string sent UTF-8 encoded. */
export type Data = Uint8Array | string;

/** How a node is created; values are ZooKeeper's CreateMode flags (one table, in the protocol). */
export const CreateMode = CreateFlag;
export type CreateMode = (typeof CreateMode)[keyof typeof CreateMode];

/** Permission bits of an ACL entry. */
export const Perms = ProtocolPerms;

/** Well-known ids and ACLs, as in ZooKeeper's ZooDefs.Ids. */
export const Ids = {
  /** Everyone (`world:anyone`). */
  ANYONE_ID_UNSAFE: Object.freeze({ scheme: 'world', id: 'anyone' }) as Id,
  /** Whoever the session authenticated as (`auth:`), resolved by the server at create/setACL time. */
  AUTH_IDS: Object.freeze({ scheme: 'auth', id: '' }) as Id,
  /** Everything for everyone. */
  OPEN_ACL_UNSAFE: Object.freeze([
    Object.freeze({ perms: Perms.ALL, id: { scheme: 'world', id: 'anyone' } }),
  ]) as readonly ACL[],
  /** Everything for the creator's authenticated identities only (needs addAuth first). */
  CREATOR_ALL_ACL: Object.freeze([
    Object.freeze({ perms: Perms.ALL, id: { scheme: 'auth', id: '' } }),
  ]) as readonly ACL[],
  /** Read-only for everyone. */
  READ_ACL_UNSAFE: Object.freeze([
    Object.freeze({ perms: Perms.READ, id: { scheme: 'world', id: 'anyone' } }),
  ]) as readonly ACL[],
} as const;

/** Options of `create`, `create2` and `Op.create`. */
export interface CreateOptions {
  /** How the node is created. Default {@link CreateMode.PERSISTENT}. */
  mode?: CreateMode;
  /** The node's ACL. Default {@link Ids.OPEN_ACL_UNSAFE}. */
  acl?: readonly ACL[];
  /** Time to live in ms, for the *_WITH_TTL modes (server needs extendedTypesEnabled). */
  ttl?: number;
}

/** Options of the reads that can leave a one-shot watch (`exists`, `getData`, `getChildren`). */
export interface WatchOptions {
  /** Called once on the next change of the node (or its children, for getChildren). */
  watch?: Watcher;
}

/** Options of `watch()`: a persistent watch that outlives its triggers. */
export interface PersistentWatchOptions {
  /** Also watch every descendant (PERSISTENT_RECURSIVE). */
  recursive?: boolean;
  /** Aborting ends the iteration and removes the watch on the server. */
  signal?: AbortSignal;
}

/** Kinds accepted by `removeWatches`. */
export type WatcherKind = 'children' | 'data' | 'any' | 'persistent' | 'persistentRecursive';

/** Options of `removeWatches`. */
export interface RemoveWatchesOptions {
  /** Remove the local watchers even if the server cannot be reached. */
  local?: boolean;
}

/** Options of {@link connect}. */
export interface ConnectOptions {
  /** Requested session timeout in ms; the server negotiates it (see `client.sessionTimeout`). Default 30 000. */
  sessionTimeout?: number;
  /**
   * How long `connect()` waits for a session, ms: when it runs out, `connect()` rejects with a
   * `TimeoutError` (code `TIMEOUT`) that names the hosts tried, with the last connection error
   * as its `cause`. The same limit as `connectTimeout`, under the name every wait of the library
   * uses; it wins when both are given. Default: `connectTimeout`.
   */
  timeout?: number;
  /**
   * Gives up the connect: `connect()` rejects at once with the signal's reason. Either way the
   * half-made session is closed (the dialling stops; no timer or listener is left): there is no
   * client to close. Once `connect()` has resolved, the signal no longer concerns the client.
   */
  signal?: AbortSignal;
  /**
   * `connect()` rejects with a `TimeoutError` if no session is established by then, ms (see
   * `timeout`, the same limit). Default 10 000.
   */
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
  sasl?: SaslOptions;
  /** `true` for TLS with the system CAs, or TLS options. */
  tls?: boolean | TlsOptions;
  /** Runtime adapter; the right one for the runtime is picked by default. */
  transport?: Transport;
  /**
   * Each call rejects with REQUESTTIMEOUT when no reply came within this many ms (its reply, if
   * it comes later, is dropped). Default 0: a call waits as long as the session lives.
   */
  requestTimeout?: number;
  /** Largest frame accepted or sent, bytes (ZooKeeper's jute.maxbuffer). Default 1 048 575. */
  maxFrameSize?: number;
  /** Resume an existing session (e.g. one stored by a previous request in a serverless runtime). */
  session?: {
    /** The session id (`client.sessionId`). */
    id: bigint;
    /** The session password (`client.sessionPassword`). */
    password: Uint8Array;
  };
  /** Shuffle the host list before use (default true, as the Java client). */
  shuffleHosts?: boolean;
  /**
   * After the session expires, open a new one on the same client and carry on, as Curator and
   * kazoo do (default true). The state moves `expired` (the old session id still readable) ->
   * `connecting` -> `connected`, and the `'renewed'` event names the new session. Calls in
   * flight at the expiry reject with SESSIONEXPIRED; calls made after it wait for the new
   * session. `false`: `expired` is final and every later call rejects (short scripts, tests).
   * A first connect that resumes an expired session (`session`) fails either way.
   */
  renewSession?: boolean;
}

/** Options accepted by every operation besides its own. */
export interface CallOptions {
  /** Stop waiting for the reply (the call rejects with the signal's reason). */
  signal?: AbortSignal;
  /**
   * @internal As `signal`, for the library's own waits: a recipe's wait bound (its caller's
   * signal, its timeout and its object's close in one object) stops the calls it makes without
   * an AbortController made per wait. Read only when `signal` is not given.
   */
  stop?: StopSignal;
}

/** Options of `reconfig`: the membership change, and the call's own options. */
export interface ReconfigOptions extends CallOptions {
  /** Servers to add, e.g. `server.4=127.0.0.1:2890:3890;2184`, comma separated. */
  joining?: string;
  /** Server ids to remove, comma separated. */
  leaving?: string;
  /** The whole new member list (non-incremental reconfig). */
  newMembers?: string;
  /** Only apply if the current config version is this (-1 = any). */
  fromConfig?: bigint;
}

/** What `client.serverVersion()` learned: the server's version, from its own words. */
export interface ServerVersion {
  /** `major.minor.patch`, as `'3.9.2'`. */
  readonly version: string;
  /** The first number of the version. */
  readonly major: number;
  /** The second number of the version. */
  readonly minor: number;
  /** The third number of the version. */
  readonly patch: number;
  /** The server's whole version text, as `'3.9.2-e454e8c7…, built on 2024-02-12 20:59 UTC'`. */
  readonly full: string;
  /** `host:port` of the server that answered: the one the session was connected to. */
  readonly server: string;
}

/** Options of `client.serverVersion()`. */
export interface ServerVersionOptions {
  /** Give up after this many ms (default 10,000): the call rejects with a `TimeoutError`. */
  timeout?: number;
  /** Stop waiting: the call rejects with the signal's reason. */
  signal?: AbortSignal;
}
