// One client connection on a model member: the handshake, then requests answered strictly in
// order. A session's read waits behind its own earlier writes (as the server's commit processor
// holds it) and then sees the member's own state; writes and syncs go through the leader.
import { ErrorCode } from '../../protocol/errors.js';
import { FrameDecoder } from '../../protocol/frame.js';
import { EventTypeCode, OpCode, Xid } from '../../protocol/ops.js';
import { Reader } from '../../protocol/reader.js';
import { frame, type Writer } from '../../protocol/writer.js';
import {
  serverCodecs as codecs,
  readConnectRequest,
  readRequestHeader,
  type ServerCodec,
  writeConnectResponse,
  writeReplyHeader,
  writeWatcherEvent,
} from '../wire/server-codecs.js';
import { WRITE_OPS } from '../wire/writes.js';
import type { ServerEnd } from './host.js';
import type { Member } from './member.js';
import { answerRead } from './reads.js';
import type { Trigger } from './tree.js';
import { proposeWrite } from './writes.js';

/** A request's answer: its error code, and its body when the code is 0. */
export interface Reply {
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

export class Cnxn {
  sessionId = 0n;
  private handshaking = true;
  closed = false;
  /** The connection sent the credentials `requireDigest` asks for. */
  private authenticated = false;
  /** Who the connection is (whoAmI): its address, then each digest user it added. */
  readonly identities: { scheme: string; user: string }[] = [{ scheme: 'ip', user: '127.0.0.1' }];
  private readonly credentials = new Set<string>();
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

  get ensemble() {
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
      const text = new TextDecoder().decode(auth.auth);
      if (required && auth.scheme === 'digest') {
        this.authenticated ||= text === required;
      }
      const colon = text.indexOf(':');
      if (auth.scheme === 'digest' && colon > 0 && !this.credentials.has(text)) {
        this.credentials.add(text);
        this.identities.push({ scheme: 'digest', user: text.slice(0, colon) });
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
    } else if (WRITE_OPS.has(header.type)) {
      // The lost-reply fault takes the first write the client sends after it was armed.
      const stall = ens.loseWriteReply.get(this.end.client);
      if (stall !== undefined) {
        ens.loseWriteReply.delete(this.end.client);
        entry.loseReply = true;
      }
      proposeWrite(this, codec.name, req, finish, stall);
    } else {
      entry.run = () => answerRead(this, codec.name, req);
    }
    this.pump();
  }

  /** `items` in the model's random order (the server's listing order is not sorted). */
  shuffled(items: string[]): string[] {
    const rng = this.ensemble.rng;
    for (let i = items.length - 1; i > 0; i--) {
      const j = rng.int(0, i);
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
    return items;
  }
}
