// One client connection on a model member: the handshake, then requests answered strictly in
// order. A session's read waits behind its own earlier writes (as the server's commit processor
// holds it) and then sees the member's own state; writes and syncs go through the leader.
import { ErrorCode } from '../../../src/protocol/errors.js';
import { FrameDecoder } from '../../../src/protocol/frame.js';
import type { MultiResult } from '../../../src/protocol/multi.js';
import { EventTypeCode, OpCode, Xid } from '../../../src/protocol/ops.js';
import { Reader } from '../../../src/protocol/reader.js';
import { frame, type Writer } from '../../../src/protocol/writer.js';
import {
  serverCodecs as codecs,
  readConnectRequest,
  readRequestHeader,
  type ServerCodec,
  writeConnectResponse,
  writeReplyHeader,
  writeWatcherEvent,
} from '../../wire/server-codecs.js';
import type { ServerEnd } from '../net.js';
import {
  type Member,
  multiResult,
  prepareCheck,
  prepareCreateChange,
  prepareDelete,
  prepareSetData,
  single,
} from './ensemble.js';
import { type Change, DataTree, type Trigger } from './tree.js';

interface Reply {
  err: number;
  body?: (w: Writer) => void;
}

interface Entry {
  xid: number;
  op: string;
  path: string;
  run?: () => Reply;
  reply?: Reply;
  /** The lost-reply fault picked this write: its reply never gets out. */
  loseReply?: boolean;
  after?: () => void;
}

const byCode = new Map<number, ServerCodec<unknown, unknown>>(
  Object.values(codecs).map((c) => [c.code, c as ServerCodec<unknown, unknown>]),
);

const WRITES = new Set<number>([
  OpCode.create,
  OpCode.create2,
  OpCode.createContainer,
  OpCode.createTTL,
  OpCode.delete,
  OpCode.setData,
  OpCode.setACL,
  OpCode.multi,
  OpCode.reconfig,
  OpCode.check,
]);

const WORLD_ACL = [{ perms: 31, id: { scheme: 'world', id: 'anyone' } }];

export class Cnxn {
  sessionId = 0n;
  private handshaking = true;
  closed = false;
  /** The connection sent the credentials `requireDigest` asks for. */
  private authenticated = false;
  private readonly decoder: FrameDecoder;
  private readonly queue: Entry[] = [];

  constructor(
    readonly member: Member,
    readonly end: ServerEnd,
  ) {
    this.decoder = new FrameDecoder(member.ensemble.options.maxBuffer);
    end.onData = (bytes) => this.onData(bytes);
    end.onClose = () => this.onClosed();
  }

  private get ensemble() {
    return this.member.ensemble;
  }

  private trace(text: string): void {
    this.ensemble.trace(
      `${this.member.host.split(':')[0]} ${this.end.client}#${this.end.id} ${text}`,
    );
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.member.dropCnxn(this);
    this.end.close();
  }

  private onClosed(): void {
    this.closed = true;
    this.member.dropCnxn(this);
  }

  notify(type: Trigger['type'], path: string): void {
    if (this.closed) return;
    this.end.send(
      frame((w) => {
        writeReplyHeader(w, { xid: Xid.notification, zxid: -1n, err: 0 });
        writeWatcherEvent(w, { type: EventTypeCode[type], state: 3, path });
      }),
    );
  }

  private send(xid: number, reply: Reply): void {
    if (this.closed) return;
    this.end.send(
      frame((w) => {
        writeReplyHeader(w, { xid, zxid: this.member.tree.lastZxid, err: reply.err });
        if (reply.err === 0) reply.body?.(w);
      }),
    );
  }

  private onData(bytes: Uint8Array): void {
    if (this.closed) return;
    if (!this.member.serving) {
      // A member without a running server (crashed, electing, cut off, catching up) drops the
      // connection as soon as a request arrives.
      this.close();
      return;
    }
    let frames: Uint8Array[];
    try {
      frames = this.decoder.push(bytes);
    } catch {
      // Over jute.maxbuffer (or a negative length): the server drops the connection.
      this.trace('frame over the limit: closing');
      this.close();
      return;
    }
    for (const body of frames) {
      if (this.closed) return;
      if (this.handshaking) {
        this.handshaking = false;
        this.handshake(body);
      } else if (this.sessionId !== 0n) {
        this.request(body);
      }
    }
  }

