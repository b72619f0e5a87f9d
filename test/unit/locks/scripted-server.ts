// The tree behind the scripted client (scripted-client.ts): one in-memory ZooKeeper tree shared by
// any number of sessions, a log of every request, scripted failures (a request refused, or applied
// by the server and its reply lost), one-shot watches and session expiry. The sessions' side
// (state changes, held requests, renewal) is in scripted-client.ts.

import {
  CreateMode,
  type Data,
  type ErrorCodeName,
  type SessionState,
  type Stat,
  type WatchedEvent,
  type Watcher,
  ZooKeeperError,
} from '../../../src/index.js';
import { ScriptedClient } from './scripted-client.js';

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

/** A request as it arrives: who sent it, and what it asks. */
export type Call = Omit<Request, 'outcome'>;

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

  /** The zxid of the last change: what a session of this one server has seen. */
  get lastZxid(): bigint {
    return this.zxid;
  }
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

  /** Logs one request (its outcome 'ok' until it is answered otherwise) and returns the entry. */
  record(call: Call): Request {
    const request: Request = { ...call, outcome: 'ok' };
    this.log.push(request);
    return request;
  }

  /** Serves one request: logs it, applies a scripted rule or the op itself. */
  serve<T>(call: Call, run: () => T): Promise<T> {
    const { session, op, path } = call;
    const request = this.record(call);
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
    return nodeStat(++this.zxid, owner);
  }
}

/** A new node's stat: created (and last changed) at `zxid`, owned by session `owner` (0n: none). */
export function nodeStat(zxid: bigint, owner: bigint): Stat {
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
