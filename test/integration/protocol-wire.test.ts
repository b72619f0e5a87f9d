/**
 * The protocol layer alone against a real ZooKeeper: a raw node:net socket, our
 * encoder and FrameDecoder, no session layer. Uses the run's shared server
 * (test/harness), under a unique top-level path.
 */

import { connect as netConnect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Codec,
  codecs,
  decodeConnectResponse,
  decodeReplyHeader,
  decodeWatcherEvent,
  encodeConnectRequest,
  encodeRequest,
} from '../../src/protocol/codecs.js';
import { FrameDecoder } from '../../src/protocol/frame.js';
import { CreateFlag, EventTypeCode, Xid } from '../../src/protocol/ops.js';
import { Reader } from '../../src/protocol/reader.js';
import type { ACL, ConnectResponse, ReplyHeader } from '../../src/protocol/records.js';
import { sharedServer, uniquePath } from '../harness/index.js';

const OPEN: ACL[] = [{ perms: 31, id: { scheme: 'world', id: 'anyone' } }];
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array | null): string | null => (b ? new TextDecoder().decode(b) : null);

/** Just enough of a client to talk frames: send, and await the next frame body. */
class WireConnection {
  private readonly decoder = new FrameDecoder();
  private readonly frames: Uint8Array[] = [];
  private waiters: ((frame: Uint8Array | Error) => void)[] = [];
  private failure: Error | undefined;
  closed = false;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Uint8Array) => {
      for (const f of this.decoder.push(chunk)) this.deliver(f);
    });
    socket.on('close', () => {
      this.closed = true;
      this.fail(new Error('socket closed'));
    });
    socket.on('error', (err) => this.fail(err));
  }

  static open(host: string, port: number): Promise<WireConnection> {
    return new Promise((resolve, reject) => {
      const socket = netConnect({ host, port });
      socket.once('connect', () => resolve(new WireConnection(socket)));
      socket.once('error', reject);
    });
  }

  send(bytes: Uint8Array): void {
    this.socket.write(bytes);
  }

  next(timeoutMs = 10_000): Promise<Uint8Array> {
    const ready = this.frames.shift();
    if (ready) return Promise.resolve(ready);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no frame in time')), timeoutMs);
      this.waiters.push((f) => {
        clearTimeout(timer);
        if (f instanceof Error) reject(f);
        else resolve(f);
      });
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private deliver(frame: Uint8Array): void {
    const waiter = this.waiters.shift();
    if (waiter) waiter(frame);
    else this.frames.push(frame);
  }

  private fail(err: Error): void {
    this.failure ??= err;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w(err);
  }
}

let conn: WireConnection;
let session: ConnectResponse;
let xid = 0;
const base = uniquePath('proto-wire');

/** Sends one request and returns its reply header and, when err == 0, the decoded body. */
async function call<Req, Res>(
  codec: Codec<Req, Res>,
  req: Req,
): Promise<{ header: ReplyHeader; res?: Res }> {
  const myXid = ++xid;
  conn.send(encodeRequest(myXid, codec, req));
  const r = new Reader(await conn.next());
  const header = decodeReplyHeader(r);
  expect(header.xid).toBe(myXid);
  if (header.err !== 0) return { header };
  const res = codec.read(r);
  expect(r.remaining).toBe(0);
  return { header, res };
}

beforeAll(async () => {
  const first = sharedServer().connectString.split('/')[0]!.split(',')[0]!;
  const at = first.lastIndexOf(':');
  conn = await WireConnection.open(first.slice(0, at), Number(first.slice(at + 1)));
  conn.send(
    encodeConnectRequest({
      protocolVersion: 0,
      lastZxidSeen: 0n,
      timeOut: 10_000,
      sessionId: 0n,
      passwd: new Uint8Array(16),
      readOnly: false,
    }),
  );
  session = decodeConnectResponse(await conn.next());
});

afterAll(() => {
  conn?.close();
});