  // ---- handshake ---------------------------------------------------------------------------

  private handshake(body: Uint8Array): void {
    const ens = this.ensemble;
    const req = readConnectRequest(new Reader(body));
    if (req.lastZxidSeen > this.member.tree.lastZxid) {
      ens.stats.refusedAhead++;
      this.trace(
        `refuse: client saw zxid 0x${req.lastZxidSeen.toString(16)}, member is at 0x${this.member.tree.lastZxid.toString(16)}`,
      );
      this.close();
      return;
    }
    const timeout = ens.negotiate(req.timeOut);
    if (req.sessionId === 0n) {
      const id = ens.newSessionId(this.member.id);
      const password = new Uint8Array(16).map(() => ens.rng.int(0, 255));
      this.member.forward(() => {
        ens.sessions.set(id, {
          id,
          timeout,
          password,
          expiresAt: 0,
          closing: false,
          owner: null,
          ownerMember: this.member.id,
        });
        ens.touch(id);
        ens.propose(() => ({ kind: 'createSession', sessionId: id, timeout }), {
          cnxn: this,
          finish: () => this.established(id, timeout, password),
        });
      });
      return;
    }
    const late = ens.lateRevalidation.get(this.end.client);
    if (late !== undefined && !this.member.isLeader) {
      ens.lateRevalidation.delete(this.end.client);
      this.trace(`revalidation of 0x${req.sessionId.toString(16)} held up ${late} ms`);
      this.member.holdForwards(late);
    }
    this.member.forward(() => {
      const session = ens.sessions.get(req.sessionId);
      const valid =
        !!session &&
        !session.closing &&
        session.password.length === req.passwd.length &&
        session.password.every((b, i) => b === req.passwd[i]);
      if (valid) {
        session.timeout = timeout;
        session.ownerMember = this.member.id;
        ens.touch(req.sessionId);
      }
      this.member.back(() => {
        if (valid) this.established(req.sessionId, timeout, session.password);
        else this.refuse(req.sessionId);
      });
    });
  }

  private established(id: bigint, timeout: number, password: Uint8Array): void {
    if (this.closed || !this.member.serving) return;
    const session = this.ensemble.sessions.get(id);
    if (!session || session.closing) {
      this.refuse(id);
      return;
    }
    // The session moves here: the member it was on drops its old connection.
    if (session.owner && session.owner !== this) session.owner.close();
    session.owner = this;
    this.sessionId = id;
    this.trace(`session 0x${id.toString(16)} timeout ${timeout}`);
    this.end.send(
      frame((w) =>
        writeConnectResponse(w, {
          protocolVersion: 0,
          timeOut: timeout,
          sessionId: id,
          passwd: password,
          readOnly: false,
        }),
      ),
    );
    if (this.member.flapUntil > this.ensemble.sched.now) {
      this.ensemble.sched.at(1, 'server', () => {
        this.trace('dropping the connection after its handshake (flapping member)');
        this.close();
      });
    }
  }

  private refuse(id: bigint): void {
    this.trace(`session 0x${id.toString(16)} unknown or expired`);
    this.end.send(
      frame((w) =>
        writeConnectResponse(w, {
          protocolVersion: 0,
          timeOut: 0,
          sessionId: 0n,
          passwd: new Uint8Array(16),
          readOnly: false,
        }),
      ),
    );
    this.close();
  }

  // ---- requests ----------------------------------------------------------------------------

  private pump(): void {
    while (this.queue.length > 0 && !this.closed) {
      const entry = this.queue[0]!;
      if (entry.run) {
        entry.reply = entry.run();
        entry.run = undefined;
      }
      if (!entry.reply) return;
      this.queue.shift();
      if (entry.reply.err === ErrorCode.SESSIONMOVED) {
        // ZooKeeper never answers SESSIONMOVED: its FinalRequestProcessor tears the connection
        // down instead (sendCloseSession), since the session may well be on this very connection
        // (a revalidation through a member the client has given up on can land at the leader
        // after the one through this member). The client sees a connection loss and reconnects,
        // and the reconnect's revalidation makes this member the owner again.
        this.trace(`${entry.op} ${entry.path} -> session moved: connection closed, no reply`);
        this.ensemble.stats.sessionMoved++;
        this.close();
        return;
      }
      if (entry.loseReply) {
        // The link breaks after the server did the write, before its reply got out.
        this.trace(`${entry.op} ${entry.path} -> ${entry.reply.err}, reply lost: link reset`);
        this.close();
        return;
      }
      if (entry.xid !== Xid.ping) {
        this.trace(
          `${entry.op} ${entry.path} -> ${entry.reply.err === 0 ? 'ok' : entry.reply.err}`,
        );
      }
      this.send(entry.xid, entry.reply);
      entry.after?.();
    }
  }

