// A scripted stand-in for the part of the client the lock recipes use (LockClient, plus sync and
// setData): one in-memory tree shared by any number of sessions, a log of every request, and
// scripted failures (a request refused, or applied by the server and its reply lost), session
// state changes and expiry. For the contender logic's decisions and recovery paths; the
// real-server behaviour is proven in test/integration/locks.

import { abortable } from '../../../src/coordination/wait.js';
import type { OpResult, PersistentWatchIterator, RecipeClient } from '../../../src/index.js';
import {
  type ClientEvents,
  CreateMode,
  type Data,
  type ErrorCodeName,
  type SessionRenewal,
  type SessionState,
  type Stat,
  type StateChange,
  type WatchedEvent,
  type Watcher,
  ZooKeeperError,
} from '../../../src/index.js';

export type Op = 'create2' | 'delete' | 'exists' | 'getData' | 'getChildren' | 'sync' | 'setData';

/** One request as a recipe sent it. */
export interface Request {
  readonly session: bigint;
  readonly op: Op;
  readonly path: string;
  /** A watch was asked for. */
  readonly watch: boolean;
  /** A create's mode. */
  mode?: number;
  /** How it ended: 'ok', or the error code it was answered with. */
  outcome: string;
}

/** A scripted answer: the next `times` matching requests fail with `code`. */
export interface Rule {
  op: Op;
  /** The request's path (for a sequential create: the path before the counter). */
  path?: string | RegExp;
  /** Only this session's requests (default: any). */
  session?: bigint;
  code: ErrorCodeName;
  /** The server applied the request before the reply was lost (a write's outcome is unknown). */
  applied?: boolean;
  /** How many requests it answers (default 1; Infinity for all). */
  times?: number;
}

interface Node {
  data: Uint8Array;
  stat: Stat;
  /** The next sequence number handed to a sequential child. */
  nextSeq: number;
}

const EPHEMERAL_MODES: readonly number[] = [CreateMode.EPHEMERAL, CreateMode.EPHEMERAL_SEQUENTIAL];
const SEQUENTIAL_MODES: readonly number[] = [
  CreateMode.EPHEMERAL_SEQUENTIAL,
  CreateMode.PERSISTENT_SEQUENTIAL,
];

const parentOf = (path: string) => path.slice(0, path.lastIndexOf('/')) || '/';
const bytes = (data: Data | undefined) =>
  typeof data === 'string' ? new TextEncoder().encode(data) : new Uint8Array(data ?? []);

/** One ZooKeeper tree and the sessions on it. */
export class ScriptedServer {
  readonly nodes = new Map<string, Node>();
  readonly log: Request[] = [];
  private readonly rules: Rule[] = [];
  private zxid = 100n;
  private nextSession = 0x1000n;
  private readonly watches = {
    data: new Map<string, Set<Watcher>>(),
    exists: new Map<string, Set<Watcher>>(),
    children: new Map<string, Set<Watcher>>(),
  };

  constructor() {
    this.nodes.set('/', { data: new Uint8Array(), stat: this.stat(0n), nextSeq: 0 });
  }

  /** A new session on this tree. */
  connect(): ScriptedClient {
    return new ScriptedClient(this, this.newSessionId());
  }

  /** The id of the next session opened on this tree. */
  newSessionId(): bigint {
    return this.nextSession++;
  }

  /** Scripts failures; see {@link Rule}. */
  fail(rule: Rule): void {
    this.rules.push({ ...rule, times: rule.times ?? 1 });
  }

  /** The requests logged so far that match. */
  requests(filter: Partial<Pick<Request, 'session' | 'op' | 'path' | 'watch'>> = {}): Request[] {
    return this.log.filter((r) =>
      Object.entries(filter).every(([key, value]) => r[key as keyof Request] === value),
    );
  }

  /** The children of `path`, sorted by name. */
  children(path: string): string[] {
    const prefix = path === '/' ? '/' : `${path}/`;
    return [...this.nodes.keys()]
      .filter((p) => p !== '/' && p.startsWith(prefix) && !p.slice(prefix.length).includes('/'))
      .map((p) => p.slice(prefix.length))
      .sort();
  }

