// The client facing broken or hostile servers: it drops the link, reports why, moves to the next
// host, and never crashes, hangs or leaks timers.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Client, connect } from '../../../src/index.js';
import { until } from '../../support/wait.js';
import {
  connectResponse,
  FakeNetwork,
  goodServer,
  misbehaveAfterHandshake,
  reply,
  type Script,
} from './fake-server.js';

const opened: Client[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
  vi.restoreAllMocks();
});

// The client pauses a random part of 150 ms (a quarter of the session timeout) before it dials
// again after a dropped link: pacing pinned in the session's own tests, drawn as 0 here. The
// hosts are not shuffled (open() says so), so the draw changes no host order.
beforeEach(() => {
  vi.spyOn(Math, 'random').mockReturnValue(0);
});

async function open(network: FakeNetwork, hosts: string, sessionTimeout = 600): Promise<Client> {
  const zk = await connect(hosts, {
    transport: network,
    sessionTimeout,
    connectTimeout: 3_000,
    shuffleHosts: false,
  });
  opened.push(zk);
  return zk;
}

function timers(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
}

/** Runs a getData against a first host that misbehaves after the handshake: the call fails with
 * CONNECTIONLOSS, the client resumes on the good second host, and the next call works. */
async function survives(script: Script, code = 'CONNECTIONLOSS') {
  const network = new FakeNetwork({ 'bad:1': script, 'good:2': goodServer('from good') });
  const zk = await open(network, 'bad:1,good:2');
  expect(zk.server).toBe('bad:1');
  const first = await zk.getData('/x').then(
    () => null,
    (e: Error & { code?: string }) => e,
  );
  expect(first?.code).toBe(code);
  const { data } = await zk.getData('/x');
  expect(new TextDecoder().decode(data)).toBe('from good');
  expect(zk.server).toBe('good:2');
  return { zk, network, first: first! };
}

describe('a hostile server', () => {
  it('garbage bytes after the handshake', async () => {
    await survives((s) =>
      misbehaveAfterHandshake((server) => server.send(new Uint8Array([0, 0, 0, 3, 9, 9, 9])))(s),
    );
  });

  it('a reply with the wrong xid', async () => {
    const { first } = await survives(
      misbehaveAfterHandshake((server, xid) => server.send(reply(xid + 7))),
    );
    expect(first.message).toContain('xid');
  });

  it('an absurd frame length (2 GB) is refused without allocating it', async () => {
    // The oldest call learns why: its reply would be over the frame limit.
    const { first } = await survives(
      misbehaveAfterHandshake((server) =>
        server.send(new Uint8Array([0x7f, 0xff, 0xff, 0xff, 1, 2, 3])),
      ),
      'MARSHALLINGERROR',
    );
    expect(first.message).toContain('2147483647');
    expect(first.message).toContain('maxFrameSize');
  });

  it('a negative frame length', async () => {
    await survives(
      misbehaveAfterHandshake((server) => server.send(new Uint8Array([0xff, 0xff, 0xff, 0xfe]))),
    );
  });

  it('a truncated frame, then the connection closes', async () => {
    await survives(
      misbehaveAfterHandshake((server, xid) => {
        const full = reply(xid, 0, (w) => w.buffer(new Uint8Array(100)));
        server.send(full.subarray(0, 30));
        setTimeout(() => server.close(), 10);
      }),
    );
  });

  it('a reply whose body is too short for its record', async () => {
    // That call learns its reply was malformed; the link is dropped all the same.
    await survives(
      misbehaveAfterHandshake((server, xid) => server.send(reply(xid, 0, (w) => w.int(3)))),
      'MARSHALLINGERROR',
    );
  });

  it('a reply for a request never sent', async () => {
    await survives(
      misbehaveAfterHandshake((server, xid) => {
        server.send(reply(xid + 100));
      }),
    );
  });

  it('answers the handshake, then goes silent: the dead link is noticed from the session timeout', async () => {
    const started = Date.now();
    await survives(misbehaveAfterHandshake(() => {}));
    // read timeout = 2/3 of 600 ms
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('never answers the handshake: the next host is tried after the per-host connect timeout', async () => {
    const network = new FakeNetwork({ 'mute:1': () => {}, 'good:2': goodServer() });
    const zk = await open(network, 'mute:1,good:2');
    expect(zk.server).toBe('good:2');
  });

  it('a garbage handshake answer', async () => {
    const network = new FakeNetwork({
      'bad:1': (server) =>
        server.onFrame(() => server.send(new Uint8Array([0, 0, 0, 4, 1, 2, 3, 4]))),
      'good:2': goodServer(),
    });
    const zk = await open(network, 'bad:1,good:2');
    expect(zk.server).toBe('good:2');
  });

  it('an oversized handshake answer', async () => {
    const network = new FakeNetwork({
      'bad:1': (server) =>
        server.onFrame((body) => {
          const ok = connectResponse(body);
          const big = new Uint8Array(ok.length + 2_000_000);
          big.set(ok);
          new DataView(big.buffer).setInt32(0, ok.length - 4 + 2_000_000);
          server.send(big);
        }),
      'good:2': goodServer(),
    });
    const zk = await open(network, 'bad:1,good:2');
    expect(zk.server).toBe('good:2');
  });

  it('when every host misbehaves, connect() rejects in time and nothing is left running', async () => {
    const before = timers();
    const network = new FakeNetwork({
      'a:1': (server) =>
        server.onFrame(() => server.send(new Uint8Array([0xff, 0xff, 0xff, 0xff]))),
      'b:2': () => {},
    });
    const started = Date.now();
    const error = await connect('a:1,b:2', {
      transport: network,
      sessionTimeout: 400,
      connectTimeout: 600,
    }).then(
      () => null,
      (e: Error & { code?: string }) => e,
    );
    expect(error?.code).toBe('TIMEOUT');
    expect(error?.message).toContain('a:1');
    expect(error?.message).toContain('b:2');
    expect(Date.now() - started).toBeLessThan(1_900);
    await until(() => network.openConnections() === 0, 'the connections to close');
    await until(() => timers() <= before, 'the timers to end');
  });

  it('a closed client leaves no connection and no timer behind', async () => {
    const before = timers();
    const network = new FakeNetwork({ 'good:1': goodServer() });
    const zk = await connect('good:1', { transport: network, sessionTimeout: 600 });
    await zk.getData('/x');
    await zk.close();
    await until(() => network.openConnections() === 0, 'the connection to close');
    await until(() => timers() <= before, 'the timers to end');
  });
});

describe('a transport that refuses its settings', () => {
  it('fails connect() at once with its reason instead of retrying until connectTimeout', async () => {
    const { ZooKeeperError } = await import('../../../src/protocol/errors.js');
    const transport = {
      connect: async () => {
        throw new ZooKeeperError('BADARGUMENTS', 'this runtime cannot use a custom CA');
      },
    };
    const started = Date.now();
    const error = await connect('a:1,b:2', { transport, connectTimeout: 5_000 }).then(
      () => null,
      (e: Error & { code?: string }) => e,
    );
    expect(error).toMatchObject({
      code: 'BADARGUMENTS',
      message: 'this runtime cannot use a custom CA',
    });
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
