// The public client: the documented surface of ZooKeeper's operations over one Session. Each
// method hands its work to the file of its kind (writes, reads, transactions, watching, ensemble);
// this class holds the session and the chroot mapping they share, and the session's accessors.
/// <reference path="../disposable.ts" preserve="true" />
/// <reference path="../web-globals.ts" preserve="true" />
import { makeError, ZooKeeperError } from '../protocol/errors.js';
import { formatHost } from '../session/hosts.js';
import type { Session } from '../session/session.js';
import { toBytes } from './bytes.js';
import type { ClientCore } from './core.js';
import * as ensemble from './ensemble.js';
import { ClientRelay, Listeners, type Unsubscribe } from './listeners.js';
import type { Op, OpResult, ReadOp } from './multi.js';
import { openSession } from './open.js';
import { Paths } from './paths.js';
import type { PersistentWatchIterator } from './persistent-watch.js';
import * as reads from './reads.js';
import { serverVersion } from './server-version.js';
import * as transactions from './transactions.js';
import type {
  ACL,
  CallOptions,
  ClientEvents,
  ClientInfo,
  ConnectOptions,
  CreateOptions,
  Data,
  PersistentWatchOptions,
  ReconfigOptions,
  RemoveWatchesOptions,
  ServerVersion,
  ServerVersionOptions,
  SessionState,
  Stat,
  WatcherKind,
  WatchOptions,
} from './types.js';
import * as watching from './watching.js';
import * as writes from './writes.js';

/** The client's events: one array for every client, not one per instance. */
const CLIENT_EVENTS = ['state', 'closing', 'renewed'] as const;

/**
 * A ZooKeeper session and its operations. Made by {@link connect}; every path is relative to the
 * chroot of the connect string. Operations reject with a {@link ZooKeeperError} whose `code` is
 * the server's (`NONODE`, `BADVERSION`, ...), or `CONNECTIONLOSS` when the link dropped before the
 * reply (the session itself may survive: the client reconnects on its own). `await using` closes
 * it.
 */
export class Client implements AsyncDisposable {
  private readonly core: ClientCore;
  /** Set by the first close(): see {@link closing}. */
  private closeRequested = false;
  private readonly listeners = new Listeners<ClientEvents>(CLIENT_EVENTS);

  private constructor(
    private readonly session: Session,
    chroot: string,
    dial: ClientCore['dial'],
  ) {
    this.core = { session, paths: new Paths(chroot), dial };
    session.relayTo(new ClientRelay(this.listeners));
  }

  /**
   * @internal The session and chroot mapping behind `client` when it is a Client: the seam the
   * lock engine sends its requests through (src/locks/seam.ts). Undefined for anything else.
   */
  static coreOf(client: unknown): ClientCore | undefined {
    return client instanceof Client ? client.core : undefined;
  }

  /** Connects and resolves once a session is established (see `connect`). */
  static async connect(connectString: string, options: ConnectOptions = {}): Promise<Client> {
    const { session, chroot, dial } = await openSession(connectString, options);
    return new Client(session, chroot, dial);
  }

  /** The session's state now (`'connected'`, `'suspended'`, ...; see {@link SessionState}). */
  get state(): SessionState {
    return this.session.state;
  }
  /** The session id the server gave (0n before the first connection, and while a new session is sought after an expiry). */
  get sessionId(): bigint {
    return this.session.sessionId;
  }
  /** The session password: with `sessionId`, enough to resume this session from elsewhere. */
  get sessionPassword(): Uint8Array {
    return this.session.sessionPassword;
  }
  /** The negotiated session timeout, ms. */
  get sessionTimeout(): number {
    return this.session.sessionTimeout;
  }
  /** The zxid of the last change this session has seen (reads never go back before it). */
  get lastZxid(): bigint {
    return this.session.lastZxid;
  }
  /** The chroot from the connect string (`/app` in `host:2181/app`), or `''`. */
  get chroot(): string {
    return this.core.paths.chroot;
  }
  /** `host:port` of the server the session is connected to, or null while not connected. */
  get server(): string | null {
    const server = this.session.server;
    return server ? formatHost(server) : null;
  }

  /**
   * True once `close()` has been called. From that moment the server may end the session, and
   * delete its ephemeral nodes, at any instant, before this client hears the close reply; the lock
   * recipes count their leases as lost from here on.
   */
  get closing(): boolean {
    return this.closeRequested;
  }

