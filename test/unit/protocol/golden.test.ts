/**
 * Golden bytes: hand-worked example frames of the protocol (docs/protocol.md), and real frames recorded
 * between the ZooKeeper 3.8 Java client and server (test/fixtures/java-frames.json,
 * made by test/fixtures/capture-java-frames.ts from test/fixtures/java/Capture.java).
 * Requests are rebuilt from literal values (the ones Capture.java used) and must
 * match the Java client's bytes exactly; every reply must decode, with the
 * expected values, and re-encode to the server's bytes.
 */

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type Codec,
  codecs,
  decodeConnectResponse,
  decodeReplyHeader,
  decodeWatcherEvent,
  encodeConnectRequest,
  encodeRequest,
} from '../../../src/protocol/codecs.js';
import type { MultiResult } from '../../../src/protocol/multi.js';
import { opName } from '../../../src/protocol/ops.js';
import { Reader } from '../../../src/protocol/reader.js';
import type { ACL, ConnectResponse, Stat } from '../../../src/protocol/records.js';
import type {
  Create2Response,
  CreateResponse,
  GetACLResponse,
  GetChildren2Response,
  GetChildrenResponse,
  GetDataResponse,
  StatResponse,
} from '../../../src/protocol/requests.js';
import { frame } from '../../../src/protocol/writer.js';
import {
  readConnectRequest,
  type ServerCodec,
  serverCodecByCode,
  writeConnectResponse,
  writeReplyHeader,
  writeWatcherEvent,
} from '../../../src/testing/wire/server-codecs.js';
import { body, type CapturedExchange, fromUtf8, hex, javaFrames, unhex, utf8 } from './helpers.js';

describe('worked example frames', () => {
  it('ConnectRequest for a new session', () => {
    const bytes = encodeConnectRequest({
      protocolVersion: 0,
      lastZxidSeen: 0n,
      timeOut: 30000,
      sessionId: 0n,
      passwd: new Uint8Array(16),
      readOnly: false,
    });
    expect(hex(bytes)).toBe(
      hex(
        unhex(
          `0000002D|00000000|0000000000000000|00007530|0000000000000000|00000010${'00'.repeat(16)}|00`,
        ),
      ),
    );
    expect(bytes.length).toBe(49);
  });

  it('ping request and reply', () => {
    expect(hex(encodeRequest(-2, codecs.ping, undefined))).toBe('00000008fffffffe0000000b');
    const reply = new Reader(
      body('00000010|FFFFFFFE|0000000000000123|00000000'.replace(/\|/g, '')),
    );
    expect(decodeReplyHeader(reply)).toEqual({ xid: -2, zxid: 0x123n, err: 0 });
  });

  it('getData("/a", watch=true) with xid 5', () => {
    expect(hex(encodeRequest(5, codecs.getData, { path: '/a', watch: true }))).toBe(
      hex(unhex('0000000F|00000005|00000004|00000002 2F61|01')),
    );
  });

  it('auth, scheme "digest", auth "u:p"', () => {
    const bytes = encodeRequest(-4, codecs.auth, { type: 0, scheme: 'digest', auth: utf8('u:p') });
    expect(hex(bytes)).toBe(
      hex(unhex('0000001D|FFFFFFFC|00000064|00000000|00000006 646967657374|00000003 753A70')),
    );
  });

  it('closeSession with xid 9', () => {
    expect(hex(encodeRequest(9, codecs.closeSession, undefined))).toBe('0000000800000009fffffff5');
  });

  it('error reply (NONODE) to xid 5', () => {
    const r = new Reader(body('00000010|00000005|0000000000000042|FFFFFF9B'.replace(/\|/g, '')));
    expect(decodeReplyHeader(r)).toEqual({ xid: 5, zxid: 0x42n, err: -101 });
    expect(r.remaining).toBe(0);
  });
});

// ---------------------------------------------------------------------------
// Real frames from the Java client.

const frames = javaFrames();
const OPEN: ACL[] = [{ perms: 31, id: { scheme: 'world', id: 'anyone' } }];
const digestId = `user:${createHash('sha1').update('user:secret').digest('base64')}`;
const b = utf8;
// Observed: the 3.8.0 server puts ephemeralOwner 0 in the Stat of a create reply even for
// container and TTL nodes (whose stored owner is a marker value, not a session); don't rely on it.
const CREATE_REPLY_OWNER = 0n;