  private request(body: Uint8Array): void {
    const ens = this.ensemble;
    const r = new Reader(body);
    const header = readRequestHeader(r);
    // A member cut off from the leader cannot tell it the session is alive.
    if (this.member.isLeader ? ens.ordering : this.member.attached) ens.touch(this.sessionId);
    if (header.type === OpCode.auth) {
      const auth = codecs.auth.readRequest(r);
      const required = ens.options.requireDigest;
      if (required && auth.scheme === 'digest') {
        this.authenticated ||= new TextDecoder().decode(auth.auth) === required;
      }
      this.send(Xid.auth, { err: 0 });
      return;
    }
    if (ens.options.requireDigest && !this.authenticated) {
      // enforce.auth.enabled: the server answers the first request of an unauthenticated
      // connection with SESSIONCLOSEDREQUIRESASLAUTH and closes the connection.
      ens.stats.authRefused++;
      this.trace(`xid ${header.xid} type ${header.type}: not authenticated, connection closed`);
      this.send(header.xid, { err: ErrorCode.SESSIONCLOSEDREQUIRESASLAUTH });
      this.close();
      return;
    }
    if (header.type === OpCode.ping) {
      this.queue.push({ xid: header.xid, op: 'ping', path: '', run: () => ({ err: 0 }) });
      this.pump();
      return;
    }
    const codec = byCode.get(header.type);
    if (!codec) {
      this.queue.push({
        xid: header.xid,
        op: `op${header.type}`,
        path: '',
        reply: { err: ErrorCode.UNIMPLEMENTED },
      });
      this.pump();
      return;
    }
    const req = (codec.readRequest(r) ?? {}) as Record<string, unknown>;
    const path = typeof req.path === 'string' ? req.path : '';
    const entry: Entry = { xid: header.xid, op: codec.name, path };
    this.queue.push(entry);
    const finish = (reply: Reply) => {
      entry.reply = reply;
      this.pump();
    };
    if (header.type === OpCode.closeSession) {
      entry.after = () => this.close();
      this.member.forward(() =>
        ens.closeSession(this.sessionId, { cnxn: this, finish: () => finish({ err: 0 }) }),
      );
    } else if (header.type === OpCode.sync) {
      this.member.forward(() =>
        ens.sync({
          cnxn: this,
          finish: () => finish({ err: 0, body: (w) => codecs.sync.writeResponse(w, { path }) }),
        }),
      );
    } else if (WRITES.has(header.type)) {
      // The lost-reply fault takes the first write the client sends after it was armed.
      const stall = ens.loseWriteReply.get(this.end.client);
      if (stall !== undefined) {
        ens.loseWriteReply.delete(this.end.client);
        entry.loseReply = true;
      }
      this.write(codec.name, req, finish, stall);
    } else {
      entry.run = () => this.read(codec.name, req);
    }
    this.pump();
  }

