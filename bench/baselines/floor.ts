// The floor: the safe lock recipe with the least client work there is, to tell what the server
// and the kernel allow from what a client library adds. One raw TCP socket per session, request
// frames built once and patched with the xid, every request written the moment it is known (no
// coalescing delay), replies parsed only as far as the recipe needs. It does exactly the requests
// the safe recipe needs per acquisition (create and listing sent together, one exists watch on the
// predecessor, one listing after each wake, one delete) and nothing a library must do: no
// connection-loss handling, no timeouts, no abort, no validation. A measuring stick, not a client.
import { connect as connectTcp, type Socket } from 'node:net';
import { JuteFrame } from '../jute-bytes.js';

const OP = { create: 1, delete: 2, exists: 3, getChildren: 8, ping: 11, close: -11 } as const;
const XID = { notification: -1, ping: -2 } as const;
const NONODE = -101;
const NODEEXISTS = -110;
const EPHEMERAL_SEQUENTIAL = 3;
const PREFIX = 'lock-';

/** A request frame whose xid (bytes 4-7) is written just before it is sent. */
function requestFrame(op: number, fields: (b: JuteFrame) => void): Buffer {
  const b = new JuteFrame().int(0).int(op);
  fields(b);
  const bytes = b.frame();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

type Reply = (err: number, body: Buffer, offset: number) => void;

/** How a floor session reads its socket (see {@link FloorSession.open}). */
export type FloorReads = 'data' | 'onread';

/** What `onread` sessions read into: one buffer for all, each read consumed before the next. */
const sharedReadBuffer = new Uint8Array(64 * 1024);

/** One session: a socket, the replies awaited by xid, and the exists watches by path. */
export class FloorSession {
  private xid = 0;
  private readonly pending = new Map<number, Reply>();
  private readonly watches = new Map<string, () => void>();
  private input: Buffer = Buffer.alloc(0);
  private readonly pinger: ReturnType<typeof setInterval>;
  private readonly pingFrame = requestFrame(OP.ping, () => {});

  private constructor(
    private readonly socket: Socket,
    sessionTimeoutMs: number,
    reads: FloorReads,
  ) {
    this.pingFrame.writeInt32BE(XID.ping, 4);
    if (reads === 'data') socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.pinger = setInterval(() => socket.write(this.pingFrame), sessionTimeoutMs / 3);
  }

  /**
   * Connects and completes the handshake (a new session, no password, not read-only). `reads`:
   * through 'data' events (the floor as the benchmark runs it), or through node:net's `onread`
   * into one buffer all sessions share, as our Node transport reads: for telling how much of a
   * difference between the two clients is that read path alone.
   */
  static open(
    server: string,
    sessionTimeoutMs = 30_000,
    reads: FloorReads = 'data',
  ): Promise<FloorSession> {
    const [host, port] = server.split(',')[0]!.split(':');
    return new Promise((resolve, reject) => {
      // With onread there are no 'data' events: every read goes to whoever reads now.
      let reader: (chunk: Buffer) => void = () => {};
      const socket = connectTcp(
        reads === 'onread'
          ? {
              host: host!,
              port: Number(port),
              onread: {
                buffer: sharedReadBuffer,
                callback: (length: number, buffer: Uint8Array): boolean => {
                  reader(Buffer.from(buffer.buffer, buffer.byteOffset, length));
                  return true;
                },
              },
            }
          : { host: host!, port: Number(port) },
      );
      socket.setNoDelay(true);
      socket.once('error', reject);
      socket.once('connect', () => {
        const hello = new JuteFrame()
          .int(0) // protocol version
          .long(0n) // last zxid seen
          .int(sessionTimeoutMs)
          .long(0n) // session id: a new session
          .bytesField(new Uint8Array(16)) // password
          .bool(false) // read-only
          .frame();
        socket.write(hello);
      });
      let got = Buffer.alloc(0);
      const onHandshake = (chunk: Buffer) => {
        got = Buffer.concat([got, chunk]);
        if (got.length < 4 || got.length < 4 + got.readInt32BE(0)) return;
        socket.off('data', onHandshake);
        socket.off('error', reject);
        const session = new FloorSession(socket, got.readInt32BE(8), reads);
        reader = (next) => session.onData(next);
        const rest = got.subarray(4 + got.readInt32BE(0));
        if (rest.length > 0) session.onData(rest);
        resolve(session);
      };
      if (reads === 'onread') reader = onHandshake;
      else socket.on('data', onHandshake);
    });
  }

  /** Writes `frames` in one write, each given the next xid; `replies` get their answers. */
  send(frames: readonly Buffer[], replies: readonly Reply[]): void {
    for (let i = 0; i < frames.length; i++) {
      const xid = ++this.xid;
      frames[i]!.writeInt32BE(xid, 4);
      this.pending.set(xid, replies[i]!);
    }
    this.socket.write(frames.length === 1 ? frames[0]! : Buffer.concat(frames));
  }

  /** Calls `fired` once when the exists watch on `path` fires. */
  watch(path: string, fired: () => void): void {
    this.watches.set(path, fired);
  }

  unwatch(path: string): void {
    this.watches.delete(path);
  }

  /** Creates `path` and its ancestors as persistent nodes; existing ones are fine. */
  async mkdirp(path: string): Promise<void> {
    let at = '';
    for (const part of path.split('/').slice(1)) {
      at += `/${part}`;
      const frame = requestFrame(OP.create, (b) =>
        b.string(at).int(-1).int(1).int(31).string('world').string('anyone').int(0),
      );
      const err = await new Promise<number>((resolve) => this.send([frame], [resolve]));
      if (err !== 0 && err !== NODEEXISTS) throw new Error(`create ${at} failed: ${err}`);
    }
  }

  close(): Promise<void> {
    clearInterval(this.pinger);
    return new Promise((resolve) => {
      this.send([requestFrame(OP.close, () => {})], [() => this.socket.end(resolve)]);
    });
  }

  private onData(chunk: Buffer): void {
    const data = this.input.length === 0 ? chunk : Buffer.concat([this.input, chunk]);
    let offset = 0;
    while (data.length - offset >= 4) {
      const size = data.readInt32BE(offset);
      if (data.length - offset - 4 < size) break;
      this.onFrame(data.subarray(offset + 4, offset + 4 + size));
      offset += 4 + size;
    }
    // A part of a frame is kept for the next read: copied, as a chunk read into the shared buffer
    // is overwritten by the next read (with 'data' events the copy is of a few bytes, rarely).
    this.input = offset === data.length ? Buffer.alloc(0) : Buffer.from(data.subarray(offset));
  }

  private onFrame(frame: Buffer): void {
    const xid = frame.readInt32BE(0);
    const err = frame.readInt32BE(12);
    if (xid === XID.notification) {
      // WatcherEvent: type, state, path.
      const length = frame.readInt32BE(24);
      const path = frame.toString('utf8', 28, 28 + length);
      const fired = this.watches.get(path);
      if (fired) {
        this.watches.delete(path);
        fired();
      }
      return;
    }
    if (xid === XID.ping) return;
    const reply = this.pending.get(xid);
    if (!reply) return;
    this.pending.delete(xid);
    reply(err, frame, 16);
  }
}

function readString(body: Buffer, offset: number): string {
  const length = body.readInt32BE(offset);
  return body.toString('utf8', offset + 4, offset + 4 + length);
}

function readStrings(body: Buffer, offset: number): string[] {
  const count = body.readInt32BE(offset);
  const out: string[] = new Array(count);
  let at = offset + 4;
  for (let i = 0; i < count; i++) {
    const length = body.readInt32BE(at);
    out[i] = body.toString('utf8', at + 4, at + 4 + length);
    at += 4 + length;
  }
  return out;
}

/** Sequence number of a `lock-0000000042` child. */
function sequenceOf(name: string): number {
  return Number(name.slice(name.length - 10));
}

/**
 * The safe predecessor-watch recipe on a {@link FloorSession}: create and listing written
 * together, an exists watch on the nearest contender ahead, a listing after every wake.
 */
export class FloorMutex {
  /** Watch events delivered to this lock (for notifications per release). */
  watchEvents = 0;
  private readonly createFrame: Buffer;
  private readonly listFrame: Buffer;

  /**
   * @param protectedNames name each node as our Mutex and Curator do, `_c_<uuid>-lock-<seq>` with
   *   a fresh UUID per acquisition (the frame is then built per acquisition), instead of `lock-<seq>`
   */
  constructor(
    private readonly session: FloorSession,
    private readonly path: string,
    private readonly protectedNames = false,
  ) {
    this.createFrame = this.createFrameFor(PREFIX);
    this.listFrame = requestFrame(OP.getChildren, (b) => b.string(path).bool(false));
  }

  private createFrameFor(name: string): Buffer {
    return requestFrame(OP.create, (b) =>
      b
        .string(`${this.path}/${name}`)
        .int(-1) // no data
        .int(1) // one ACL: world:anyone, all permissions
        .int(31)
        .string('world')
        .string('anyone')
        .int(EPHEMERAL_SEQUENTIAL),
    );
  }

  /** Resolves with the release function once this contender holds the lock. */
  acquire(): Promise<() => Promise<void>> {
    return new Promise((resolve, reject) => {
      let own = '';
      let ownName = '';
      const decide = (err: number, body: Buffer, offset: number) => {
        if (err !== 0) return reject(new Error(`getChildren failed: ${err}`));
        const ownSequence = sequenceOf(ownName);
        // The nearest contender ahead, in one pass.
        let ahead: string | undefined;
        let aheadSequence = -1;
        let present = false;
        for (const name of readStrings(body, offset)) {
          if (!name.includes(PREFIX)) continue;
          const sequence = sequenceOf(name);
          if (sequence === ownSequence) present = true;
          else if (sequence < ownSequence && sequence > aheadSequence) {
            ahead = name;
            aheadSequence = sequence;
          }
        }
        if (!present) return reject(new Error(`lock node ${own} vanished`));
        if (ahead === undefined) return resolve(() => this.remove(own));
        const predecessor = `${this.path}/${ahead}`;
        const relist = () => this.session.send([this.listFrame], [decide]);
        this.session.watch(predecessor, () => {
          this.watchEvents++;
          relist();
        });
        const frame = requestFrame(OP.exists, (b) => b.string(predecessor).bool(true));
        this.session.send(
          [frame],
          [
            (existsErr) => {
              if (existsErr === NONODE) {
                // Already gone: no watch was set; list again.
                this.session.unwatch(predecessor);
                relist();
              } else if (existsErr !== 0) reject(new Error(`exists failed: ${existsErr}`));
            },
          ],
        );
      };
      const created = (err: number, body: Buffer, offset: number) => {
        if (err !== 0) return reject(new Error(`create failed: ${err}`));
        own = readString(body, offset);
        ownName = own.slice(this.path.length + 1);
      };
      const create = this.protectedNames
        ? this.createFrameFor(`_c_${crypto.randomUUID()}-${PREFIX}`)
        : this.createFrame;
      this.session.send([create, this.listFrame], [created, decide]);
    });
  }

  private remove(own: string): Promise<void> {
    const frame = requestFrame(OP.delete, (b) => b.string(own).int(-1));
    return new Promise((resolve, reject) => {
      this.session.send(
        [frame],
        [(err) => (err === 0 ? resolve() : reject(new Error(`delete failed: ${err}`)))],
      );
    });
  }
}