  /**
   * Listens to an event; returns the unsubscribe function.
   * - `'state'`: the session changed state. The second argument says where from, and why when the
   *   client did not ask for it: for `suspended`, `cause` is what broke the link (the runtime's
   *   error such as ECONNRESET or a TLS alert, or the client's own reason such as a silent
   *   server); for `expired` and the other final states, the error that ended it.
   * - `'closing'`: called once, synchronously, when `close()` is first called, before the server
   *   is asked to end the session (see {@link closing}). Added after that, it is never called.
   * - `'renewed'`: a new session replaced an expired one (see `ConnectOptions.renewSession`),
   *   with both session ids; called before the state moves to `connected`.
   */
  on<E extends keyof ClientEvents>(event: E, listener: ClientEvents[E]): Unsubscribe {
    if (event === 'error') return this.listeners.on('error', listener as ClientEvents['error']);
    if (event !== 'state' && event !== 'closing' && event !== 'renewed') {
      throw makeError('BADARGUMENTS', `unknown event "${String(event)}"`);
    }
    // Registered (and checked) through the one registry; the session calls `emit` for it.
    const unsubscribe = this.listeners.on(event, listener);
    if (event === 'closing' && this.closeRequested) unsubscribe();
    return unsubscribe;
  }

  // ---- writes --------------------------------------------------------------------------------

  /**
   * Creates a node and resolves with its actual path (with the counter, for a sequential mode).
   * Rejects with NODEEXISTS, NONODE (no parent), NOCHILDRENFOREPHEMERALS, ...
   */
  async create(
    path: string,
    data?: Data,
    options: CreateOptions & CallOptions = {},
  ): Promise<string> {
    return (await writes.createNode(this.core, path, data, options, 'create')).path;
  }

  /** As {@link create}, and also resolves with the new node's metadata. */
  create2(
    path: string,
    data?: Data,
    options: CreateOptions & CallOptions = {},
  ): Promise<{
    /** The actual path (with the counter, for a sequential mode). */
    path: string;
    /** The new node's metadata. */
    stat: Stat;
  }> {
    return writes.createNode(this.core, path, data, options, 'create2') as Promise<{
      path: string;
      stat: Stat;
    }>;
  }

  /** Deletes a node if its version is `version` (-1: any). Rejects with NONODE, BADVERSION, NOTEMPTY. */
  delete(path: string, version = -1, options: CallOptions = {}): Promise<void> {
    return writes.deleteNode(this.core, path, version, options);
  }

  /** Replaces a node's data if its version is `version` (-1: any); resolves with the new metadata. */
  setData(path: string, data: Data, version = -1, options: CallOptions = {}): Promise<Stat> {
    return writes.setData(this.core, path, data, version, options);
  }

  /** Replaces a node's ACL if its ACL version is `version` (-1: any); resolves with the new metadata. */
  setACL(
    path: string,
    acl: readonly ACL[],
    version = -1,
    options: CallOptions = {},
  ): Promise<Stat> {
    return writes.setACL(this.core, path, acl, version, options);
  }

  /** Atomic: all ops apply or none. On failure rejects with the first failing op's code and `results`. */
  multi(ops: readonly Op[], options: CallOptions = {}): Promise<OpResult[]> {
    return transactions.multi(this.core, ops, options);
  }

  /** Several reads in one round trip; each succeeds or fails on its own (not atomic). */
  multiRead(ops: readonly ReadOp[], options: CallOptions = {}): Promise<OpResult[]> {
    return transactions.multiRead(this.core, ops, options);
  }

  // ---- reads ---------------------------------------------------------------------------------

  /** The node's metadata, or null if it does not exist; a `watch` fires on its creation, change or deletion. */
  exists(path: string, options: WatchOptions & CallOptions = {}): Promise<Stat | null> {
    return reads.exists(this.core, path, options);
  }

  /** A node's data and metadata; a `watch` fires on its next change or deletion. Rejects with NONODE. */
  getData(
    path: string,
    options: WatchOptions & CallOptions = {},
  ): Promise<{
    /** The node's data (empty for a node created without data). */
    data: Uint8Array;
    /** The node's metadata. */
    stat: Stat;
  }> {
    return reads.getData(this.core, path, options);
  }

  /** The names (not paths) of a node's children, unordered; a `watch` fires when they change. */
  getChildren(path: string, options: WatchOptions & CallOptions = {}): Promise<string[]> {
    return reads.getChildren(this.core, path, options);
  }

  /** As {@link getChildren}, and also resolves with the node's metadata. */
  getChildren2(
    path: string,
    options: WatchOptions & CallOptions = {},
  ): Promise<{
    /** The names of the children, unordered. */
    children: string[];
    /** The node's metadata. */
    stat: Stat;
  }> {
    return reads.getChildren2(this.core, path, options);
  }

  /** A node's ACL and metadata (`stat.aversion` is the version setACL checks). */
  getACL(
    path: string,
    options: CallOptions = {},
  ): Promise<{
    /** The node's ACL. */
    acl: ACL[];
    /** The node's metadata. */
    stat: Stat;
  }> {
    return reads.getACL(this.core, path, options);
  }

  /** Makes this session's server catch up with the leader for `path` before later reads. */
  sync(path: string, options: CallOptions = {}): Promise<void> {
    return reads.sync(this.core, path, options);
  }

