// What the reply path queues (the lock engine's next request, sent from a reply through a
// CallSink) is written once the chunk's frames are routed, in the socket's own callback: one
// write, in order, before the promise reactions of that turn run, with no flush microtask. A
// request made in a promise reaction still goes out, after them.
import { afterEach, describe, expect, it } from 'vitest';
import { codecs } from '../../../src/protocol/codecs.js';
import { OpCode } from '../../../src/protocol/ops.js';
import { Reader } from '../../../src/protocol/reader.js';
import { HostList } from '../../../src/session/hosts.js';
import { type CallSink, Session } from '../../../src/session/session.js';
import type { Connection, Transport } from '../../../src/session/transport.js';
import { readRequestHeader } from '../../../src/testing/wire/server-codecs.js';
import { until } from '../../support/wait.js';
import { FakeNetwork, handshakeThen, reply } from './fake-server.js';

/** The paths of the syncs in each write the client made after its handshake. */
type Writes = string[][];

/** A transport whose connections record each write's sync paths (the ConnectRequest left out). */
function recording(inner: Transport, writes: Writes): Transport {
  return {
    async connect(options) {
      const connection = await inner.connect(options);
      let handshaken = false;
      const recorded: Connection = {
        chunks: connection.chunks,
        closed: connection.closed,
        get closeError() {
          return connection.closeError;
        },
        close: () => connection.close(),
        write(bytes) {
          if (handshaken) writes.push(syncPaths(bytes));
          handshaken = true;
          return connection.write(bytes);
        },
      };
      return recorded;
    },
  };
}

/** The path of every sync frame in `bytes` (other frames, pings, are left out). */
function syncPaths(bytes: Uint8Array): string[] {
  const paths: string[] = [];
  for (let at = 0; at < bytes.length; ) {
    const length = new DataView(bytes.buffer, bytes.byteOffset + at).getInt32(0);
    const reader = new Reader(bytes.subarray(at + 4, at + 4 + length));
    if (readRequestHeader(reader).type === OpCode.sync) paths.push(reader.string());
    at += 4 + length;
  }
  return paths;
}

/** Answers every request at once, each sync with its own path. */
const answering = handshakeThen((server, body) => {
  const reader = new Reader(body);
  const header = readRequestHeader(reader);
  if (header.type !== OpCode.sync) return server.send(reply(header.xid));
  const path = reader.string();
  server.send(reply(header.xid, 0, (w) => w.ustring(path)));
});

const sessions: Session[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});

async function open(writes: Writes): Promise<Session> {
  const session = new Session({
    hosts: new HostList([{ host: 'zk', port: 1 }], false),
    chroot: '',
    sessionTimeout: 10_000,
    connectTimeout: 5_000,
    readOnly: false,
    auth: [],
    transport: recording(new FakeNetwork({ 'zk:1': answering }), writes),
  });
  sessions.push(session);
  await session.start();
  return session;
}

describe('requests queued while a reply is routed', () => {
  it('go out in one write after the chunk, before the promise reactions of the turn', async () => {
    const writes: Writes = [];
    const session = await open(writes);
    const replied: string[] = [];
    let writesWhenReacting = -1;
    const sink: CallSink = {
      replied(step, error, value) {
        replied.push(`${step}:${error ? error.message : (value as { path: string }).path}`);
        if (step !== 1) return;
        // A promise settled by the reply before the sink sends (a caller's promise resolved
        // first): its reaction runs after the chunk's write, and what it sends goes out after.
        void Promise.resolve().then(() => {
          writesWhenReacting = writes.length;
          session.call(codecs.sync, { path: '/d' }, { path: '/d' }, sink, 4);
        });
        // Sent from the reply, as the lock engine sends its next request.
        session.call(codecs.sync, { path: '/b' }, { path: '/b' }, sink, 2);
        session.call(codecs.sync, { path: '/c' }, { path: '/c' }, sink, 3);
      },
    };
    session.call(codecs.sync, { path: '/a' }, { path: '/a' }, sink, 1);
    await until(() => replied.length === 4, 'the four replies');
    expect(replied).toEqual(['1:/a', '2:/b', '3:/c', '4:/d']);
    expect(writes).toEqual([['/a'], ['/b', '/c'], ['/d']]);
    // The write of /b and /c was made before the reaction ran: no microtask in between.
    expect(writesWhenReacting).toBe(2);
  });
});
