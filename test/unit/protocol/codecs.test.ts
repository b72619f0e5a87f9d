import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  codecs,
  decodeConnectResponse,
  encodeConnectRequest,
  encodeRequest,
  type RequestOf,
  type ResponseOf,
} from '../../../src/protocol/codecs.js';
import { ProtocolError } from '../../../src/protocol/errors.js';
import type { MultiRequest, MultiResult } from '../../../src/protocol/multi.js';
import { Reader } from '../../../src/protocol/reader.js';
import { type ACL, STAT_SIZE, Stat } from '../../../src/protocol/records.js';
import type {
  CreateResponse,
  CreateTTLRequest,
  ExistsResponse,
  GetDataRequest,
  GetDataResponse,
  SetSASLResponse,
  SetWatches2,
} from '../../../src/protocol/requests.js';
import { Writer } from '../../../src/protocol/writer.js';
import {
  readConnectRequest,
  type ServerCodec,
  serverCodecs,
} from '../../../src/testing/wire/server-codecs.js';
import { hex, unhex, utf8 } from './helpers.js';

const stat: Stat = {
  czxid: 0x100000002n,
  mzxid: 2n ** 62n,
  ctime: 1_700_000_000_123n,
  mtime: 1_700_000_000_456n,
  version: 7,
  cversion: -1,
  aversion: 2,
  ephemeralOwner: -(2n ** 63n),
  dataLength: 1048575,
  numChildren: 0,
  pzxid: 0x7fffffffffffffffn,
};
const acl: ACL[] = [
  { perms: 31, id: { scheme: 'world', id: 'anyone' } },
  { perms: 1, id: { scheme: 'digest', id: 'u:hash=' } },
];

interface Sample {
  name: string;
  /** Request and response survive write -> read on both sides. */
  check(): void;
}

function sample<Req, Res>(codec: ServerCodec<Req, Res>, req: Req, res: Res): Sample {
  return {
    name: codec.name,
    check() {
      const w = new Writer();
      codec.write(w, req);
      const rr = new Reader(w.finish());
      expect(codec.readRequest(rr)).toEqual(req);
      expect(rr.remaining).toBe(0);

      const w2 = new Writer();
      codec.writeResponse(w2, res);
      const r2 = new Reader(w2.finish());
      expect(codec.read(r2)).toEqual(res);
      expect(r2.remaining).toBe(0);
    },
  };
}