  /** Ends a session: its ephemeral nodes go, as on the real server. */
  expire(session: bigint): void {
    for (const [path, node] of [...this.nodes]) {
      if (node.stat.ephemeralOwner === session) this.remove(path);
    }
  }

  /** Serves one request: logs it, applies a scripted rule or the op itself. */
  serve<T>(
    session: bigint,
    op: Op,
    path: string,
    watch: boolean,
    run: () => T,
    mode?: number,
  ): Promise<T> {
    const request: Request = { session, op, path, watch, mode, outcome: 'ok' };
    this.log.push(request);
    const rule = this.rules.find(
      (r) =>
        (r.times ?? 0) > 0 &&
        r.op === op &&
        (r.session === undefined || r.session === session) &&
        (r.path === undefined ||
          (typeof r.path === 'string' ? r.path === path : r.path.test(path))),
    );
    try {
      if (rule) {
        rule.times = (rule.times ?? 1) - 1;
        if (rule.applied) run();
        throw new ZooKeeperError(rule.code, `scripted ${rule.code} for ${op} ${path}`, {
          path,
          op,
        });
      }
      return Promise.resolve(run());
    } catch (error) {
      request.outcome = error instanceof ZooKeeperError ? error.code : String(error);
      return Promise.reject(error);
    }
  }

  create(session: bigint, path: string, data: Data | undefined, mode: number) {
    const parent = this.nodes.get(parentOf(path));
    if (!parent) throw new ZooKeeperError('NONODE', `no parent for ${path}`, { path });
    if (parent.stat.ephemeralOwner !== 0n)
      throw new ZooKeeperError('NOCHILDRENFOREPHEMERALS', path);
    let full = path;
    if (SEQUENTIAL_MODES.includes(mode)) full += String(parent.nextSeq).padStart(10, '0');
    if (this.nodes.has(full)) throw new ZooKeeperError('NODEEXISTS', `${full} exists`, { path });
    parent.nextSeq++;
    parent.stat = { ...parent.stat, cversion: parent.stat.cversion + 1 };
    const owner = EPHEMERAL_MODES.includes(mode) ? session : 0n;
    const node = { data: bytes(data), stat: this.stat(owner), nextSeq: 0 };
    this.nodes.set(full, node);
    this.trigger('exists', full, 'NodeCreated');
    this.trigger('children', parentOf(full), 'NodeChildrenChanged');
    return { path: full, stat: node.stat };
  }

  delete(path: string, version: number): void {
    const node = this.get(path);
    if (version !== -1 && version !== node.stat.version) {
      throw new ZooKeeperError('BADVERSION', `version of ${path}`, { path });
    }
    if (this.children(path).length > 0) throw new ZooKeeperError('NOTEMPTY', path, { path });
    this.remove(path);
  }

  setData(path: string, data: Data, version = -1): Stat {
    const node = this.get(path);
    if (version !== -1 && version !== node.stat.version) {
      throw new ZooKeeperError('BADVERSION', `version of ${path}`, { path });
    }
    node.data = bytes(data);
    node.stat = { ...node.stat, version: node.stat.version + 1, mzxid: ++this.zxid };
    this.trigger('data', path, 'NodeDataChanged');
    this.trigger('exists', path, 'NodeDataChanged');
    return node.stat;
  }

  get(path: string): Node {
    const node = this.nodes.get(path);
    if (!node) throw new ZooKeeperError('NONODE', `no node ${path}`, { path });
    return node;
  }

  watch(
    kind: keyof ScriptedServer['watches'],
    path: string,
    watcher: Watcher | undefined,
    session?: bigint,
  ): void {
    if (!watcher) return;
    if (session !== undefined) this.watchOwners.set(watcher, session);
    const set = this.watches[kind].get(path) ?? new Set();
    set.add(watcher);
    this.watches[kind].set(path, set);
  }

  /** The session that set each watcher (for {@link endWatches}). */
  private readonly watchOwners = new WeakMap<Watcher, bigint>();