  private write(
    op: string,
    req: Record<string, unknown>,
    finish: (reply: Reply) => void,
    stall?: number,
  ): void {
    const ens = this.ensemble;
    const session = this.sessionId;
    const time = BigInt(Date.now());
    let results: MultiResult[] = [];
    let change: Change = { type: 'error', err: ErrorCode.UNIMPLEMENTED };
    this.member.forward(() =>
      ens.propose(
        (tree, zxid) => {
          // The session has moved to another member since this request left: refused.
          if (ens.sessions.get(session)?.ownerMember !== this.member.id) {
            change = { type: 'error', err: ErrorCode.SESSIONMOVED };
            results = [];
            if (op === 'multi') return { kind: 'multi', changes: [], failed: true };
            return single(change);
          }
          if (op === 'multi') {
            const ops = (req as { ops: { type: string; request: Record<string, unknown> }[] }).ops;
            const scratch = tree.clone();
            const changes: Change[] = [];
            results = [];
            let failedAt = -1;
            for (const [i, o] of ops.entries()) {
              const c = prepareOne(scratch, o.type, o.request, session, time);
              if (c.type === 'error') {
                failedAt = i;
                results = ops.map((_, j) => ({
                  type: 'error' as const,
                  err: j < i ? 0 : j === i ? c.err : ErrorCode.RUNTIMEINCONSISTENCY,
                }));
                break;
              }
              scratch.apply(zxid, { kind: 'single', change: c });
              changes.push(c);
              results.push(multiResult(scratch, o.type, c));
            }
            return { kind: 'multi', changes, failed: failedAt >= 0 };
          }
          change = prepareOne(tree, op, req, session, time);
          return single(change);
        },
        {
          cnxn: this,
          finish: (member) => {
            if (change.type === 'error' && change.err === ErrorCode.SESSIONMOVED) {
              finish({ err: change.err });
              return;
            }
            if (op === 'multi') {
              finish({ err: 0, body: (w) => codecs.multi.writeResponse(w, results) });
              return;
            }
            finish(replyFor(member.tree, op, change));
          },
        },
        stall,
      ),
    );
  }

  private read(op: string, req: Record<string, unknown>): Reply {
    const tree = this.member.tree;
    const path = req.path as string;
    const watch = req.watch === true;
    const watches = this.member.watches;
    switch (op) {
      case 'exists': {
        const node = tree.get(path);
        if (watch) watches.add('data', path, this, 'std');
        if (!node) return { err: ErrorCode.NONODE };
        return { err: 0, body: (w) => codecs.exists.writeResponse(w, { stat: tree.stat(node) }) };
      }
      case 'getData': {
        const node = tree.get(path);
        if (!node) return { err: ErrorCode.NONODE };
        if (watch) watches.add('data', path, this, 'std');
        const stat = tree.stat(node);
        const data = node.data;
        return { err: 0, body: (w) => codecs.getData.writeResponse(w, { data, stat }) };
      }
      case 'getChildren':
      case 'getChildren2': {
        const node = tree.get(path);
        if (!node) return { err: ErrorCode.NONODE };
        if (watch) watches.add('child', path, this, 'std');
        const children = this.shuffled([...node.children]);
        const stat = tree.stat(node);
        return op === 'getChildren'
          ? { err: 0, body: (w) => codecs.getChildren.writeResponse(w, { children }) }
          : { err: 0, body: (w) => codecs.getChildren2.writeResponse(w, { children, stat }) };
      }
      case 'getACL': {
        const node = tree.get(path);
        if (!node) return { err: ErrorCode.NONODE };
        const stat = tree.stat(node);
        return { err: 0, body: (w) => codecs.getACL.writeResponse(w, { acl: WORLD_ACL, stat }) };
      }
      case 'addWatch': {
        // Both modes go into both tables (a recursive entry in the child table never reports
        // NodeChildrenChanged, but it replaces a one-shot child watch of this connection there).
        const mode = req.mode === 1 ? 'recursive' : 'persistent';
        watches.add('data', path, this, mode);
        watches.add('child', path, this, mode);
        return { err: 0, body: (w) => codecs.addWatch.writeResponse(w, undefined) };
      }
      case 'checkWatches':
      case 'removeWatches': {
        const tables = req.type === 1 ? ['child'] : req.type === 2 ? ['data'] : ['data', 'child'];
        let found = false;
        for (const table of tables as ('data' | 'child')[]) {
          if (op === 'checkWatches') found ||= watches.has(table, path, this);
          else found = watches.remove(table, path, this) || found;
        }
        return { err: found ? 0 : ErrorCode.NOWATCHER };
      }
      case 'setWatches':
      case 'setWatches2':
        this.setWatches(req as unknown as SetWatchesRequest);
        return { err: 0 };
      case 'multiRead': {
        const ops = (req as { ops: { type: string; request: { path: string } }[] }).ops;
        const results: MultiResult[] = ops.map((o) => {
          const node = tree.get(o.request.path);
          if (!node) return { type: 'error', err: ErrorCode.NONODE };
          return o.type === 'getData'
            ? { type: 'getData', data: node.data, stat: tree.stat(node) }
            : { type: 'getChildren', children: this.shuffled([...node.children]) };
        });
        return { err: 0, body: (w) => codecs.multiRead.writeResponse(w, results) };
      }
      case 'whoAmI':
        return { err: 0, body: (w) => codecs.whoAmI.writeResponse(w, { clientInfo: [] }) };
      default:
        return { err: ErrorCode.UNIMPLEMENTED };
    }
  }

