/**
 * Golden bytes: hand-worked example frames of the protocol (docs/protocol.md), and real frames recorded
 * between the ZooKeeper 3.8 Java client and server (test/fixtures/java-frames.json,
 * made by test/fixtures/capture-java-frames.ts from test/fixtures/java/Capture.java).
 * Requests are rebuilt from literal values (the ones Capture.java used) and must
 * match the Java client's bytes exactly; every reply must decode, with the
 * expected values, and re-encode to the server's bytes.
 */

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
import { Reader } from '../../../src/protocol/reader.js';
import type { ConnectResponse } from '../../../src/protocol/records.js';
import { frame } from '../../../src/protocol/writer.js';
import {
  readConnectRequest,
  writeConnectResponse,
  writeReplyHeader,
  writeWatcherEvent,
} from '../../../src/testing/wire/server-codecs.js';
import {
  anyCodec,
  expectedErrors,
  expectedRequests,
  frames,
  replyChecks,
  replyZxid,
} from './golden-capture.js';
import { body, hex, unhex, utf8 } from './helpers.js';

/** A ConnectRequest for a new session (no zxid seen, no session, a zero password) asking `timeOut`. */
const newSession = (timeOut: number) => ({
  protocolVersion: 0,
  lastZxidSeen: 0n,
  timeOut,
  sessionId: 0n,
  passwd: new Uint8Array(16),
  readOnly: false,
});

describe('worked example frames', () => {
  it('ConnectRequest for a new session', () => {
    const bytes = encodeConnectRequest(newSession(30000));
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
    const bytes = encodeConnectRequest(newSession(4000));
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