/** [codec, a request, a response]: each must survive write -> read on both sides. */
const samples: Sample[] = [
  sample(
    serverCodecs.create,
    { path: '/a', data: utf8('x'), acl, flags: 3 },
    { path: '/a0000000001' },
  ),
  sample(serverCodecs.create, { path: '/a', data: null, acl: [], flags: 0 }, { path: '' }),
  sample(
    serverCodecs.create2,
    { path: '/a', data: new Uint8Array(0), acl, flags: 1 },
    { path: '/a', stat },
  ),
  sample(
    serverCodecs.createContainer,
    { path: '/c', data: null, acl, flags: 4 },
    { path: '/c', stat },
  ),
  sample(
    serverCodecs.createTTL,
    { path: '/t', data: utf8('t'), acl, flags: 5, ttl: 0xffffffffffn },
    { path: '/t', stat },
  ),
  sample(serverCodecs.delete, { path: '/a', version: -1 }, undefined),
  sample(serverCodecs.exists, { path: '/a', watch: true }, { stat }),
  sample(serverCodecs.getData, { path: '/a', watch: false }, { data: null, stat }),
  sample(serverCodecs.getData, { path: '/a', watch: false }, { data: utf8('hello'), stat }),
  sample(serverCodecs.setData, { path: '/a', data: null, version: 3 }, { stat }),
  sample(serverCodecs.getACL, { path: '/a' }, { acl, stat }),
  sample(serverCodecs.setACL, { path: '/a', acl, version: 0 }, { stat }),
  sample(
    serverCodecs.getChildren,
    { path: '/', watch: true },
    { children: ['a', 'zookeeper', 'ü'] },
  ),
  sample(serverCodecs.getChildren2, { path: '/', watch: false }, { children: [], stat }),
  sample(serverCodecs.sync, { path: '/a' }, { path: '/chroot/a' }),
  sample(
    serverCodecs.reconfig,
    { joiningServers: null, leavingServers: '1,2', newMembers: null, curConfigId: -1n },
    { data: utf8('server.1=...'), stat },
  ),
  sample(serverCodecs.checkWatches, { path: '/a', type: 2 }, undefined),
  sample(serverCodecs.removeWatches, { path: '/a', type: 3 }, undefined),
  sample(serverCodecs.getEphemerals, { prefixPath: '' }, { ephemerals: ['/e1', '/e2'] }),
  sample(serverCodecs.getAllChildrenNumber, { path: '/' }, { totalNumber: 12345 }),
  sample(serverCodecs.addWatch, { path: '/a', mode: 1 }, undefined),
  sample(serverCodecs.whoAmI, undefined, { clientInfo: [{ authScheme: 'ip', user: '127.0.0.1' }] }),
  sample(
    serverCodecs.setWatches,
    { relativeZxid: 0x1234n, dataWatches: ['/d'], existWatches: [], childWatches: ['/c', '/c2'] },
    undefined,
  ),
  sample(
    serverCodecs.setWatches2,
    {
      relativeZxid: 0n,
      dataWatches: [],
      existWatches: ['/e'],
      childWatches: [],
      persistentWatches: ['/p'],
      persistentRecursiveWatches: ['/r'],
    },
    undefined,
  ),
  sample(serverCodecs.auth, { type: 0, scheme: 'digest', auth: utf8('u:p') }, undefined),
  sample(serverCodecs.sasl, { token: new Uint8Array([1, 2, 3]) }, { token: null }),
  sample(serverCodecs.sasl, { token: new Uint8Array(0) }, { token: new Uint8Array([9]) }),
  sample(serverCodecs.ping, undefined, undefined),
  sample(serverCodecs.closeSession, undefined, undefined),
  sample(serverCodecs.check, { path: '/a', version: 5 }, undefined),
  sample(
    serverCodecs.multi,
    {
      ops: [
        { type: 'create', request: { path: '/m', data: null, acl, flags: 0 } },
        { type: 'create2', request: { path: '/m2', data: utf8('d'), acl, flags: 2 } },
        { type: 'createContainer', request: { path: '/mc', data: null, acl, flags: 4 } },
        { type: 'createTTL', request: { path: '/mt', data: null, acl, flags: 6, ttl: 10n } },
        { type: 'delete', request: { path: '/m', version: -1 } },
        { type: 'setData', request: { path: '/m2', data: null, version: 0 } },
        { type: 'check', request: { path: '/m2', version: 1 } },
      ],
    },
    [
      { type: 'create', path: '/m' },
      { type: 'create2', path: '/m2', stat },
      { type: 'delete' },
      { type: 'setData', stat },
      { type: 'check' },
      { type: 'error', err: -101 },
    ] satisfies MultiResult[],
  ),
  sample(serverCodecs.multi, { ops: [] }, []),
  sample(
    serverCodecs.multiRead,
    {
      ops: [
        { type: 'getChildren', request: { path: '/a', watch: false } },
        { type: 'getData', request: { path: '/b', watch: false } },
      ],
    },
    [
      { type: 'getChildren', children: ['x'] },
      { type: 'getData', data: null, stat },
      { type: 'error', err: -102 },
    ] satisfies MultiResult[],
  ),
];

describe('codec round trips', () => {
  samples.forEach((smp, i) => {
    it(`${smp.name} #${i}: request and response survive write -> read`, () => smp.check());
  });
});