  /** SetWatches: catch-up events for what changed since the client's zxid, else re-arm. */
  private setWatches(req: SetWatchesRequest): void {
    const tree = this.member.tree;
    const watches = this.member.watches;
    const rel = req.relativeZxid;
    for (const path of req.dataWatches) {
      const node = tree.get(path);
      if (!node) this.notify('NodeDeleted', path);
      else if (node.mzxid > rel) this.notify('NodeDataChanged', path);
      else watches.add('data', path, this, 'std');
    }
    for (const path of req.existWatches) {
      if (tree.get(path)) this.notify('NodeCreated', path);
      else watches.add('data', path, this, 'std');
    }
    for (const path of req.childWatches) {
      const node = tree.get(path);
      if (!node) this.notify('NodeDeleted', path);
      else if (node.pzxid > rel) this.notify('NodeChildrenChanged', path);
      else watches.add('child', path, this, 'std');
    }
    for (const path of req.persistentWatches ?? []) {
      watches.add('data', path, this, 'persistent');
      watches.add('child', path, this, 'persistent');
    }
    for (const path of req.persistentRecursiveWatches ?? []) {
      watches.add('data', path, this, 'recursive');
      watches.add('child', path, this, 'recursive');
    }
  }

  private shuffled(items: string[]): string[] {
    const rng = this.ensemble.rng;
    for (let i = items.length - 1; i > 0; i--) {
      const j = rng.int(0, i);
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
    return items;
  }
}

interface SetWatchesRequest {
  relativeZxid: bigint;
  dataWatches: string[];
  existWatches: string[];
  childWatches: string[];
  persistentWatches?: string[];
  persistentRecursiveWatches?: string[];
}

function prepareOne(
  tree: DataTree,
  op: string,
  req: Record<string, unknown>,
  session: bigint,
  time: bigint,
): Change {
  const path = req.path as string;
  switch (op) {
    case 'create':
    case 'create2':
    case 'createContainer': {
      const flags = op === 'createContainer' ? 4 : (req.flags as number);
      if (op !== 'createContainer' && flags === 4)
        return { type: 'error', err: ErrorCode.BADARGUMENTS };
      const data = (req.data as Uint8Array | null) ?? new Uint8Array(0);
      return prepareCreateChange(tree, path, data, flags, session, time);
    }
    case 'delete':
      return prepareDelete(tree, path, req.version as number);
    case 'setData':
      return prepareSetData(
        tree,
        path,
        (req.data as Uint8Array | null) ?? new Uint8Array(0),
        req.version as number,
        time,
      );
    case 'setACL': {
      const node = tree.get(path);
      if (!node) return { type: 'error', err: ErrorCode.NONODE };
      const version = req.version as number;
      if (version !== -1 && node.aversion !== version)
        return { type: 'error', err: ErrorCode.BADVERSION };
      return { type: 'setACL', path };
    }
    case 'check':
      return prepareCheck(tree, path, req.version as number);
    case 'reconfig':
      return { type: 'error', err: ErrorCode.RECONFIGDISABLED };
    default:
      // createTTL: extended types are off by default in 3.8.
      return { type: 'error', err: ErrorCode.UNIMPLEMENTED };
  }
}

function replyFor(tree: DataTree, op: string, change: Change): Reply {
  if (change.type === 'error') return { err: change.err };
  switch (op) {
    case 'create':
      return {
        err: 0,
        body: (w) => codecs.create.writeResponse(w, { path: (change as { path: string }).path }),
      };
    case 'create2':
    case 'createContainer': {
      const p = (change as { path: string }).path;
      const stat = tree.stat(tree.get(p)!);
      return { err: 0, body: (w) => codecs.create2.writeResponse(w, { path: p, stat }) };
    }
    case 'setData':
    case 'setACL': {
      const stat = tree.stat(tree.get((change as { path: string }).path)!);
      return { err: 0, body: (w) => codecs.setData.writeResponse(w, { stat }) };
    }
    default:
      return { err: 0 };
  }
}

export { DataTree };