const anyCodec = (code: number): ServerCodec<unknown, unknown> => {
  const codec = serverCodecByCode(code);
  if (!codec) throw new Error(`no codec for op ${code} (${opName(code)})`);
  return codec;
};

function exchange(label: string): CapturedExchange {
  const found = frames.exchanges.find((e) => e.label === label);
  if (!found) throw new Error(`fixture has no exchange ${label}`);
  return found;
}

/** What Capture.java asked for, as our request records. */
const expectedRequests: Record<string, [Codec<never, unknown>, unknown]> = {
  'create-persistent': [codecs.create, { path: '/cap', data: b('root'), acl: OPEN, flags: 0 }],
  'create-null-data': [codecs.create, { path: '/cap/nulldata', data: null, acl: OPEN, flags: 0 }],
  'create-ephemeral': [codecs.create, { path: '/cap/eph', data: b('e'), acl: OPEN, flags: 1 }],
  'create-persistent-sequential': [
    codecs.create,
    { path: '/cap/pseq-', data: b('ps'), acl: OPEN, flags: 2 },
  ],
  'create-ephemeral-sequential': [
    codecs.create,
    { path: '/cap/eseq-', data: b('es'), acl: OPEN, flags: 3 },
  ],
  'create-container': [
    codecs.createContainer,
    { path: '/cap/container', data: b('c'), acl: OPEN, flags: 4 },
  ],
  'create-ttl': [
    codecs.createTTL,
    { path: '/cap/ttl', data: b('t'), acl: OPEN, flags: 5, ttl: 60000n },
  ],
  'create-sequential-ttl': [
    codecs.createTTL,
    { path: '/cap/sttl-', data: b('st'), acl: OPEN, flags: 6, ttl: 3600000n },
  ],
  create2: [codecs.create2, { path: '/cap/c2', data: b('two'), acl: OPEN, flags: 0 }],
  'create-unicode': [
    codecs.create,
    { path: '/cap/\u00fcn\u00ef-\u20ac', data: b('\u00e9t\u00e9 \u2603'), acl: OPEN, flags: 0 },
  ],
  'create-nodeexists': [codecs.create, { path: '/cap', data: b('x'), acl: OPEN, flags: 0 }],
  'create-nonode-parent': [
    codecs.create,
    { path: '/nope/child', data: b('x'), acl: OPEN, flags: 0 },
  ],
  'exists-hit': [codecs.exists, { path: '/cap/c2', watch: false }],
  'exists-nonode-watch': [codecs.exists, { path: '/cap/missing', watch: true }],
  'getData-watch': [codecs.getData, { path: '/cap', watch: true }],
  'getData-null-data': [codecs.getData, { path: '/cap/nulldata', watch: false }],
  setData: [codecs.setData, { path: '/cap', data: b('root2'), version: -1 }],
  'setData-badversion': [codecs.setData, { path: '/cap', data: b('x'), version: 99 }],
  'getData-watch-again': [codecs.getData, { path: '/cap', watch: true }],
  'getChildren-watch': [codecs.getChildren, { path: '/cap', watch: true }],
  getChildren2: [codecs.getChildren2, { path: '/cap', watch: false }],
  'getChildren-empty': [codecs.getChildren, { path: '/cap/c2', watch: false }],
  setWatches: [
    codecs.setWatches,
    {
      relativeZxid: 0n, // patched below: the last zxid the client saw
      dataWatches: ['/cap'],
      existWatches: ['/cap/missing'],
      childWatches: ['/cap'],
    },
  ],
  sync: [codecs.sync, { path: '/cap' }],
  getAllChildrenNumber: [codecs.getAllChildrenNumber, { path: '/cap' }],
  getEphemerals: [codecs.getEphemerals, { prefixPath: '/cap' }],
  whoAmI: [codecs.whoAmI, undefined],
  setACL: [
    codecs.setACL,
    {
      path: '/cap/c2',
      acl: [
        { perms: 31, id: { scheme: 'digest', id: digestId } },
        { perms: 1, id: { scheme: 'world', id: 'anyone' } },
      ],
      version: -1,
    },
  ],
  getACL: [codecs.getACL, { path: '/cap/c2' }],
  delete: [codecs.delete, { path: '/cap/eph', version: -1 }],
  'delete-nonode': [codecs.delete, { path: '/cap/eph', version: -1 }],
  'delete-notempty': [codecs.delete, { path: '/cap', version: -1 }],
  'multi-success': [
    codecs.multi,
    {
      ops: [
        { type: 'create', request: { path: '/cap/m1', data: b('m'), acl: OPEN, flags: 0 } },
        { type: 'create', request: { path: '/cap/mseq-', data: b('ms'), acl: OPEN, flags: 3 } },
        {
          type: 'createContainer',
          request: { path: '/cap/mcontainer', data: b('mc'), acl: OPEN, flags: 4 },
        },
        {
          type: 'createTTL',
          request: { path: '/cap/mttl', data: b('mt'), acl: OPEN, flags: 5, ttl: 5000n },
        },
        { type: 'setData', request: { path: '/cap/m1', data: b('m2'), version: -1 } },
        { type: 'check', request: { path: '/cap/m1', version: 1 } },
        { type: 'delete', request: { path: '/cap/m1', version: -1 } },
      ],
    },
  ],
  'multi-failing': [
    codecs.multi,
    {
      ops: [
        { type: 'create', request: { path: '/cap/m2', data: null, acl: OPEN, flags: 0 } },
        { type: 'check', request: { path: '/cap/c2', version: 42 } },
        { type: 'delete', request: { path: '/cap/c2', version: -1 } },
      ],
    },
  ],
  multiRead: [
    codecs.multiRead,
    {
      ops: [
        { type: 'getChildren', request: { path: '/cap/container', watch: false } },
        { type: 'getData', request: { path: '/cap', watch: false } },
        { type: 'getData', request: { path: '/cap/missing', watch: false } },
        { type: 'getData', request: { path: '/cap/nulldata', watch: false } },
      ],
    },
  ],
  'getData-own-watcher': [codecs.getData, { path: '/cap/nulldata', watch: true }],
  checkWatches: [codecs.checkWatches, { path: '/cap/nulldata', type: 2 }],
  'addWatch-persistent': [codecs.addWatch, { path: '/cap/pw', mode: 0 }],
  'addWatch-recursive': [codecs.addWatch, { path: '/cap/c2', mode: 1 }],
  removeWatches: [codecs.removeWatches, { path: '/cap/pw', type: 3 }],
  'create-under-recursive-watch': [
    codecs.create,
    { path: '/cap/c2/child', data: b('k'), acl: OPEN, flags: 0 },
  ],
  setWatches2: [
    codecs.setWatches2,
    {
      relativeZxid: 0n, // patched below
      dataWatches: ['/cap'],
      existWatches: ['/cap/missing'],
      childWatches: [],
      persistentWatches: [],
      persistentRecursiveWatches: ['/cap/c2'],
    },
  ],
  'reconfig-disabled': [
    codecs.reconfig,
    {
      joiningServers: 'server.9=127.0.0.1:2888:3888;2181',
      leavingServers: null,
      newMembers: null,
      curConfigId: -1n,
    },
  ],
  'exists-after-reconnect': [codecs.exists, { path: '/cap', watch: false }],
  closeSession: [codecs.closeSession, undefined],
};

