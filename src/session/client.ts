// The public client: ZooKeeper operations with chroot handling, argument checks, one-shot and
// persistent watches, over one Session.
/// <reference path="../disposable.ts" preserve="true" />
import { codecs } from '../protocol/codecs.js';
import { errorFromCode, makeError, ZooKeeperError } from '../protocol/errors.js';
import { WatcherTypeCode } from '../protocol/ops.js';
import { validatePath } from '../protocol/paths.js';
import { checkAcl, checkOptions, checkVersion, checkWatcher } from './arguments.js';
import { toBytes } from './bytes.js';
import { parseServerList } from './config.js';
import { formatHost, HostList, parseConnectString } from './hosts.js';
import {
  createRequest,
  fromMultiResult,
  type Op,
  type OpResult,
  type ReadOp,
  toMultiOp,
  toMultiReadOp,
} from './multi.js';
import { Paths } from './paths.js';
import { PersistentWatch, type PersistentWatchIterator } from './persistent-watch.js';
import { checkSaslOptions } from './sasl/options.js';
import { Session, type SubmitDetails } from './session.js';
import { toStat } from './stat.js';
import type { Transport } from './transport.js';
import { defaultTransport } from './transports/default.js';
import type {
  ACL,
  ClientInfo,
  ConnectOptions,
  CreateOptions,
  Data,
  PersistentWatchOptions,
  RemoveWatchesOptions,
  SessionState,
  Stat,
  StateChange,
  Watcher,
  WatcherKind,
  WatchOptions,
} from './types.js';
import { CONFIG_NODE, CONFIG_WATCH_KEY, type OneShotKind } from './watches.js';

/** Options accepted by every operation besides its own. */
export interface CallOptions {
  /** Stop waiting for the reply (the call rejects with the signal's reason). */
  signal?: AbortSignal;
}

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

const NONODE = -101;

/**
 * A ZooKeeper session and its operations. Made by {@link connect}; every path is relative to the
 * chroot of the connect string. Operations reject with a {@link ZooKeeperError} whose `code` is
 * the server's (`NONODE`, `BADVERSION`, ...), or `CONNECTIONLOSS` when the link dropped before the
 * reply (the session itself may survive: the client reconnects on its own). `await using` closes
 * it.
 */
export class Client implements AsyncDisposable {
  private readonly paths: Paths;

  private constructor(
    private readonly session: Session,
    chroot: string,
  ) {
    this.paths = new Paths(chroot);
  }

  /** Connects and resolves once a session is established (see `connect`). */
  static async connect(connectString: string, options: ConnectOptions = {}): Promise<Client> {
    const { hosts, chroot } = parseConnectString(connectString);
    const sessionTimeout = options.sessionTimeout ?? 30_000;
    const connectTimeout = options.connectTimeout ?? 10_000;
    for (const [name, value] of [
      ['sessionTimeout', sessionTimeout],
      ['connectTimeout', connectTimeout],
    ] as const) {
      if (!Number.isFinite(value) || value <= 0) {
        throw makeError('BADARGUMENTS', `${name} must be a positive number of ms, got ${value}`);
      }
    }
    const transport: Transport = options.transport ?? (await defaultTransport());
    const tls = options.tls === true ? {} : options.tls || undefined;
    const session = new Session({
      hosts: new HostList(hosts, options.shuffleHosts ?? true),
      chroot,
      sessionTimeout,
      connectTimeout,
      readOnly: options.readOnly ?? false,
      auth: (options.auth ?? []).map(({ scheme, credentials }) => ({
        scheme,
        auth: toBytes(credentials, undefined, 'auth'),
      })),
      ...(options.sasl === undefined ? {} : { sasl: checkSaslOptions(options.sasl) }),
      tls,
      transport,
      maxFrameSize: options.maxFrameSize,
      requestTimeout: options.requestTimeout,
      resume: options.session,
    });
    await session.start();
    return new Client(session, chroot);
  }

