/**
 * What test/fixtures/java-frames.json is checked against: the requests Capture.java made, as our
 * request records (rebuilt from the literal values it used), the error codes its failing steps
 * must get, and value checks on the decoded successful replies. golden.test.ts holds the tests.
 */
import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import { type Codec, codecs, decodeReplyHeader } from '../../../src/protocol/codecs.js';
import type { MultiResult } from '../../../src/protocol/multi.js';
import { opName } from '../../../src/protocol/ops.js';
import { Reader } from '../../../src/protocol/reader.js';
import type { ACL, Stat } from '../../../src/protocol/records.js';
import type {
  Create2Response,
  CreateResponse,
  GetACLResponse,
  GetChildren2Response,
  GetChildrenResponse,
  GetDataResponse,
  StatResponse,
} from '../../../src/protocol/requests.js';
import { type ServerCodec, serverCodecByCode } from '../../../src/testing/wire/server-codecs.js';
import { body, type CapturedExchange, fromUtf8, javaFrames, utf8 } from './helpers.js';

export const frames = javaFrames();
const OPEN: ACL[] = [{ perms: 31, id: { scheme: 'world', id: 'anyone' } }];
const digestId = `user:${createHash('sha1').update('user:secret').digest('base64')}`;
const b = utf8;
// Observed: the 3.8.0 server puts ephemeralOwner 0 in the Stat of a create reply even for
// container and TTL nodes (whose stored owner is a marker value, not a session); don't rely on it.
const CREATE_REPLY_OWNER = 0n;

export const anyCodec = (code: number): ServerCodec<unknown, unknown> => {
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
export const expectedRequests: Record<string, [Codec<never, unknown>, unknown]> = {
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

export const replyZxid = (label: string): bigint =>
  decodeReplyHeader(new Reader(body(exchange(label).reply))).zxid;

// A reconnecting client re-sends its watches relative to the last zxid it saw.
(expectedRequests.setWatches![1] as { relativeZxid: bigint }).relativeZxid =
  replyZxid('getChildren-empty');
(expectedRequests.setWatches2![1] as { relativeZxid: bigint }).relativeZxid = replyZxid(
  'create-under-recursive-watch',
);

export const expectedErrors: Record<string, number> = {
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
export const replyChecks: Record<string, (res: unknown, zxid: bigint) => void> = {
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