  /** This session's ephemeral nodes under `prefix` (relative to the chroot, as every path here). */
  getEphemerals(prefix = '/', options: CallOptions = {}): Promise<string[]> {
    return reads.getEphemerals(this.core, prefix, options);
  }

  /** Number of descendants of `path` (the node itself excluded). */
  getAllChildrenNumber(path: string, options: CallOptions = {}): Promise<number> {
    return reads.getAllChildrenNumber(this.core, path, options);
  }

  /** The identities this session is authenticated as (ip, digest, x509, ...). */
  whoAmI(options: CallOptions = {}): Promise<ClientInfo[]> {
    return reads.whoAmI(this.core, options);
  }

  /**
   * The version of the server the session is connected to (`3.9.2`, with its parts and the build
   * text), as the server tells it to the `srvr` four-letter word (or `envi`), asked on a side
   * connection. Rejects with CONNECTIONLOSS while not connected, UNIMPLEMENTED when the server's
   * `4lw.commands.whitelist` allows neither word (`srvr` is allowed by default).
   */
  serverVersion(options?: ServerVersionOptions): Promise<ServerVersion> {
    return serverVersion(this.core, options);
  }

  /** Adds credentials to the session (kept and re-sent after reconnects). */
  async addAuth(scheme: string, credentials: string | Uint8Array): Promise<void> {
    if (typeof scheme !== 'string' || scheme === '') {
      throw makeError('BADARGUMENTS', 'scheme must be a non-empty string', {
        op: 'addAuth',
      });
    }
    await this.session.addAuth(scheme, toBytes(credentials, undefined, 'addAuth'));
  }

  // ---- the ensemble --------------------------------------------------------------------------

  /**
   * The ensemble's dynamic configuration (`/zookeeper/config`, never chrooted). With
   * `follow: true` the client also adopts the member list it reads: the way to follow a reconfig
   * made by another client. (Not the default: clients reaching the ensemble through proxies or
   * NAT must keep the addresses they were given.)
   */
  getConfig(
    options: WatchOptions &
      CallOptions & {
        /** Adopt the member list read as this client's host list. Default false. */
        follow?: boolean;
      } = {},
  ): Promise<{
    /** The configuration text (`server.1=...` lines and `version=...`). */
    config: string;
    /** The metadata of the config node. */
    stat: Stat;
  }> {
    return ensemble.getConfig(this.core, options);
  }

  /**
   * Changes the ensemble's membership (server needs reconfigEnabled=true and an authorised
   * session); afterwards this client follows the new member list.
   */
  reconfig(options: ReconfigOptions): Promise<{
    /** The new configuration text. */
    config: string;
    /** The metadata of the config node after the change. */
    stat: Stat;
  }> {
    return ensemble.reconfig(this.core, options);
  }

  /**
   * Replaces the host list (the session stays on its current server if that is still listed).
   * A chroot in `connectString` must be the client's own (or absent): a different one is refused
   * with BADARGUMENTS before anything changes, since a client's chroot never changes.
   */
  updateServerList(connectString: string): void {
    ensemble.updateServerList(this.core, connectString);
  }

  // ---- watches -------------------------------------------------------------------------------

  /**
   * A persistent (or persistent recursive) watch as an async iterator. It survives reconnects;
   * ending the iteration or aborting `signal` removes it on the server.
   */
  watch(path: string, options: PersistentWatchOptions = {}): PersistentWatchIterator {
    return watching.watch(this.core, path, options);
  }

  /**
   * Removes every watcher of `kind` on `path`, on the server and locally; each removed watcher is
   * told with a *WatchRemoved event. `local: true` removes them locally even when the server
   * cannot be reached.
   */
  removeWatches(
    path: string,
    kind: WatcherKind,
    options: RemoveWatchesOptions = {},
  ): Promise<void> {
    return watching.removeWatches(this.core, path, kind, options);
  }

  // ---- lifecycle -----------------------------------------------------------------------------

  /**
   * Ends the session: its ephemeral nodes go at once. Idempotent. `closing` turns true and the
   * 'closing' listeners run before anything is sent.
   */
  close(): Promise<void> {
    if (!this.closeRequested) {
      this.closeRequested = true;
      // A throwing listener never keeps the session from closing (see listeners.ts).
      this.listeners.emit('closing');
      this.listeners.clear('closing');
    }
    return this.session.close();
  }

  /** What `await using` calls: {@link close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** @internal Drops the current connection; the session resumes on the next server. */
  dropConnection(reason?: string): void {
    this.session.dropConnection(reason);
  }
}

/**
 * Connects to a ZooKeeper ensemble and resolves once a session is established. A wait like every
 * other: `{ timeout }` (or `connectTimeout`, default 10 s) rejects with a `TimeoutError`, `{ signal }`
 * with its reason at once; either way the half-made session is closed.
 */
export function connect(connectString: string, options?: ConnectOptions): Promise<Client> {
  return Client.connect(connectString, options);
}