describe('protocol layer against a real server', () => {
  it('completes the handshake', () => {
    expect(session.protocolVersion).toBe(0);
    expect(session.timeOut).toBeGreaterThan(0);
    expect(session.sessionId).not.toBe(0n);
    expect(session.passwd.length).toBe(16);
    expect(session.readOnly).toBe(false);
  });

  it('creates nodes and reads them back', async () => {
    const created = await call(codecs.create, {
      path: base,
      data: utf8('hello'),
      acl: OPEN,
      flags: CreateFlag.PERSISTENT,
    });
    expect(created.header.err).toBe(0);
    expect(created.res).toEqual({ path: base });

    const eph = await call(codecs.create2, {
      path: `${base}/eph-`,
      data: null,
      acl: OPEN,
      flags: CreateFlag.EPHEMERAL_SEQUENTIAL,
    });
    expect(eph.res?.path).toMatch(new RegExp(`^${base}/eph-\\d{10}$`));
    expect(eph.res?.stat.ephemeralOwner).toBe(session.sessionId);
    expect(eph.res?.stat.czxid).toBe(eph.header.zxid);

    const got = await call(codecs.getData, { path: base, watch: true });
    expect(text(got.res!.data)).toBe('hello');
    expect(got.res!.stat).toMatchObject({ version: 0, dataLength: 5, numChildren: 1 });
    expect(got.res!.stat.czxid).toBe(created.header.zxid);

    const missing = await call(codecs.getData, { path: `${base}/nope`, watch: false });
    expect(missing.header.err).toBe(-101);
  });

  it('receives the watch notification before the reply that caused it', async () => {
    const myXid = ++xid;
    conn.send(encodeRequest(myXid, codecs.setData, { path: base, data: utf8('v2'), version: 0 }));
    const first = new Reader(await conn.next());
    expect(decodeReplyHeader(first).xid).toBe(Xid.notification);
    expect(decodeWatcherEvent(first)).toEqual({
      type: EventTypeCode.NodeDataChanged,
      state: 3, // KeeperState SyncConnected: the only state a server puts in a notification
      path: base,
    });
    const second = new Reader(await conn.next());
    const header = decodeReplyHeader(second);
    expect(header).toMatchObject({ xid: myXid, err: 0 });
    expect(codecs.setData.read(second).stat.version).toBe(1);
  });

  it('fails a multi atomically, reporting every op', async () => {
    const multi = await call(codecs.multi, {
      ops: [
        { type: 'create', request: { path: `${base}/m`, data: null, acl: OPEN, flags: 0 } },
        { type: 'check', request: { path: base, version: 99 } },
        { type: 'setData', request: { path: base, data: utf8('no'), version: -1 } },
      ],
    });
    expect(multi.header.err).toBe(0);
    expect(multi.res).toEqual([
      { type: 'error', err: 0 },
      { type: 'error', err: -103 },
      { type: 'error', err: -2 },
    ]);
    const exists = await call(codecs.exists, { path: `${base}/m`, watch: false });
    expect(exists.header.err).toBe(-101);
  });

  it('runs a successful multi and a multiRead', async () => {
    const multi = await call(codecs.multi, {
      ops: [
        { type: 'create', request: { path: `${base}/m`, data: utf8('m'), acl: OPEN, flags: 0 } },
        { type: 'create2', request: { path: `${base}/n`, data: null, acl: OPEN, flags: 0 } },
        { type: 'check', request: { path: base, version: 1 } },
        { type: 'setData', request: { path: `${base}/m`, data: utf8('m2'), version: 0 } },
        { type: 'delete', request: { path: `${base}/n`, version: -1 } },
      ],
    });
    expect(multi.res?.map((r) => r.type)).toEqual([
      'create',
      expect.stringMatching(/^create2?$/),
      'check',
      'setData',
      'delete',
    ]);
    expect(multi.res?.[0]).toEqual({ type: 'create', path: `${base}/m` });
    // Observed: a 3.8.0 server answers a create2 sub-op with a plain create result (path, no
    // stat), though one might expect a create2 result with a stat; either way the path must come back.
    expect(multi.res?.[1]).toMatchObject({ path: `${base}/n` });

    const read = await call(codecs.multiRead, {
      ops: [
        { type: 'getData', request: { path: `${base}/m`, watch: false } },
        { type: 'getChildren', request: { path: `${base}/m`, watch: false } },
        { type: 'getData', request: { path: `${base}/gone`, watch: false } },
      ],
    });
    expect(read.res).toHaveLength(3);
    expect(read.res?.[0]).toMatchObject({ type: 'getData' });
    expect(text((read.res![0] as { data: Uint8Array }).data)).toBe('m2');
    expect(read.res?.[1]).toEqual({ type: 'getChildren', children: [] });
    expect(read.res?.[2]).toEqual({ type: 'error', err: -101 });
  });

  it('answers a ping with xid -2', async () => {
    conn.send(encodeRequest(Xid.ping, codecs.ping, undefined));
    const r = new Reader(await conn.next());
    const header = decodeReplyHeader(r);
    expect(header.xid).toBe(Xid.ping);
    expect(header.err).toBe(0);
    expect(header.zxid > 0n).toBe(true);
    expect(r.remaining).toBe(0);
  });

  it('answers pipelined requests in order', async () => {
    const start = xid + 1;
    const batch = [0, 1, 2, 3].map((i) =>
      encodeRequest(start + i, codecs.exists, {
        path: i % 2 ? base : `${base}/x${i}`,
        watch: false,
      }),
    );
    const joined = new Uint8Array(batch.reduce((n, b) => n + b.length, 0));
    let at = 0;
    for (const b of batch) {
      joined.set(b, at);
      at += b.length;
    }
    conn.send(joined);
    xid += 4;
    const headers: ReplyHeader[] = [];
    for (let i = 0; i < 4; i++) headers.push(decodeReplyHeader(new Reader(await conn.next())));
    expect(headers.map((h) => h.xid)).toEqual([start, start + 1, start + 2, start + 3]);
    expect(headers.map((h) => h.err)).toEqual([-101, 0, -101, 0]);
  });

  it('cleans up and closes the session', async () => {
    const children = await call(codecs.getChildren, { path: base, watch: false });
    for (const child of children.res!.children) {
      expect(
        (await call(codecs.delete, { path: `${base}/${child}`, version: -1 })).header.err,
      ).toBe(0);
    }
    expect((await call(codecs.delete, { path: base, version: -1 })).header.err).toBe(0);
    const closed = await call(codecs.closeSession, undefined);
    expect(closed.header.err).toBe(0);
    await expect(conn.next(5000)).rejects.toThrow('socket closed');
  });
});
