// The model's data tree and its transactions. The leader checks a request against its tree and
// turns it into a transaction (an error is a transaction too, as in ZooKeeper: it takes a zxid);
// every member applies the same transactions in the same order, so members differ only in how
// far they have got. Applying returns the watch events the change triggers.
import { ErrorCode } from '../../protocol/errors.js';
import type { Stat } from '../../protocol/records.js';

export interface ZNode {
  data: Uint8Array;
  czxid: bigint;
  mzxid: bigint;
  ctime: bigint;
  mtime: bigint;
  version: number;
  cversion: number;
  aversion: number;
  ephemeralOwner: bigint;
  pzxid: bigint;
  children: Set<string>;
  container: boolean;
  /** A TTL node's time to live (ms), 0 for every other node. */
  ttl: number;
  /**
   * The counter sequential children are named from. On a real 3.8 server it advances with each
   * child created but not with deletes, while the stat's cversion advances with both (measured
   * by the differential test).
   */
  seq: number;
}

/** One change the ensemble agreed on. */
export type Change =
  | {
      type: 'create';
      path: string;
      data: Uint8Array;
      ephemeralOwner: bigint;
      container: boolean;
      /** A TTL node's time to live (createTTL), else 0. */
      ttl?: number;
      time: bigint;
      /** The new node's starting cversion (non-zero only in worlds that start near the wrap). */
      cversion: number;
    }
  | { type: 'delete'; path: string }
  | { type: 'setData'; path: string; data: Uint8Array; time: bigint }
  | { type: 'setACL'; path: string }
  | { type: 'check'; path: string }
  | { type: 'error'; err: number };

export type Txn =
  | { kind: 'createSession'; sessionId: bigint; timeout: number }
  | { kind: 'closeSession'; sessionId: bigint; paths: string[] }
  | { kind: 'single'; change: Change }
  | { kind: 'multi'; changes: Change[]; failed: boolean };

/** A watch event: the type code and the server-form path. */
export interface Trigger {
  type: 'NodeCreated' | 'NodeDeleted' | 'NodeDataChanged' | 'NodeChildrenChanged';
  path: string;
}

export function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash <= 0 ? '/' : path.slice(0, slash);
}

function nameOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** cversion is a jute int: +1 overflows from 2^31-1 to -2^31. */
export function nextInt(value: number): number {
  return (value + 1) | 0;
}

/** The sequential suffix ZooKeeper appends: the parent's cversion as %010d (sign included). */
export function sequenceSuffix(cversion: number): string {
  return cversion < 0
    ? `-${String(-cversion).padStart(9, '0')}`
    : String(cversion).padStart(10, '0');
}

export class DataTree {
  readonly nodes = new Map<string, ZNode>();
  /** Each session's ephemeral paths, in creation order. */
  readonly ephemerals = new Map<bigint, Set<string>>();
  /** The most ephemerals each session held at once (the server's set never shrinks its table). */
  readonly ephemeralPeak = new Map<bigint, number>();
  lastZxid = 0n;
  /**
   * When set, new persistent and container nodes start with this cversion: a world that begins
   * as if 2^31 creates had already happened under every lock path, so the wrap is reached.
   */
  wrapFrom: number | undefined;

  constructor() {
    this.nodes.set('/', blankNode(0n, 0n, 0n, false));
    this.nodes.set('/zookeeper', blankNode(0n, 0n, 0n, false));
    this.nodes.get('/')!.children.add('zookeeper');
  }

  clone(): DataTree {
    const copy = new DataTree();
    copy.nodes.clear();
    for (const [path, node] of this.nodes)
      copy.nodes.set(path, { ...node, children: new Set(node.children) });
    for (const [owner, paths] of this.ephemerals) copy.ephemerals.set(owner, new Set(paths));
    for (const [owner, peak] of this.ephemeralPeak) copy.ephemeralPeak.set(owner, peak);
    copy.lastZxid = this.lastZxid;
    copy.wrapFrom = this.wrapFrom;
    return copy;
  }

  get(path: string): ZNode | undefined {
    return this.nodes.get(path);
  }

  /** How many nodes are below `path` (getAllChildrenNumber: children, their children, ...). */
  descendants(path: string): number {
    const prefix = path === '/' ? '/' : `${path}/`;
    let count = 0;
    for (const other of this.nodes.keys()) if (other !== path && other.startsWith(prefix)) count++;
    return count;
  }

  stat(node: ZNode): Stat {
    return {
      czxid: node.czxid,
      mzxid: node.mzxid,
      ctime: node.ctime,
      mtime: node.mtime,
      version: node.version,
      cversion: node.cversion,
      aversion: node.aversion,
      // Only sessions show here: the server reports 0 for containers and TTL nodes too.
      ephemeralOwner: node.ephemeralOwner,
      dataLength: node.data.length,
      numChildren: node.children.size,
      pzxid: node.pzxid,
    };
  }

