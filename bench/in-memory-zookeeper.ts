// A ZooKeeper that lives in the client's process and knows only what a lock recipe sends: create
// (sequential, ephemeral), getChildren, getData and exists (with one-shot watches), delete, sync,
// ping and closeSession. It answers through a Transport, one connection per session, delivering
// replies in a later turn of the event loop as a socket would. It exists so that bench/lock-cost.ts
// can measure the client's own work per acquisition with no kernel, no network and no server
// sharing the CPU: it checks nothing a real server checks (ACLs, versions, parents), so it is a
// measuring stick, never a stand-in for the server in a test.

import type { Connection, Transport } from '../src/session/transport.js';
import { ChunkQueue } from '../src/session/transports/chunk-queue.js';

const OP = {
  create: 1,
  delete: 2,
  exists: 3,
  getData: 4,
  getChildren: 8,
  sync: 9,
  ping: 11,
  create2: 15,
  close: -11,
} as const;
const NOTIFICATION_XID = -1;
const NODE_DELETED = 2;
const SYNC_CONNECTED = 3;
const NONODE = -101;
const SEQUENTIAL = 2;
const EPHEMERAL = 1;
const STAT_BYTES = 68;

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

interface ZNode {
  readonly czxid: bigint;
  readonly owner: bigint;
  /** Child name -> its UTF-8 bytes (encoded once, listed many times). */
  readonly children: Map<string, Uint8Array>;
  /** Children ever created: the sequence counter. */
  created: number;
}

/**
 * Writes one reply frame field by field (big-endian) into a scratch buffer shared by every reply
 * (replies are built one at a time), then hands out a copy with the length in front.
 */
class Out {
  private static scratch = new Uint8Array(64 * 1024);
  private bytes = Out.scratch;
  private view = new DataView(this.bytes.buffer);
  private at = 4;

  private room(n: number): void {
    if (this.at + n <= this.bytes.length) return;
    const next = new Uint8Array(Math.max(this.bytes.length * 2, this.at + n));
    next.set(this.bytes);
    this.bytes = next;
    this.view = new DataView(next.buffer);
    Out.scratch = next;
  }

  int(v: number): this {
    this.room(4);
    this.view.setInt32(this.at, v);
    this.at += 4;
    return this;
  }

  long(v: bigint): this {
    this.room(8);
    this.view.setBigInt64(this.at, v);
    this.at += 8;
    return this;
  }

  string(v: string): this {
    return this.utf8(utf8.encode(v));
  }

  utf8(encoded: Uint8Array): this {
    this.int(encoded.length);
    this.room(encoded.length);
    this.bytes.set(encoded, this.at);
    this.at += encoded.length;
    return this;
  }

  stat(node: ZNode): this {
    this.room(STAT_BYTES);
    const start = this.at;
    this.long(node.czxid).long(node.czxid).long(0n).long(0n); // czxid mzxid ctime mtime
    this.int(0).int(node.children.size).int(0); // version cversion aversion
    this.long(node.owner).int(0).int(node.children.size).long(node.czxid); // owner len kids pzxid
    if (this.at - start !== STAT_BYTES) throw new Error('stat size');
    return this;
  }

  frame(): Uint8Array {
    this.view.setInt32(0, this.at - 4);
    return this.bytes.slice(0, this.at);
  }
}

/** The shared tree and its sessions. */
export class InMemoryZooKeeper {
  private zxid = 0n;
  private nextSession = 1n;
  private readonly nodes = new Map<string, ZNode>([
    ['/', { czxid: 0n, owner: 0n, children: new Map(), created: 0 }],
  ]);
  /** One-shot data watches (getData, exists): path -> the connections to notify. */
  private readonly watches = new Map<string, Set<MemoryConnection>>();

  readonly transport: Transport = {
    connect: async () => new MemoryConnection(this),
  };