const replyZxid = (label: string): bigint =>
  decodeReplyHeader(new Reader(body(exchange(label).reply))).zxid;

// A reconnecting client re-sends its watches relative to the last zxid it saw.
(expectedRequests.setWatches![1] as { relativeZxid: bigint }).relativeZxid =
  replyZxid('getChildren-empty');
(expectedRequests.setWatches2![1] as { relativeZxid: bigint }).relativeZxid = replyZxid(
  'create-under-recursive-watch',
);

const expectedErrors: Record<string, number> = {
  'create-nodeexists': -110,
  'create-nonode-parent': -101,
  'exists-nonode-watch': -101,
  'setData-badversion': -103,
  'delete-nonode': -101,
  'delete-notempty': -111,
  'reconfig-disabled': -123,
};

const seq = /^\d{10}$/;
const stat = (res: unknown): Stat => (res as StatResponse).stat;

/** Value checks on decoded successful replies. */
const replyChecks: Record<string, (res: unknown, zxid: bigint) => void> = {
  'create-persistent': (res) => expect(res).toEqual({ path: '/cap' }),
  'create-null-data': (res) => expect(res).toEqual({ path: '/cap/nulldata' }),
  'create-ephemeral': (res) => expect(res).toEqual({ path: '/cap/eph' }),
  'create-persistent-sequential': (res) =>
    expect((res as CreateResponse).path.slice('/cap/pseq-'.length)).toMatch(seq),
  'create-ephemeral-sequential': (res) =>
    expect((res as CreateResponse).path.slice('/cap/eseq-'.length)).toMatch(seq),
  'create-container': (res, zxid) => {
    const r = res as Create2Response;
    expect(r.path).toBe('/cap/container');
    expect(r.stat.ephemeralOwner).toBe(CREATE_REPLY_OWNER);
    expect(r.stat.czxid).toBe(zxid);
  },
  'create-ttl': (res) => {
    const r = res as Create2Response;
    expect(r.path).toBe('/cap/ttl');
    expect(r.stat.ephemeralOwner).toBe(CREATE_REPLY_OWNER);
  },
  'create-sequential-ttl': (res) => {
    const r = res as Create2Response;
    expect(r.path.slice('/cap/sttl-'.length)).toMatch(seq);
    expect(r.stat.ephemeralOwner).toBe(CREATE_REPLY_OWNER);
  },
  create2: (res, zxid) => {
    const r = res as Create2Response;
    expect(r.path).toBe('/cap/c2');
    expect(r.stat).toMatchObject({ czxid: zxid, mzxid: zxid, pzxid: zxid, version: 0 });
    expect(r.stat).toMatchObject({ dataLength: 3, numChildren: 0, ephemeralOwner: 0n });
    expect(r.stat.ctime).toBe(r.stat.mtime);
    // A plausible epoch-milliseconds timestamp (after 2020).
    expect(r.stat.ctime > 1_577_836_800_000n).toBe(true);
  },
  'create-unicode': (res) => expect(res).toEqual({ path: '/cap/\u00fcn\u00ef-\u20ac' }),
  'exists-hit': (res) => expect(stat(res)).toMatchObject({ dataLength: 3, version: 0 }),
  'getData-watch': (res) => {
    const r = res as GetDataResponse;
    expect(fromUtf8(r.data)).toBe('root');
    expect(r.stat.dataLength).toBe(4);
  },
  'getData-null-data': (res) => {
    const r = res as GetDataResponse;
    expect(r.data).toBeNull();
    expect(r.stat.dataLength).toBe(0);
  },
  setData: (res, zxid) =>
    expect(stat(res)).toMatchObject({ version: 1, dataLength: 5, mzxid: zxid }),
  'getData-watch-again': (res) => expect(fromUtf8((res as GetDataResponse).data)).toBe('root2'),
  'getChildren-watch': (res) => {
    const children = (res as GetChildrenResponse).children;
    expect(children).toHaveLength(9);
    expect(children).toEqual(
      expect.arrayContaining(['c2', 'eph', 'nulldata', '\u00fcn\u00ef-\u20ac']),
    );
  },
  getChildren2: (res) => {
    const r = res as GetChildren2Response;
    expect(r.children).toHaveLength(9);
    expect(r.stat.numChildren).toBe(9);
  },
  'getChildren-empty': (res) => expect(res).toEqual({ children: [] }),
  sync: (res) => expect(res).toEqual({ path: '/cap' }),
  getAllChildrenNumber: (res) => expect(res).toEqual({ totalNumber: 9 }),
  getEphemerals: (res) => {
    const list = (res as { ephemerals: string[] }).ephemerals;
    expect(list).toHaveLength(2);
    expect(list).toContain('/cap/eph');
    expect(list.find((p) => p.startsWith('/cap/eseq-'))).toBeDefined();
  },
  whoAmI: (res) =>
    expect(res).toEqual({
      clientInfo: [
        { authScheme: 'ip', user: '127.0.0.1' },
        { authScheme: 'digest', user: 'user' },
      ],
    }),
  setACL: (res) => expect(stat(res).aversion).toBe(1),
  getACL: (res) => {
    const r = res as GetACLResponse;
    expect(r.acl).toEqual([
      { perms: 31, id: { scheme: 'digest', id: digestId } },
      { perms: 1, id: { scheme: 'world', id: 'anyone' } },
    ]);
    expect(r.stat.aversion).toBe(1);
  },
  'multi-success': (res, zxid) => {
    const results = res as MultiResult[];
    expect(results.map((r) => r.type)).toEqual([
      'create',
      'create',
      'create2',
      'create2',
      'setData',
      'check',
      'delete',
    ]);
    expect(results[0]).toEqual({ type: 'create', path: '/cap/m1' });
    const mseq = results[1] as { path: string };
    expect(mseq.path.slice('/cap/mseq-'.length)).toMatch(seq);
    const container = results[2] as { path: string; stat: Stat };
    expect(container.path).toBe('/cap/mcontainer');
    expect(container.stat.ephemeralOwner).toBe(CREATE_REPLY_OWNER);
    expect(container.stat.czxid).toBe(zxid); // one zxid for the whole multi
    const ttl = results[3] as { path: string; stat: Stat };
    expect(ttl.path).toBe('/cap/mttl');
    expect(ttl.stat.ephemeralOwner).toBe(CREATE_REPLY_OWNER);
    expect(ttl.stat.czxid).toBe(zxid);
    expect((results[4] as { stat: Stat }).stat.version).toBe(1);
  },
  'multi-failing': (res) =>
    expect(res).toEqual([
      { type: 'error', err: 0 },
      { type: 'error', err: -103 },
      { type: 'error', err: -2 },
    ]),
  multiRead: (res) => {
    const results = res as MultiResult[];
    expect(results).toHaveLength(4);
    expect(results[0]).toEqual({ type: 'getChildren', children: [] });
    const data = results[1] as { type: string; data: Uint8Array; stat: Stat };
    expect(data.type).toBe('getData');
    expect(fromUtf8(data.data)).toBe('root2');
    expect(results[2]).toEqual({ type: 'error', err: -101 });
    expect(results[3]).toMatchObject({ type: 'getData', data: null });
  },
  'getData-own-watcher': (res) => expect((res as GetDataResponse).data).toBeNull(),
  'create-under-recursive-watch': (res) => expect(res).toEqual({ path: '/cap/c2/child' }),
  'exists-after-reconnect': (res) => expect(stat(res).numChildren).toBeGreaterThan(0),
};