  /** Applies one agreed transaction; returns the watch events it raises, in order. */
  apply(zxid: bigint, txn: Txn): Trigger[] {
    this.lastZxid = zxid;
    const events: Trigger[] = [];
    switch (txn.kind) {
      case 'createSession':
        break;
      case 'closeSession':
        for (const path of txn.paths) this.applyChange(zxid, { type: 'delete', path }, events);
        this.ephemerals.delete(txn.sessionId);
        this.ephemeralPeak.delete(txn.sessionId);
        break;
      case 'single':
        this.applyChange(zxid, txn.change, events);
        break;
      case 'multi':
        if (!txn.failed) for (const change of txn.changes) this.applyChange(zxid, change, events);
        break;
    }
    return events;
  }

  private applyChange(zxid: bigint, change: Change, events: Trigger[]): void {
    switch (change.type) {
      case 'create': {
        const parent = this.nodes.get(parentOf(change.path))!;
        const node = blankNode(zxid, change.time, change.ephemeralOwner, change.container);
        node.data = change.data;
        node.ttl = change.ttl ?? 0;
        node.cversion = change.cversion;
        node.seq = change.cversion;
        this.nodes.set(change.path, node);
        parent.children.add(nameOf(change.path));
        bumpCversion(parent, zxid);
        const seq = nextInt(parent.seq);
        if (seq > parent.seq) parent.seq = seq;
        if (change.ephemeralOwner !== 0n) {
          const owned = this.ephemerals.get(change.ephemeralOwner) ?? new Set<string>();
          this.ephemerals.set(change.ephemeralOwner, owned);
          owned.add(change.path);
          const peak = this.ephemeralPeak.get(change.ephemeralOwner) ?? 0;
          this.ephemeralPeak.set(change.ephemeralOwner, Math.max(peak, owned.size));
        }
        events.push({ type: 'NodeCreated', path: change.path });
        events.push({ type: 'NodeChildrenChanged', path: parentOf(change.path) });
        break;
      }
      case 'delete': {
        const node = this.nodes.get(change.path);
        if (!node) return;
        const parent = this.nodes.get(parentOf(change.path))!;
        this.nodes.delete(change.path);
        parent.children.delete(nameOf(change.path));
        bumpCversion(parent, zxid);
        if (node.ephemeralOwner !== 0n)
          this.ephemerals.get(node.ephemeralOwner)?.delete(change.path);
        events.push({ type: 'NodeDeleted', path: change.path });
        events.push({ type: 'NodeChildrenChanged', path: parentOf(change.path) });
        break;
      }
      case 'setData': {
        const node = this.nodes.get(change.path)!;
        node.data = change.data;
        node.version = nextInt(node.version);
        node.mzxid = zxid;
        node.mtime = change.time;
        events.push({ type: 'NodeDataChanged', path: change.path });
        break;
      }
      case 'setACL': {
        const node = this.nodes.get(change.path)!;
        node.aversion = nextInt(node.aversion);
        break;
      }
      case 'check':
      case 'error':
        break;
    }
  }
}

/**
 * The server only ever raises these counters ("update when larger"), so at 2^31-1 the jute int's
 * overflow leaves them there: every later sequential child gets the suffix 2147483647.
 */
function bumpCversion(parent: ZNode, zxid: bigint): void {
  const next = nextInt(parent.cversion);
  if (next > parent.cversion) parent.cversion = next;
  parent.pzxid = zxid;
}

function blankNode(zxid: bigint, time: bigint, owner: bigint, container: boolean): ZNode {
  return {
    data: new Uint8Array(0),
    czxid: zxid,
    mzxid: zxid,
    ctime: time,
    mtime: time,
    version: 0,
    cversion: 0,
    aversion: 0,
    ephemeralOwner: owner,
    pzxid: zxid,
    children: new Set(),
    container,
    ttl: 0,
    seq: 0,
  };
}

/** Why a create cannot be applied to `tree` (an error code), or the final path. */
export function prepareCreate(
  tree: DataTree,
  path: string,
  flags: number,
  sessionId: bigint,
  ttlAllowed = false,
): { err: number } | { path: string; ephemeral: boolean; container: boolean } {
  const sequential = flags === 2 || flags === 3 || flags === 6;
  const ephemeral = flags === 1 || flags === 3;
  const container = flags === 4;
  const ttl = flags === 5 || flags === 6;
  // The TTL modes only through createTTL (and createTTL only with them).
  if (ttl !== ttlAllowed || flags < 0 || flags > 6) return { err: ErrorCode.BADARGUMENTS };
  const parentPath = parentOf(path);
  const parent = tree.get(parentPath);
  if (!parent) return { err: ErrorCode.NONODE };
  if (parent.ephemeralOwner !== 0n) return { err: ErrorCode.NOCHILDRENFOREPHEMERALS };
  const finalPath = sequential ? path + sequenceSuffix(parent.seq) : path;
  if (tree.get(finalPath)) return { err: ErrorCode.NODEEXISTS };
  void sessionId;
  return { path: finalPath, ephemeral, container };
}
