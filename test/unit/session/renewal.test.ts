// Session renewal against scripted in-memory servers: the windows the real server cannot be made
// to show on demand.
import { describe, expect, it } from 'vitest';
import { connect, type SessionRenewal } from '../../../src/index.js';
import { Reader } from '../../../src/protocol/reader.js';
import type {
  Connection,
  Transport,
  TransportConnectOptions,
} from '../../../src/session/transport.js';
import { readConnectRequest } from '../../../src/testing/wire/server-codecs.js';
import { FakeNetwork, handshakeAnswer, type ServerSide } from './fake-server.js';

const waitFor = async (probe: () => boolean, ms = 5_000) => {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('renewal', () => {
  it('never takes back a session it declared expired, even when a server offers it again', async () => {
    const OLD = 0x500n;
    const NEW = 0x600n;
    const asked: bigint[] = [];
    let answers = 0;
    const network = new FakeNetwork({
      'zk:2181': (server: ServerSide) => {
        let handshaken = false;
        server.onFrame((body) => {
          if (handshaken) return; // pings and requests: no answer needed here
          handshaken = true;
          const request = readConnectRequest(new Reader(body));
          asked.push(request.sessionId);
          answers++;
          if (answers === 1) server.send(handshakeAnswer(OLD));
          // The client resumes the old session: the server says it has expired.
          else if (request.sessionId === OLD) server.send(handshakeAnswer(0n, 0));
          // A new session is asked for; first a server still serving the old one answers with it
          // (as a handshake sent before the expiry would be answered), then a new one is granted.
          else if (answers === 3) server.send(handshakeAnswer(OLD));
          else server.send(handshakeAnswer(NEW));
        });
      },
    });
    const zk = await connect('zk:2181', { transport: network, sessionTimeout: 1_000 });
    expect(zk.sessionId).toBe(OLD);
    const renewals: SessionRenewal[] = [];
    const ids: bigint[] = [];
    zk.on('renewed', (renewal) => renewals.push(renewal));
    zk.on('state', (state) => {
      if (state === 'connected') ids.push(zk.sessionId);
    });
    network.connections[0]!.connection.close();
    await waitFor(() => renewals.length === 1);
    await waitFor(() => zk.state === 'connected');
    expect(renewals).toEqual([{ previousSessionId: OLD, sessionId: NEW }]);
    expect(ids).toEqual([NEW]);
    expect(asked).toEqual([0n, OLD, 0n, 0n]);
    await zk.close();
  });

  it('close() while a renewal dials: settles at once, and a dial completed late sends no handshake', async () => {
    let dials = 0;
    let lateFrames = 0;
    const late: { connect: () => void }[] = [];
    const network = new FakeNetwork({
      'zk:2181': (server: ServerSide) => {
        let handshaken = false;
        server.onFrame((body) => {
          if (handshaken) return;
          handshaken = true;
          const request = readConnectRequest(new Reader(body));
          // The first session, then: expired.
          server.send(request.sessionId === 0n ? handshakeAnswer(0x700n) : handshakeAnswer(0n, 0));
        });
      },
    });
    // After the expiry, dials hang and complete only later, whatever the signal says (a transport
    // that cannot cancel a dial in progress).
    const transport: Transport = {
      connect(options: TransportConnectOptions): Promise<Connection> {
        dials++;
        if (dials <= 2) return network.connect(options);
        return new Promise((resolve) => {
          late.push({
            connect: () =>
              void network.connect(options).then((connection) => {
                const server = network.connections.at(-1)!.connection.server;
                server.onFrame(() => lateFrames++);
                resolve(connection);
              }),
          });
        });
      },
    };
    const zk = await connect('zk:2181', { transport, sessionTimeout: 1_000 });
    network.connections[0]!.connection.close();
    await waitFor(() => zk.state === 'connecting' && late.length > 0);
    const started = Date.now();
    const closing = zk.close();
    for (const dial of late) dial.connect();
    await closing;
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(zk.state).toBe('closed');
    // Every late dial has completed and been closed by the client: any frame it sent is in.
    await waitFor(() => network.openConnections() === 0);
    expect(lateFrames).toBe(0);
  });
});