describe('Java client frames: requests', () => {
  it('the fixture covers every scripted step', () => {
    expect(frames.exchanges.map((e) => e.label).sort()).toEqual(
      Object.keys(expectedRequests).sort(),
    );
  });

  for (const ex of frames.exchanges) {
    it(`encodes ${ex.label} (op ${ex.op}, xid ${ex.xid}) byte for byte`, () => {
      const expected = expectedRequests[ex.label];
      expect(expected, `no expected request for ${ex.label}`).toBeDefined();
      const [codec, req] = expected!;
      expect(codec.code).toBe(ex.op);
      expect(hex(encodeRequest(ex.xid, codec as Codec<unknown, unknown>, req))).toBe(ex.request);
      // The server-side reader agrees with what we meant to send.
      const r = new Reader(body(ex.request));
      expect(r.int()).toBe(ex.xid);
      expect(r.int()).toBe(ex.op);
      expect(anyCodec(ex.op).readRequest(r)).toEqual(req);
      expect(r.remaining).toBe(0);
    });
  }

  it('encodes the auth packets (xid -4)', () => {
    expect(frames.auths.length).toBeGreaterThanOrEqual(2);
    for (const ex of frames.auths) {
      const req = { type: 0, scheme: 'digest', auth: utf8('user:secret') };
      expect(hex(encodeRequest(-4, codecs.auth, req))).toBe(ex.request);
      expect(decodeReplyHeader(new Reader(body(ex.reply)))).toEqual({ xid: -4, zxid: 0n, err: 0 });
    }
  });

  it('encodes the pings (xid -2) and reads their replies', () => {
    expect(frames.pings.length).toBeGreaterThanOrEqual(1);
    for (const ex of frames.pings) {
      expect(hex(encodeRequest(-2, codecs.ping, undefined))).toBe(ex.request);
      const r = new Reader(body(ex.reply));
      const h = decodeReplyHeader(r);
      expect(h.xid).toBe(-2);
      expect(h.err).toBe(0);
      expect(h.zxid > 0n).toBe(true);
      expect(r.remaining).toBe(0);
    }
  });
});