  /** Handles one request frame (length prefix included) from `from`; returns the reply frame. */
  handle(from: MemoryConnection, request: Uint8Array): Uint8Array | null {
    const view = new DataView(request.buffer, request.byteOffset, request.byteLength);
    if (from.session === 0n) {
      from.session = this.nextSession++;
      const timeout = view.getInt32(16);
      return new Out()
        .int(0)
        .int(timeout)
        .long(from.session)
        .int(16)
        .int(0)
        .int(0)
        .int(0)
        .int(0)
        .frame();
    }
    const xid = view.getInt32(4);
    const op = view.getInt32(8);
    let at = 12;
    const readString = () => {
      const length = view.getInt32(at);
      const text = fromUtf8.decode(request.subarray(at + 4, at + 4 + length));
      at += 4 + length;
      return text;
    };
    const reply = (err: number) => new Out().int(xid).long(this.zxid).int(err);
    switch (op) {
      case OP.ping:
        return reply(0).frame();
      case OP.close:
        this.expire(from.session);
        return reply(0).frame();
      case OP.sync:
        return reply(0).string(readString()).frame();
      case OP.create:
      case OP.create2: {
        let path = readString();
        const dataLength = view.getInt32(at);
        at += 4 + Math.max(0, dataLength);
        const aclCount = view.getInt32(at);
        at += 4;
        for (let i = 0; i < aclCount; i++) {
          at += 4;
          readString();
          readString();
        }
        const flags = view.getInt32(at);
        const parentPath = path.slice(0, path.lastIndexOf('/')) || '/';
        const parent = this.ensure(parentPath);
        if (flags & SEQUENTIAL) path += String(parent.created).padStart(10, '0');
        parent.created++;
        this.zxid++;
        const node: ZNode = {
          czxid: this.zxid,
          owner: flags & EPHEMERAL ? from.session : 0n,
          children: new Map(),
          created: 0,
        };
        this.nodes.set(path, node);
        const name = path.slice(path.lastIndexOf('/') + 1);
        parent.children.set(name, utf8.encode(name));
        const out = reply(0).string(path);
        return (op === OP.create2 ? out.stat(node) : out).frame();
      }
      case OP.getChildren: {
        const node = this.nodes.get(readString());
        if (!node) return reply(NONODE).frame();
        const out = reply(0).int(node.children.size);
        for (const name of node.children.values()) out.utf8(name);
        return out.frame();
      }
      case OP.getData:
      case OP.exists: {
        const path = readString();
        const watch = request[at] === 1;
        const node = this.nodes.get(path);
        if (!node) return reply(NONODE).frame();
        if (watch) {
          const set = this.watches.get(path);
          if (set) set.add(from);
          else this.watches.set(path, new Set([from]));
        }
        return (op === OP.getData ? reply(0).int(-1) : reply(0)).stat(node).frame();
      }
      case OP.delete: {
        const path = readString();
        if (!this.nodes.has(path)) return reply(NONODE).frame();
        this.remove(path);
        return reply(0).frame();
      }
      default:
        throw new Error(`the in-memory server does not know op ${op}`);
    }
  }

  private ensure(path: string): ZNode {
    let node = this.nodes.get(path);
    if (!node) {
      const parentPath = path.slice(0, path.lastIndexOf('/')) || '/';
      const parent = this.ensure(parentPath);
      node = { czxid: ++this.zxid, owner: 0n, children: new Map(), created: 0 };
      this.nodes.set(path, node);
      const name = path.slice(path.lastIndexOf('/') + 1);
      parent.children.set(name, utf8.encode(name));
    }
    return node;
  }

  private remove(path: string): void {
    this.zxid++;
    this.nodes.delete(path);
    const parentPath = path.slice(0, path.lastIndexOf('/')) || '/';
    this.nodes.get(parentPath)?.children.delete(path.slice(path.lastIndexOf('/') + 1));
    const watchers = this.watches.get(path);
    if (!watchers) return;
    this.watches.delete(path);
    const event = new Out()
      .int(NOTIFICATION_XID)
      .long(-1n)
      .int(0)
      .int(NODE_DELETED)
      .int(SYNC_CONNECTED)
      .string(path)
      .frame();
    for (const connection of watchers) connection.deliver(event);
  }

  private expire(session: bigint): void {
    for (const [path, node] of [...this.nodes]) if (node.owner === session) this.remove(path);
  }
}

/** One session's link: requests are answered at once, replies arrive in a later turn. */
class MemoryConnection implements Connection {
  readonly chunks = new ChunkQueue();
  readonly closed: Promise<void>;
  session = 0n;
  private outgoing: Uint8Array[] = [];
  private scheduled = false;
  private markClosed!: () => void;

  constructor(private readonly server: InMemoryZooKeeper) {
    this.closed = new Promise((resolve) => {
      this.markClosed = resolve;
    });
  }

  write(bytes: Uint8Array): undefined {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let at = 0; at < bytes.length; ) {
      const end = at + 4 + view.getInt32(at);
      const reply = this.server.handle(this, bytes.subarray(at, end));
      if (reply) this.deliver(reply);
      at = end;
    }
    return undefined;
  }

  /** Queues a frame for the client; everything queued in one turn arrives as one chunk. */
  deliver(frame: Uint8Array): void {
    this.outgoing.push(frame);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const frames = this.outgoing;
      this.outgoing = [];
      const size = frames.reduce((sum, f) => sum + f.length, 0);
      const chunk = new Uint8Array(size);
      let at = 0;
      for (const f of frames) {
        chunk.set(f, at);
        at += f.length;
      }
      this.chunks.push(chunk);
    });
  }

  close(): void {
    this.chunks.end();
    this.markClosed();
  }
}