  /**
   * Ends `session`'s one-shot watches with a `None` event carrying `state`, as the client does at
   * an expiry: each watcher is removed and told once, after the current call.
   */
  endWatches(session: bigint, state: SessionState): void {
    for (const byPath of Object.values(this.watches)) {
      for (const [path, set] of byPath) {
        for (const watcher of [...set]) {
          if (this.watchOwners.get(watcher) !== session) continue;
          set.delete(watcher);
          queueMicrotask(() => watcher({ type: 'None', path: '', state }));
        }
        if (set.size === 0) byPath.delete(path);
      }
    }
  }

  private remove(path: string): void {
    this.nodes.delete(path);
    this.trigger('data', path, 'NodeDeleted');
    this.trigger('exists', path, 'NodeDeleted');
    this.trigger('children', path, 'NodeDeleted');
    this.trigger('children', parentOf(path), 'NodeChildrenChanged');
  }

  /** Fires (once) the watches of `kind` on `path`, after the current request, as a client would. */
  private trigger(
    kind: keyof ScriptedServer['watches'],
    path: string,
    type: WatchedEvent['type'],
  ): void {
    const set = this.watches[kind].get(path);
    if (!set) return;
    this.watches[kind].delete(path);
    for (const watcher of set) queueMicrotask(() => watcher({ type, path }));
  }

  private stat(owner: bigint): Stat {
    const zxid = ++this.zxid;
    return {
      czxid: zxid,
      mzxid: zxid,
      pzxid: zxid,
      ctime: 0,
      mtime: 0,
      version: 0,
      cversion: 0,
      aversion: 0,
      ephemeralOwner: owner,
      dataLength: 0,
      numChildren: 0,
    };
  }
}

/** One session: the client surface the lock recipes use, answered by a {@link ScriptedServer}. */
export class ScriptedClient implements RecipeClient {
  readonly chroot = '';
  private current: SessionState = 'connected';
  private readonly listeners = new Set<(state: SessionState, change: StateChange) => void>();

  private readonly renewedListeners = new Set<(renewal: SessionRenewal) => void>();

  constructor(
    readonly server: ScriptedServer,
    public sessionId: bigint,
  ) {}

  /**
   * Scripts a session renewal as the client does it: the old session expires (its ephemeral
   * nodes go), a new one opens, the state goes back to connected and `'renewed'` names it. With
   * `endWatches`, the old session's one-shot watches also end with a `None` event (`expired`),
   * as the real client ends them.
   */
  renew(options: { endWatches?: boolean } = {}): void {
    const previousSessionId = this.sessionId;
    this.setState('expired');
    if (options.endWatches) this.server.endWatches(previousSessionId, 'expired');
    this.setState('connecting');
    this.sessionId = this.server.newSessionId();
    // As the session does it: the renewal listeners hear first, then the state moves.
    for (const listener of [...this.renewedListeners]) {
      listener({ previousSessionId, sessionId: this.sessionId });
    }
    this.setState('connected');
  }

  get state(): SessionState {
    return this.current;
  }

  /** Moves the session to `state` and tells the listeners; 'expired' also removes its nodes. */
  setState(state: SessionState): void {
    const previous = this.current;
    this.current = state;
    if (state === 'expired') this.server.expire(this.sessionId);
    for (const listener of [...this.listeners]) listener(state, { previous });
  }

  /** This session's requests so far. */
  requests(filter: Partial<Pick<Request, 'op' | 'path' | 'watch'>> = {}): Request[] {
    return this.server.requests({ ...filter, session: this.sessionId });
  }

  /**
   * The requests made while the session was disconnected (suspended, connecting): the real client
   * queues them (and reports them to request telemetry) until it reconnects.
   */
  readonly queued: { op: Op; path: string }[] = [];

  /** True once {@link beginClose} was called, as `Client.closing` after `close()`. */
  closing = false;
  private readonly closingListeners = new Set<() => void>();

  /** Scripts the start of `client.close()`: `closing` turns true and the listeners run, once. */
  beginClose(): void {
    if (this.closing) return;
    this.closing = true;
    const listeners = [...this.closingListeners];
    this.closingListeners.clear();
    for (const listener of listeners) listener();
  }