describe('Java client frames: connect handshake', () => {
  const [first, ...resumes] = frames.connects;
  const firstResponse = (): ConnectResponse => decodeConnectResponse(body(first!.response));

  it('encodes a new-session ConnectRequest like Java', () => {
    const bytes = encodeConnectRequest({
      protocolVersion: 0,
      lastZxidSeen: 0n,
      timeOut: 4000,
      sessionId: 0n,
      passwd: new Uint8Array(16),
      readOnly: false,
    });
    expect(hex(bytes)).toBe(first!.request);
  });

  it('decodes the ConnectResponse (37-byte body) and re-encodes it', () => {
    const res = firstResponse();
    expect(body(first!.response).length).toBe(37);
    expect(res.protocolVersion).toBe(0);
    expect(res.timeOut).toBe(4000);
    expect(res.sessionId > 0n).toBe(true);
    expect(res.passwd.length).toBe(16);
    expect(res.readOnly).toBe(false);
    expect(hex(frame((w) => writeConnectResponse(w, res)))).toBe(first!.response);
  });

  it('accepts the short 36-byte ConnectResponse without readOnly', () => {
    const full = body(first!.response);
    const short = decodeConnectResponse(full.subarray(0, 36));
    expect(short).toEqual({ ...firstResponse(), readOnly: false });
    const ro = full.slice();
    ro[36] = 1;
    expect(decodeConnectResponse(ro).readOnly).toBe(true);
  });

  it('encodes the resume ConnectRequests (session id, password, last zxid) like Java', () => {
    expect(resumes.length).toBe(2);
    const { sessionId, passwd } = firstResponse();
    const lastZxids = [replyZxid('getChildren-empty'), replyZxid('create-under-recursive-watch')];
    resumes.forEach((c, i) => {
      const req = {
        protocolVersion: 0,
        lastZxidSeen: lastZxids[i]!,
        timeOut: 4000,
        sessionId,
        passwd,
        readOnly: false,
      };
      expect(hex(encodeConnectRequest(req))).toBe(c.request);
      expect(readConnectRequest(new Reader(body(c.request)))).toEqual(req);
      const res = decodeConnectResponse(body(c.response));
      expect(res.sessionId).toBe(sessionId);
      expect(res.passwd).toEqual(passwd);
    });
  });
});