describe('record details', () => {
  it('Stat is 68 bytes in jute field order', () => {
    const w = new Writer();
    Stat.write(w, stat);
    const bytes = w.finish();
    expect(bytes.length).toBe(STAT_SIZE);
    expect(hex(bytes)).toBe(
      '0000000100000002' +
        '4000000000000000' +
        '0000018bcfe5687b' +
        '0000018bcfe569c8' +
        '00000007' +
        'ffffffff' +
        '00000002' +
        '8000000000000000' +
        '000fffff' +
        '00000000' +
        '7fffffffffffffff',
    );
    expect(Stat.read(new Reader(bytes))).toEqual(stat);
    expect(() => Stat.read(new Reader(bytes.subarray(0, 67)))).toThrow(ProtocolError);
  });

  it('encodes a CreateRequest field by field', () => {
    const bytes = encodeRequest(7, codecs.create, {
      path: '/a',
      data: null,
      acl: [{ perms: 31, id: { scheme: 'world', id: 'anyone' } }],
      flags: 1,
    });
    expect(hex(bytes)).toBe(
      '00000031' +
        '00000007' +
        '00000001' +
        '000000022f61' +
        'ffffffff' +
        '00000001' +
        '0000001f' +
        '00000005776f726c64' +
        '00000006616e796f6e65' +
        '00000001',
    );
  });

  it('reads null string vectors and null ACL lists as empty lists', () => {
    const r = new Reader(unhex('ffffffff'));
    expect(codecs.getChildren.read(r)).toEqual({ children: [] });
    expect(codecs.getEphemerals.read(new Reader(unhex('ffffffff')))).toEqual({ ephemerals: [] });
    const w = new Writer();
    w.int(-1);
    Stat.write(w, stat);
    expect(codecs.getACL.read(new Reader(w.finish()))).toEqual({ acl: [], stat });
  });

  it('addWatch consumes the ErrorResponse body when present and tolerates its absence', () => {
    const r = new Reader(unhex('00000000'));
    expect(codecs.addWatch.read(r)).toBeUndefined();
    expect(r.remaining).toBe(0);
    expect(codecs.addWatch.read(new Reader(new Uint8Array(0)))).toBeUndefined();
  });

  it('writes the multi terminator and per-op headers', () => {
    const bytes = encodeRequest(3, codecs.multi, {
      ops: [{ type: 'delete', request: { path: '/a', version: -1 } }],
    });
    expect(hex(bytes)).toBe(
      '00000024' +
        '00000003' +
        '0000000e' +
        '00000002' +
        '00' +
        'ffffffff' +
        '000000022f61' +
        'ffffffff' +
        'ffffffff' +
        '01' +
        'ffffffff',
    );
    const empty = encodeRequest(4, codecs.multiRead, { ops: [] });
    expect(hex(empty)).toBe('00000011' + '00000004' + '00000016' + 'ffffffff01ffffffff');
  });

  it('rejects unknown multi result and op types with ProtocolError', () => {
    expect(() => codecs.multi.read(new Reader(unhex('0000006300' + '00000000')))).toThrow(
      ProtocolError,
    );
    expect(() => serverCodecs.multi.readRequest(new Reader(unhex('0000000400ffffffff')))).toThrow(
      ProtocolError,
    );
    expect(() =>
      serverCodecs.multiRead.readRequest(new Reader(unhex('0000000100ffffffff'))),
    ).toThrow(ProtocolError);
    // Result types outside the table's opcodes, negative or huge, are refused the same way.
    for (const type of ['fffffffb', '7fffffff', '00000016']) {
      expect(() => codecs.multi.read(new Reader(unhex(`${type}00` + '00000000')))).toThrow(
        'unexpected result type',
      );
    }
    // A missing terminator is a short read.
    expect(() => codecs.multi.read(new Reader(unhex('0000000200' + '00000000')))).toThrow(
      ProtocolError,
    );
  });

  it('a multi op the request does not allow is refused with BADARGUMENTS before any byte', () => {
    const w = new Writer();
    const ops = [{ type: 'getData', request: { path: '/a', watch: false } }];
    expect(() => codecs.multi.write(w, { ops } as unknown as MultiRequest)).toThrow(
      expect.objectContaining({ code: 'BADARGUMENTS' }),
    );
    expect(w.length).toBe(0);
    const writeOps = [{ type: 'delete', request: { path: '/a', version: -1 } }];
    expect(() => codecs.multiRead.write(w, { ops: writeOps } as never)).toThrow(
      expect.objectContaining({ code: 'BADARGUMENTS' }),
    );
  });

  it('ConnectRequest/Response: 49-byte frame, short and long response forms', () => {
    const req = {
      protocolVersion: 0,
      lastZxidSeen: 0x1_0000_0000_0001n,
      timeOut: 10000,
      sessionId: 0x0100000693ec0000n,
      passwd: new Uint8Array(16).fill(7),
      readOnly: true,
    };
    const bytes = encodeConnectRequest(req);
    expect(bytes.length).toBe(49);
    expect(bytes[48]).toBe(1);
    expect(readConnectRequest(new Reader(bytes.subarray(4)))).toEqual(req);

    const w = new Writer();
    w.int(0).int(6000).long(-2n).buffer(new Uint8Array(16).fill(3));
    const short = w.finish();
    expect(short.length).toBe(36);
    expect(decodeConnectResponse(short)).toEqual({
      protocolVersion: 0,
      timeOut: 6000,
      sessionId: -2n,
      passwd: new Uint8Array(16).fill(3),
      readOnly: false,
    });
    expect(() => decodeConnectResponse(short.subarray(0, 30))).toThrow(ProtocolError);
  });
});

describe('codec types (what the session layer sees)', () => {
  it('carries the request and response types of each op', () => {
    expectTypeOf(codecs.getData.write).parameter(1).toEqualTypeOf<GetDataRequest>();
    expectTypeOf(codecs.getData.read).returns.toEqualTypeOf<GetDataResponse>();
    expectTypeOf(codecs.create.read).returns.toEqualTypeOf<CreateResponse>();
    expectTypeOf(codecs.createTTL.write).parameter(1).toEqualTypeOf<CreateTTLRequest>();
    expectTypeOf(codecs.delete.read).returns.toEqualTypeOf<undefined>();
    expectTypeOf(codecs.whoAmI.write).parameter(1).toEqualTypeOf<undefined>();
    expectTypeOf(codecs.multi.write).parameter(1).toEqualTypeOf<MultiRequest>();
    expectTypeOf(codecs.multi.read).returns.toEqualTypeOf<MultiResult[]>();
    expectTypeOf(codecs.multiRead.read).returns.toEqualTypeOf<MultiResult[]>();
    expectTypeOf<ResponseOf<'exists'>>().toEqualTypeOf<ExistsResponse>();
    expectTypeOf<RequestOf<'setWatches2'>>().toEqualTypeOf<SetWatches2>();
    expectTypeOf(codecs.sasl.read).returns.toEqualTypeOf<SetSASLResponse>();
    expect(codecs.getData.code).toBe(4);
  });
});
