// The newest zxid the session has seen (Client.lastZxid, and the lastZxidSeen of every reconnect):
// taken from each reply's header, as the Java client does, only when it is positive. The header's
// zxid is a signed 64-bit number; both of its 32-bit halves matter.
import { afterEach, describe, expect, it } from 'vitest';
import { type Client, connect } from '../../../src/index.js';
import { OpCode } from '../../../src/protocol/ops.js';
import { Reader } from '../../../src/protocol/reader.js';
import { frame } from '../../../src/protocol/writer.js';
import { readRequestHeader, writeReplyHeader } from '../../../src/testing/wire/server-codecs.js';
import { FakeNetwork, handshakeThen } from './fake-server.js';

const opened: Client[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
});

/** A server that answers each sync with an empty reply carrying the next of `zxids`. */
async function answering(zxids: readonly bigint[]): Promise<Client> {
  let next = 0;
  const network = new FakeNetwork({
    'zk:1': handshakeThen((server, body) => {
      const header = readRequestHeader(new Reader(body));
      if (header.type !== OpCode.sync) return server.send(replyWith(header.xid, 0n));
      server.send(
        frame((w) => {
          writeReplyHeader(w, { xid: header.xid, zxid: zxids[next++] ?? 0n, err: 0 });
          w.ustring('/');
        }),
      );
    }),
  });
  const zk = await connect('zk:1', { transport: network, sessionTimeout: 10_000 });
  opened.push(zk);
  return zk;
}

function replyWith(xid: number, zxid: bigint): Uint8Array {
  return frame((w) => writeReplyHeader(w, { xid, zxid, err: 0 }));
}

describe('lastZxid', () => {
  it('is 0 before any reply carried one', async () => {
    const zk = await answering([]);
    expect(zk.lastZxid).toBe(0n);
  });

  it.each([
    ['a small zxid', 5n],
    ['a zxid of a later epoch (high half set)', 0x1_0000_0005n],
    ['a zxid whose low half has its top bit set', 0x3_8000_0001n],
    ['the low half all ones', 0x2_ffff_ffffn],
    ['the largest zxid', 0x7fff_ffff_ffff_ffffn],
  ])('follows the replies: %s', async (_name, zxid) => {
    const zk = await answering([zxid]);
    await zk.sync('/');
    expect(zk.lastZxid).toBe(zxid);
  });

  it('takes the newest reply, and ignores 0 and negative zxids', async () => {
    const zk = await answering([
      0x1_0000_0007n,
      0n,
      -1n,
      -(1n << 63n),
      0x2_0000_0000n,
      0x1_0000_0009n,
    ]);
    const seen: bigint[] = [];
    for (let i = 0; i < 6; i++) {
      await zk.sync('/');
      seen.push(zk.lastZxid);
    }
    expect(seen).toEqual([
      0x1_0000_0007n,
      0x1_0000_0007n,
      0x1_0000_0007n,
      0x1_0000_0007n,
      0x2_0000_0000n,
      // As the Java client: the newest reply's zxid, not the largest one seen.
      0x1_0000_0009n,
    ]);
  });
});