  on<E extends keyof ClientEvents>(event: E, listener: ClientEvents[E]): () => void {
    if (event === 'closing') {
      const onClosing = listener as ClientEvents['closing'];
      if (!this.closing) this.closingListeners.add(onClosing);
      return () => {
        this.closingListeners.delete(onClosing);
      };
    }
    if (event === 'renewed') {
      const onRenewed = listener as ClientEvents['renewed'];
      this.renewedListeners.add(onRenewed);
      return () => {
        this.renewedListeners.delete(onRenewed);
      };
    }
    // No other event is ever emitted here (as by a Client that never emits it).
    if (event !== 'state') return () => {};
    const onState = listener as ClientEvents['state'];
    this.listeners.add(onState);
    return () => {
      this.listeners.delete(onState);
    };
  }

  create2(path: string, data?: Data, options: { mode?: CreateMode } = {}) {
    const mode = options.mode ?? CreateMode.PERSISTENT;
    return this.serve(
      'create2',
      path,
      false,
      () => this.server.create(this.sessionId, path, data, mode),
      mode,
    );
  }

  delete(path: string, version = -1): Promise<void> {
    return this.serve('delete', path, false, () => this.server.delete(path, version));
  }

  exists(path: string, options: { watch?: Watcher } = {}): Promise<Stat | null> {
    return this.serve('exists', path, options.watch !== undefined, () => {
      const node = this.server.nodes.get(path);
      this.server.watch(node ? 'data' : 'exists', path, options.watch, this.sessionId);
      return node?.stat ?? null;
    });
  }

  getData(path: string, options: { watch?: Watcher } = {}) {
    return this.serve('getData', path, options.watch !== undefined, () => {
      const node = this.server.get(path);
      this.server.watch('data', path, options.watch, this.sessionId);
      return { data: node.data, stat: node.stat };
    });
  }

  getChildren(
    path: string,
    options: { watch?: Watcher; signal?: AbortSignal } = {},
  ): Promise<string[]> {
    const listing = this.serve('getChildren', path, options.watch !== undefined, () => {
      this.server.get(path);
      this.server.watch('children', path, options.watch, this.sessionId);
      return this.server.children(path);
    });
    return this.abortable ? abortable(listing, options.signal) : listing;
  }

  /**
   * When true, a listing (`getChildren`) given a `signal` rejects with its reason as soon as it
   * aborts, also while held for a reconnect, as the real client gives a request up. Default false
   * (a held listing waits for the reconnect whatever its signal says).
   */
  abortable = false;

  sync(path: string): Promise<void> {
    return this.serve('sync', path, false, () => {
      this.server.get(path);
    });
  }

  /** As `Client.setData`: `version` -1 (default) writes whatever the node's version. */
  setData(path: string, data: Data, version = -1): Promise<Stat> {
    return this.serve('setData', path, false, () => this.server.setData(path, data, version));
  }

  /** Not scripted: no recipe driven by this stand-in sends a multi. */
  multi(): Promise<OpResult[]> {
    return Promise.reject(new ZooKeeperError('UNIMPLEMENTED', 'the scripted client has no multi'));
  }

  /** Not scripted: no recipe driven by this stand-in sets a persistent watch. */
  watch(): PersistentWatchIterator {
    throw new ZooKeeperError('UNIMPLEMENTED', 'the scripted client has no persistent watch');
  }

  /**
   * Sends one request. While the session is disconnected (suspended, connecting) it waits for the
   * next state, as the real client holds requests until it reconnects; once the session is over,
   * every request fails with SESSIONEXPIRED.
   */
  private async serve<T>(
    op: Op,
    path: string,
    watch: boolean,
    run: () => T,
    mode?: number,
  ): Promise<T> {
    if (this.current === 'suspended' || this.current === 'connecting')
      this.queued.push({ op, path });
    while (this.current === 'suspended' || this.current === 'connecting') {
      await new Promise<void>((resolve) => {
        const off = this.on('state', () => {
          off();
          resolve();
        });
      });
    }
    if (this.current === 'expired' || this.current === 'closed') {
      const request = { session: this.sessionId, op, path, watch, mode, outcome: 'SESSIONEXPIRED' };
      this.server.log.push(request);
      throw new ZooKeeperError('SESSIONEXPIRED', 'the session is over', { path, op });
    }
    return this.server.serve(this.sessionId, op, path, watch, run, mode);
  }
}