describe('Java client frames: replies', () => {
  for (const ex of frames.exchanges) {
    it(`decodes the reply to ${ex.label} and re-encodes it`, () => {
      const r = new Reader(body(ex.reply));
      const header = decodeReplyHeader(r);
      expect(header.xid).toBe(ex.xid);
      expect(header.err).toBe(expectedErrors[ex.label] ?? 0);
      if (header.err !== 0) {
        expect(r.remaining).toBe(0);
        return;
      }
      const codec = anyCodec(ex.op);
      const res = codec.read(r);
      expect(r.remaining).toBe(0);
      replyChecks[ex.label]?.(res, header.zxid);
      const again = frame((w) => {
        writeReplyHeader(w, header);
        codec.writeResponse(w, res);
      });
      expect(hex(again)).toBe(ex.reply);
    });
  }

  it('decodes the watch notifications', () => {
    const events = frames.notifications.map((n) => {
      const r = new Reader(body(n.frame));
      const header = decodeReplyHeader(r);
      expect(header).toEqual({ xid: -1, zxid: -1n, err: 0 }); // 3.8 always sends zxid -1
      const event = decodeWatcherEvent(r);
      expect(r.remaining).toBe(0);
      const again = frame((w) => {
        writeReplyHeader(w, header);
        writeWatcherEvent(w, event);
      });
      expect(hex(again)).toBe(n.frame);
      return event;
    });
    expect(events).toEqual([
      { type: 3, state: 3, path: '/cap' }, // NodeDataChanged, SyncConnected
      { type: 4, state: 3, path: '/cap' }, // NodeChildrenChanged
      { type: 1, state: 3, path: '/cap/c2/child' }, // NodeCreated, via the recursive watch
    ]);
  });
});
