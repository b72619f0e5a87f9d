// The client's expiry clock against the server's. The server restarts a session's expiry clock
// when it receives a request; a reply proves the session alive only as of when its request was
// sent. A server that holds a reply (a follower busy applying) must not make the client believe
// in its session longer than the server does.
import { afterEach, describe, expect, it } from 'vitest';
import { type Client, connect } from '../../../src/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { OpCode } from '../../../src/protocol/ops.js';
import { Reader } from '../../../src/protocol/reader.js';
import { readRequestHeader } from '../../../src/testing/wire/server-codecs.js';
import { FakeNetwork, handshakeThen, reply } from './fake-server.js';

const opened: Client[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
});

// The read timeout (2/3 of it, 1,000 ms) outlasts the held reply: the link survives it.
const SESSION_TIMEOUT = 1_500;
const HELD_FOR = 800;

describe('the expiry countdown starts when the answered request was sent', () => {
  it('a reply held 800 ms, then silence: expired no later than a session timeout after the server received the request', async () => {
    let receivedAt = Number.NaN;
    let connections = 0;
    const held: ReturnType<typeof setTimeout>[] = [];
    const network = new FakeNetwork({
      'slow:1': (server) => {
        // Only the first connection is served: a later handshake goes unanswered (the server
        // does not hear the client again, so its session clock keeps running from the exists).
        if (connections++ > 0) return;
        handshakeThen((_, body) => {
          const header = readRequestHeader(new Reader(body));
          // Pings are never answered: this server's session clock runs from the exists.
          if (header.type !== OpCode.exists || !Number.isNaN(receivedAt)) return;
          receivedAt = performance.now();
          held.push(setTimeout(() => server.send(reply(header.xid, ErrorCode.NONODE)), HELD_FOR));
        }, SESSION_TIMEOUT)(server);
      },
    });
    const zk = await connect('slow:1', {
      transport: network,
      sessionTimeout: SESSION_TIMEOUT,
      connectTimeout: 3_000,
      renewSession: false,
    });
    opened.push(zk);
    const expired = new Promise<number>((resolve) => {
      zk.on('state', (state) => {
        if (state === 'expired') resolve(performance.now());
      });
    });
    expect(await zk.exists('/x')).toBeNull();
    // The reply came HELD_FOR after the server got the request; the server expires the session
    // SESSION_TIMEOUT after it got it (nothing later reached it). Before the fix the client
    // counted from the reply: expired about HELD_FOR later than the server.
    const expiredAt = await expired;
    held.forEach(clearTimeout);
    const lag = expiredAt - receivedAt;
    // Timers under a loaded CI machine fire late, never early: a margin well under HELD_FOR.
    expect(lag).toBeLessThan(SESSION_TIMEOUT + HELD_FOR / 2);
  }, 10_000);
});