  /** The session's state now (`'connected'`, `'suspended'`, ...; see {@link SessionState}). */
  get state(): SessionState {
    return this.session.state;
  }
  /** The session id the server gave (0n before the first connection). */
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
    return this.paths.chroot;
  }
  /** `host:port` of the server the session is connected to, or null while not connected. */
  get server(): string | null {
    const server = this.session.server;
    return server ? formatHost(server) : null;
  }

  /** Listens to session state changes; returns the unsubscribe function. */
  /**
   * Listens to session state changes; returns the unsubscribe function. The second argument says
   * where from, and why when the client did not ask for it: for `suspended`, `cause` is what broke
   * the link (the runtime's error such as ECONNRESET or a TLS alert, or the client's own reason
   * such as a silent server); for `expired` and the other final states, the error that ended it.
   */
  on(event: 'state', listener: (state: SessionState, change: StateChange) => void): () => void {
    if (event !== 'state') throw makeError('BADARGUMENTS', `unknown event "${String(event)}"`);
    if (typeof listener !== 'function')
      throw makeError('BADARGUMENTS', 'listener must be a function (state) => void');
    return this.session.onState((state, previous, cause) =>
      listener(state, cause === undefined ? { previous } : { previous, cause }),
    );
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
    return (await this.createNode(path, data, options, 'create')).path;
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
    return this.createNode(path, data, options, 'create2') as Promise<{ path: string; stat: Stat }>;
  }

  private async createNode(
    path: string,
    data: Data | undefined,
    options: CreateOptions & CallOptions,
    op: 'create' | 'create2',
  ): Promise<{ path: string; stat?: Stat }> {
    const { mode, withTtl, request } = createRequest(this.paths, path, data, options, op);
    const details: SubmitDetails = { path, op, signal: options.signal };
    const { ttl: _ttl, ...plain } = request;
    if (withTtl) {
      const reply = await this.session.submit(codecs.createTTL, request, details);
      return { path: this.paths.fromServer(reply.path), stat: toStat(reply.stat) };
    }
    if (mode === 4) {
      const reply = await this.session.submit(codecs.createContainer, plain, details);
      return { path: this.paths.fromServer(reply.path), stat: toStat(reply.stat) };
    }
    if (op === 'create') {
      const reply = await this.session.submit(codecs.create, plain, details);
      return { path: this.paths.fromServer(reply.path) };
    }
    const reply = await this.session.submit(codecs.create2, plain, details);
    return { path: this.paths.fromServer(reply.path), stat: toStat(reply.stat) };
  }

  /** Deletes a node if its version is `version` (-1: any). Rejects with NONODE, BADVERSION, NOTEMPTY. */
  async delete(path: string, version = -1, options: CallOptions = {}): Promise<void> {
    validatePath(path);
    checkVersion(version, path, 'delete');
    if (path === '/' && this.paths.chroot !== '') {
      // As the Java client: the chroot itself cannot be deleted through the chrooted client.
      throw makeError('BADARGUMENTS', 'cannot delete the chroot through a chrooted client', {
        path,
        op: 'delete',
      });
    }
    await this.session.submit(
      codecs.delete,
      { path: this.paths.toServer(path), version },
      { path, op: 'delete', signal: options.signal },
    );
  }

  /** Replaces a node's data if its version is `version` (-1: any); resolves with the new metadata. */
  async setData(path: string, data: Data, version = -1, options: CallOptions = {}): Promise<Stat> {
    validatePath(path);
    checkVersion(version, path, 'setData');
    const reply = await this.session.submit(
      codecs.setData,
      { path: this.paths.toServer(path), data: toBytes(data, path, 'setData'), version },
      { path, op: 'setData', signal: options.signal },
    );
    return toStat(reply.stat);
  }

  /** Replaces a node's ACL if its ACL version is `version` (-1: any); resolves with the new metadata. */
  async setACL(
    path: string,
    acl: readonly ACL[],
    version = -1,
    options: CallOptions = {},
  ): Promise<Stat> {
    validatePath(path);
    checkVersion(version, path, 'setACL');
    const reply = await this.session.submit(
      codecs.setACL,
      { path: this.paths.toServer(path), acl: checkAcl(acl, path, 'setACL'), version },
      { path, op: 'setACL', signal: options.signal },
    );
    return toStat(reply.stat);
  }

  /** Atomic: all ops apply or none. On failure rejects with the first failing op's code and `results`. */
  async multi(ops: readonly Op[], options: CallOptions = {}): Promise<OpResult[]> {
    if (!Array.isArray(ops))
      throw makeError('BADARGUMENTS', 'multi takes an array of Op', { op: 'multi' });
    if (ops.length === 0) return [];
    const request = { ops: ops.map((op) => toMultiOp(this.paths, op)) };
    const reply = await this.session.submit(codecs.multi, request, {
      op: 'multi',
      signal: options.signal,
    });
    const results = reply.map((result) => fromMultiResult(this.paths, result));
    const failed = results.findIndex((result) => result.type === 'error' && result.errno !== 0);
    if (failed >= 0) {
      const failure = results[failed] as { code: string; errno: number };
      const path = ops[failed]?.path;
      const error = errorFromCode(failure.errno, {
        message: `${failure.code}: multi failed at op ${failed} (${ops[failed]?.type} ${path}); nothing was applied`,
        path,
        op: 'multi',
      });
      error.results = results;
      throw error;
    }
    return results;
  }

  /** Several reads in one round trip; each succeeds or fails on its own (not atomic). */
  async multiRead(ops: readonly ReadOp[], options: CallOptions = {}): Promise<OpResult[]> {
    if (!Array.isArray(ops))
      throw makeError('BADARGUMENTS', 'multiRead takes an array of Op', {
        op: 'multiRead',
      });
    if (ops.length === 0) return [];
    const request = { ops: ops.map((op) => toMultiReadOp(this.paths, op)) };
    const reply = await this.session.submit(codecs.multiRead, request, {
      op: 'multiRead',
      signal: options.signal,
    });
    return reply.map((result) => fromMultiResult(this.paths, result));
  }

  // ---- reads ---------------------------------------------------------------------------------

  /** The node's metadata, or null if it does not exist; a `watch` fires on its creation, change or deletion. */
  async exists(path: string, options: WatchOptions & CallOptions = {}): Promise<Stat | null> {
    validatePath(path);
    checkOptions(options, path, 'exists');
    const watcher = checkWatcher(options.watch, path, 'exists');
    try {
      const reply = await this.session.submit(
        codecs.exists,
        { path: this.paths.toServer(path), watch: watcher !== undefined },
        {
          path,
          op: 'exists',
          signal: options.signal,
          onReply: watcher
            ? (err) => {
                if (err === 0) this.session.watches.add('data', path, watcher);
                else if (err === NONODE) this.session.watches.add('exist', path, watcher);
              }
            : undefined,
        },
      );
      return toStat(reply.stat);
    } catch (error) {
      if (error instanceof ZooKeeperError && error.code === 'NONODE') return null;
      throw error;
    }
  }

  /** A node's data and metadata; a `watch` fires on its next change or deletion. Rejects with NONODE. */
  async getData(
    path: string,
    options: WatchOptions & CallOptions = {},
  ): Promise<{
    /** The node's data (empty for a node created without data). */
    data: Uint8Array;
    /** The node's metadata. */
    stat: Stat;
  }> {
    validatePath(path);
    checkOptions(options, path, 'getData');
    const watcher = checkWatcher(options.watch, path, 'getData');
    const reply = await this.session.submit(
      codecs.getData,
      { path: this.paths.toServer(path), watch: watcher !== undefined },
      {
        path,
        op: 'getData',
        signal: options.signal,
        onReply: this.registerOnSuccess('data', path, watcher),
      },
    );
    return { data: reply.data ?? new Uint8Array(0), stat: toStat(reply.stat) };
  }

  /** The names (not paths) of a node's children, unordered; a `watch` fires when they change. */
  async getChildren(path: string, options: WatchOptions & CallOptions = {}): Promise<string[]> {
    validatePath(path);
    checkOptions(options, path, 'getChildren');
    const watcher = checkWatcher(options.watch, path, 'getChildren');
    const reply = await this.session.submit(
      codecs.getChildren,
      { path: this.paths.toServer(path), watch: watcher !== undefined },
      {
        path,
        op: 'getChildren',
        signal: options.signal,
        onReply: this.registerOnSuccess('child', path, watcher),
      },
    );
    return reply.children;
  }

  /** As {@link getChildren}, and also resolves with the node's metadata. */
  async getChildren2(
    path: string,
    options: WatchOptions & CallOptions = {},
  ): Promise<{
    /** The names of the children, unordered. */
    children: string[];
    /** The node's metadata. */
    stat: Stat;
  }> {
    validatePath(path);
    checkOptions(options, path, 'getChildren2');
    const watcher = checkWatcher(options.watch, path, 'getChildren2');
    const reply = await this.session.submit(
      codecs.getChildren2,
      { path: this.paths.toServer(path), watch: watcher !== undefined },
      {
        path,
        op: 'getChildren2',
        signal: options.signal,
        onReply: this.registerOnSuccess('child', path, watcher),
      },
    );
    return { children: reply.children, stat: toStat(reply.stat) };
  }

  /** A node's ACL and metadata (`stat.aversion` is the version setACL checks). */
  async getACL(
    path: string,
    options: CallOptions = {},
  ): Promise<{
    /** The node's ACL. */
    acl: ACL[];
    /** The node's metadata. */
    stat: Stat;
  }> {
    validatePath(path);
    const reply = await this.session.submit(
      codecs.getACL,
      { path: this.paths.toServer(path) },
      { path, op: 'getACL', signal: options.signal },
    );
    return { acl: reply.acl, stat: toStat(reply.stat) };
  }

  /** Makes this session's server catch up with the leader for `path` before later reads. */
  async sync(path: string, options: CallOptions = {}): Promise<void> {
    validatePath(path);
    await this.session.submit(
      codecs.sync,
      { path: this.paths.toServer(path) },
      { path, op: 'sync', signal: options.signal },
    );
  }

  /** This session's ephemeral nodes under `prefix` (relative to the chroot, as every path here). */
  async getEphemerals(prefix = '/', options: CallOptions = {}): Promise<string[]> {
    if (typeof prefix !== 'string' || !prefix.startsWith('/')) {
      throw makeError('BADARGUMENTS', `prefix must start with "/", got ${String(prefix)}`, {
        op: 'getEphemerals',
      });
    }
    const reply = await this.session.submit(
      codecs.getEphemerals,
      {
        prefixPath: this.paths.chroot + (prefix === '/' && this.paths.chroot !== '' ? '/' : prefix),
      },
      { path: prefix, op: 'getEphemerals', signal: options.signal },
    );
    const mine =
      this.paths.chroot === ''
        ? reply.ephemerals
        : reply.ephemerals.filter((p) => p.startsWith(`${this.paths.chroot}/`));
    return mine.map((p) => this.paths.fromServer(p));
  }

  /** Number of descendants of `path` (the node itself excluded). */
  async getAllChildrenNumber(path: string, options: CallOptions = {}): Promise<number> {
    validatePath(path);
    const reply = await this.session.submit(
      codecs.getAllChildrenNumber,
      { path: this.paths.toServer(path) },
      { path, op: 'getAllChildrenNumber', signal: options.signal },
    );
    return reply.totalNumber;
  }

  /** The identities this session is authenticated as (ip, digest, x509, ...). */
  async whoAmI(options: CallOptions = {}): Promise<ClientInfo[]> {
    const reply = await this.session.submit(codecs.whoAmI, undefined, {
      op: 'whoAmI',
      signal: options.signal,
    });
    return reply.clientInfo;
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

  /**
   * The ensemble's dynamic configuration (`/zookeeper/config`, never chrooted). With
   * `follow: true` the client also adopts the member list it reads: the way to follow a reconfig
   * made by another client. (Not the default: clients reaching the ensemble through proxies or
   * NAT must keep the addresses they were given.)
   */
  async getConfig(
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
    const watcher = checkWatcher(options.watch, CONFIG_NODE, 'getConfig');
    const reply = await this.session.submit(
      codecs.getData,
      { path: CONFIG_NODE, watch: watcher !== undefined },
      {
        path: CONFIG_NODE,
        op: 'getConfig',
        signal: options.signal,
        onReply: this.registerOnSuccess('data', CONFIG_WATCH_KEY, watcher),
      },
    );
    const config = new TextDecoder().decode(reply.data ?? new Uint8Array(0));
    if (options.follow) this.followConfig(config);
    return { config, stat: toStat(reply.stat) };
  }

  /**
   * Changes the ensemble's membership (server needs reconfigEnabled=true and an authorised
   * session); afterwards this client follows the new member list.
   */
  async reconfig(options: ReconfigOptions): Promise<{
    /** The new configuration text. */
    config: string;
    /** The metadata of the config node after the change. */
    stat: Stat;
  }> {
    const reply = await this.session.submit(
      codecs.reconfig,
      {
        joiningServers: options.joining ?? null,
        leavingServers: options.leaving ?? null,
        newMembers: options.newMembers ?? null,
        curConfigId: options.fromConfig ?? -1n,
      },
      { op: 'reconfig', signal: options.signal },
    );
    const config = new TextDecoder().decode(reply.data ?? new Uint8Array(0));
    this.followConfig(config);
    return { config, stat: toStat(reply.stat) };
  }

  /** Replaces the host list (the session stays on its current server if that is still listed). */
  updateServerList(connectString: string): void {
    const { hosts } = parseConnectString(connectString);
    this.session.hostList.replace(hosts);
  }

  private followConfig(config: string): void {
    const hosts = parseServerList(config);
    if (hosts.length > 0) this.session.hostList.replace(hosts);
  }

  // ---- watches -------------------------------------------------------------------------------

  /**
   * A persistent (or persistent recursive) watch as an async iterator. It survives reconnects;
   * ending the iteration or aborting `signal` removes it on the server.
   */
  watch(path: string, options: PersistentWatchOptions = {}): PersistentWatchIterator {
    validatePath(path);
    if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
      throw makeError('BADARGUMENTS', 'signal must be an AbortSignal', {
        path,
        op: 'watch',
      });
    }
    const recursive = options.recursive ?? false;
    return new PersistentWatch(path, recursive, options.signal, {
      registry: this.session.watches,
      add: (onReply) =>
        this.session.submit(
          codecs.addWatch,
          { path: this.paths.toServer(path), mode: recursive ? 1 : 0 },
          { path, op: 'addWatch', onReply, onAbandonedReply: onReply },
        ),
      remove: () => this.removeServerWatch(path, WatcherTypeCode.Any),
    });
  }

  /**
   * Removes every watcher of `kind` on `path`, on the server and locally; each removed watcher is
   * told with a *WatchRemoved event. `local: true` removes them locally even when the server
   * cannot be reached.
   */
  async removeWatches(
    path: string,
    kind: WatcherKind,
    options: RemoveWatchesOptions = {},
  ): Promise<void> {
    validatePath(path);
    const codes: Record<WatcherKind, number> = {
      children: WatcherTypeCode.Children,
      data: WatcherTypeCode.Data,
      any: WatcherTypeCode.Any,
      persistent: WatcherTypeCode.Persistent,
      persistentRecursive: WatcherTypeCode.PersistentRecursive,
    };
    const type = codes[kind];
    if (type === undefined) {
      throw makeError('BADARGUMENTS', `unknown watcher kind "${String(kind)}"`, {
        path,
        op: 'removeWatches',
      });
    }
    const oneShotKinds: OneShotKind[] =
      kind === 'children'
        ? ['child']
        : kind === 'data'
          ? ['data', 'exist']
          : kind === 'any'
            ? ['data', 'exist', 'child']
            : [];
    const persistentModes =
      kind === 'persistent'
        ? [false]
        : kind === 'persistentRecursive'
          ? [true]
          : kind === 'any'
            ? [false, true]
            : [];
    const removeLocally = () => {
      const removed = this.session.watches.removeOneShot(path, oneShotKinds);
      const ended = persistentModes.map((recursive) =>
        this.session.watches.removeAllPersistent(path, recursive),
      );
      return removed || ended.some(Boolean);
    };
    try {
      await this.session.submit(
        codecs.removeWatches,
        { path: this.paths.toServer(path), type },
        { path, op: 'removeWatches' },
      );
    } catch (error) {
      if (options.local && removeLocally()) return;
      throw error;
    }
    removeLocally();
  }

  private async removeServerWatch(path: string, type: number): Promise<void> {
    // One server entry serves every local listener of the path: keep it while any remain.
    const watches = this.session.watches;
    if (
      watches.isAdding(path) ||
      watches.hasPersistent(path, false) ||
      watches.hasPersistent(path, true) ||
      watches.hasOneShot('data', path) ||
      watches.hasOneShot('exist', path) ||
      watches.hasOneShot('child', path)
    ) {
      return;
    }
    try {
      // 'Any' because 3.8 servers know no persistent watcher types; the check above makes it exact.
      await this.session.submit(
        codecs.removeWatches,
        { path: this.paths.toServer(path), type },
        { path, op: 'removeWatches' },
      );
    } catch {
      // Best effort: gone already (NOWATCHER), or the session ended and took it along.
    }
  }

  private registerOnSuccess(kind: OneShotKind, path: string, watcher: Watcher | undefined) {
    if (!watcher) return undefined;
    return (err: number) => {
      if (err === 0) this.session.watches.add(kind, path, watcher);
    };
  }

  // ---- lifecycle -----------------------------------------------------------------------------

  /** Ends the session: its ephemeral nodes go at once. Idempotent. */
  close(): Promise<void> {
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

/** Connects to a ZooKeeper ensemble and resolves once a session is established. */
export function connect(connectString: string, options?: ConnectOptions): Promise<Client> {
  return Client.connect(connectString, options);
}
