// A ZooKeeper that lives in the client's process and knows only what a lock recipe sends: create
// (sequential, ephemeral), getChildren, getData and exists (with one-shot watches), delete, sync,
// ping and closeSession. It answers through a Transport, one connection per session, delivering
// replies in a later turn of the event loop as a socket would. It exists so that bench/lock-cost.ts
// can measure the client's own work per acquisition with no kernel, no network and no server
// sharing the CPU: it checks nothing a real server checks (ACLs, versions, parents), so it is a
// measuring stick, never a stand-in for the server in a test.
//
// Its frames are written (bench/jute-bytes.ts) and read by hand, not through src/protocol and the
// server halves in src/testing/wire/server-codecs.ts: its own cost is part of every figure, and comparing
// two versions of the client is only fair if that cost does not change with the client's codec.

import type { Connection, Transport } from '../src/session/transport.js';
import { ChunkQueue } from '../src/session/transports/chunk-queue.js';
import { JuteFrame } from './jute-bytes.js';

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

/** A node's Stat (68 bytes), as a reply carries it. */
function writeStat(out: JuteFrame, node: ZNode): JuteFrame {
  out.long(node.czxid).long(node.czxid).long(0n).long(0n); // czxid mzxid ctime mtime
  out.int(0).int(node.children.size).int(0); // version cversion aversion
  return out.long(node.owner).int(0).int(node.children.size).long(node.czxid); // owner len kids pzxid
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
      return new JuteFrame()
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
    const reply = (err: number) => new JuteFrame().int(xid).long(this.zxid).int(err);
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
        return (op === OP.create2 ? writeStat(out, node) : out).frame();
      }
      case OP.getChildren: {
        const node = this.nodes.get(readString());
        if (!node) return reply(NONODE).frame();
        const out = reply(0).int(node.children.size);
        for (const name of node.children.values()) out.bytesField(name);
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
        return writeStat(op === OP.getData ? reply(0).int(-1) : reply(0), node).frame();
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
    const event = new JuteFrame()
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
