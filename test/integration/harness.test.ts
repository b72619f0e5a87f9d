/**
 * Proves the real-ZooKeeper harness works, using only four-letter words and a few raw frames
 * (never src/, which the harness exists to test).
 */
import { existsSync } from 'node:fs';
import { connect as netConnect, type Socket } from 'node:net';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fourLetterWord,
  freePort,
  HarnessUnavailableError,
  parseMntr,
  parseMode,
  requireManaged,
  sharedServer,
  startEnsemble,
  startStandalone,
  TcpProxy,
  uniquePath,
  waitFor,
  type ZkEnsemble,
  type ZkServer,
} from '../harness/index.js';
import { findLocalInstall } from '../harness/install.js';

// --- a few raw frames (zookeeper-protocol.md §3.1, §4, §13) -------------------------------------

/** ConnectRequest for a new session: 45-byte body, 49 bytes on the wire. */
function connectRequest(timeoutMs = 10_000): Buffer {
  const frame = Buffer.alloc(49);
  frame.writeInt32BE(45, 0); // length
  frame.writeInt32BE(0, 4); // protocolVersion
  frame.writeBigInt64BE(0n, 8); // lastZxidSeen
  frame.writeInt32BE(timeoutMs, 16);
  frame.writeBigInt64BE(0n, 20); // sessionId
  frame.writeInt32BE(16, 28); // passwd: 16 zero bytes
  frame.writeUInt8(0, 48); // readOnly
  return frame;
}

const PING = Buffer.from('00000008fffffffe0000000b', 'hex');

/** create(path, data, world:anyone ALL, persistent) with the given xid. */
function createRequest(xid: number, path: string): Buffer {
  const ustring = (s: string) => {
    const bytes = Buffer.from(s, 'utf8');
    const len = Buffer.alloc(4);
    len.writeInt32BE(bytes.length);
    return Buffer.concat([len, bytes]);
  };
  const int = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeInt32BE(n);
    return b;
  };
  const body = Buffer.concat([
    int(xid),
    int(1), // OpCode.create
    ustring(path),
    ustring('x'), // data
    int(1), // one ACL
    int(31), // Perms.ALL
    ustring('world'),
    ustring('anyone'),
    int(0), // CreateMode.PERSISTENT
  ]);
  return Buffer.concat([int(body.length), body]);
}

/** A raw client connection that splits the byte stream into frames. */
class RawConnection {
  private buffer = Buffer.alloc(0);
  private readonly frames: Buffer[] = [];
  private waiter: (() => void) | undefined;
  closed = false;

  constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      while (this.buffer.length >= 4 && this.buffer.length >= 4 + this.buffer.readInt32BE(0)) {
        const length = this.buffer.readInt32BE(0);
        this.frames.push(this.buffer.subarray(4, 4 + length));
        this.buffer = this.buffer.subarray(4 + length);
      }
      this.waiter?.();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      this.closed = true;
      this.waiter?.();
    });
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = netConnect({ host: '127.0.0.1', port }, () =>
        resolve(new RawConnection(socket)),
      );
      socket.once('error', reject);
    });
  }

  /** Sends a ConnectRequest and returns the negotiated session timeout. */
  async handshake(): Promise<number> {
    this.socket.write(connectRequest());
    const response = await this.nextFrame(5000);
    expect(response.length).toBe(37);
    return response.readInt32BE(4);
  }

  /** The next frame, or `undefined` after `timeoutMs` or when the connection closed. */
  async nextFrame(timeoutMs: number): Promise<Buffer>;
  async nextFrame(timeoutMs: number, optional: true): Promise<Buffer | undefined>;
  async nextFrame(timeoutMs: number, optional = false): Promise<Buffer | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (this.frames.length === 0 && !this.closed && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deadline - Date.now());
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    const frame = this.frames.shift();
    if (!frame && !optional)
      throw new Error(`no frame within ${timeoutMs} ms (closed: ${this.closed})`);
    return frame;
  }

  /** Error code of the reply to a request (ReplyHeader: xid, zxid, err). */
  async request(frame: Buffer): Promise<number> {
    this.socket.write(frame);
    const reply = await this.nextFrame(5000);
    return reply.readInt32BE(12);
  }

  close(): void {
    this.socket.destroy();
  }
}

async function createNode(server: { port: number }, path: string): Promise<number> {
  const conn = await RawConnection.open(server.port);
  try {
    await conn.handshake();
    return await conn.request(createRequest(1, path));
  } finally {
    conn.close();
  }
}

async function znodeCount(server: ZkServer): Promise<number> {
  return Number(parseMntr(await server.fourLetter('mntr')).zk_znode_count);
}

const NODEEXISTS = -110;

/** `scheme:user` entries of a WhoAmIResponse (ReplyHeader, then vector<ClientInfo>). */
function parseWhoAmI(frame: Buffer): string[] {
  expect(frame.readInt32BE(12)).toBe(0); // err
  let offset = 16;
  const ustring = () => {
    const length = frame.readInt32BE(offset);
    const value = frame.toString('utf8', offset + 4, offset + 4 + length);
    offset += 4 + length;
    return value;
  };
  const count = frame.readInt32BE(offset);
  offset += 4;
  return Array.from({ length: count }, () => `${ustring()}:${ustring()}`);
}

const hasOpenssl = (process.env.PATH ?? '')
  .split(delimiter)
  .some((dir) => dir !== '' && existsSync(join(dir, 'openssl')));

// --- standalone -----------------------------------------------------------------------------------

describe('standalone server', () => {
  let server: ZkServer;
  beforeAll(async () => {
    server = await startStandalone();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('serves on 127.0.0.1 and answers four-letter words', async () => {
    expect(server.connectString).toBe(`127.0.0.1:${server.port}`);
    expect(await fourLetterWord(server.host, server.port, 'ruok')).toBe('imok');
    expect(parseMode(await server.fourLetter('srvr'))).toBe('standalone');
    const conf = await server.fourLetter('conf');
    expect(conf).toMatch(/tickTime=200/);
    expect(conf).toMatch(/maxClientCnxns=0/);
  });

  it('lets sessions ask for short timeouts', async () => {
    const conn = await RawConnection.open(server.port);
    conn.socket.write(connectRequest(1000));
    const response = await conn.nextFrame(5000);
    conn.close();
    expect(response.readInt32BE(4)).toBe(1000);
  });

  it('keeps its data across stop/start and kill/start', async () => {
    const before = await znodeCount(server);
    const first = uniquePath('stop');
    expect(await createNode(server, first)).toBe(0);
    expect(await znodeCount(server)).toBe(before + 1);

    await server.stop();
    expect(server.running).toBe(false);
    await expect(fourLetterWord(server.host, server.port, 'ruok', 1000)).rejects.toThrow();
    await server.start();
    expect(await znodeCount(server)).toBe(before + 1);
    expect(await createNode(server, first)).toBe(NODEEXISTS);

    const second = uniquePath('kill');
    expect(await createNode(server, second)).toBe(0);
    await server.kill();
    await server.start();
    expect(await znodeCount(server)).toBe(before + 2);
    expect(await createNode(server, second)).toBe(NODEEXISTS);
    expect(server.logTail(5).length).toBeGreaterThan(0);
  });

  it('fourLetterWord fails fast on a closed port', async () => {
    const port = await freePort();
    await expect(fourLetterWord('127.0.0.1', port, 'ruok', 1000)).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe('server sources', () => {
  it('requireManaged() and start*() refuse clearly when ZOOKEEPER_CONNECT selects an external ensemble', async () => {
    const saved = process.env.ZOOKEEPER_CONNECT;
    process.env.ZOOKEEPER_CONNECT = '127.0.0.1:1';
    try {
      expect(() => requireManaged('the kill test')).toThrow(HarnessUnavailableError);
      expect(() => requireManaged('the kill test')).toThrow(
        /the kill test needs a ZooKeeper the harness manages.*ZOOKEEPER_CONNECT=127\.0\.0\.1:1/,
      );
      await expect(startStandalone()).rejects.toThrow(
        /startStandalone\(\) needs a ZooKeeper the harness manages/,
      );
      await expect(startEnsemble()).rejects.toThrow(HarnessUnavailableError);
    } finally {
      if (saved === undefined) delete process.env.ZOOKEEPER_CONNECT;
      else process.env.ZOOKEEPER_CONNECT = saved;
    }
    expect(() => requireManaged()).not.toThrow();
  });

  it('explains a ZOOKEEPER_HOME without jars', () => {
    const saved = process.env.ZOOKEEPER_HOME;
    process.env.ZOOKEEPER_HOME = '/nonexistent/zookeeper';
    try {
      expect(findLocalInstall()).toBe(
        'ZOOKEEPER_HOME=/nonexistent/zookeeper has no lib/*.jar (expected a binary release)',
      );
    } finally {
      if (saved === undefined) delete process.env.ZOOKEEPER_HOME;
      else process.env.ZOOKEEPER_HOME = saved;
    }
  });
});

describe('shared server and helpers', () => {
  it('sharedServer() names the run-wide server', async () => {
    const shared = sharedServer();
    const [host, port] = shared.connectString.split(',')[0]!.split(':');
    expect(await fourLetterWord(host!, Number(port), 'ruok')).toBe('imok');
  });

  it('uniquePath() gives distinct absolute paths', () => {
    const a = uniquePath();
    const b = uniquePath('lock');
    expect(a).toMatch(/^\/test-[0-9a-f]{12}$/);
    expect(b).toMatch(/^\/lock-[0-9a-f]{12}$/);
    expect(a).not.toBe(uniquePath());
  });
});

describe('standalone with reconfig', () => {
  it('runs as a one-member quorum with a dynamic config and a super user', async () => {
    await using server = await startStandalone({ reconfigEnabled: true });
    expect(await server.mode()).toBe('leader');
    expect(server.superAuth).toBe('super:zkts-test');
    const conf = await server.fourLetter('conf');
    expect(conf).toMatch(/membership:/);
    expect(conf).toContain(`server.1=127.0.0.1:`);
    expect(conf).toContain(`;127.0.0.1:${server.port}`);
  });
});

// --- TLS ------------------------------------------------------------------------------------------

describe('TLS server', () => {
  let server: ZkServer;
  beforeAll(async () => {
    server = await startStandalone({ tls: true, tlsClientAuth: 'want' });
  });
  afterAll(async () => {
    await server?.close();
  });

  async function tlsHandshake(
    withClientCert: boolean,
  ): Promise<{ authorized: boolean; response: Buffer; identities: string[] }> {
    const tls = server.tls!;
    const socket = tlsConnect({
      host: '127.0.0.1',
      port: server.tlsPort!,
      ca: tls.ca,
      ...(withClientCert ? { cert: tls.cert!, key: tls.key! } : {}),
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('secureConnect', resolve);
      socket.once('error', reject);
    });
    const conn = new RawConnection(socket);
    socket.write(connectRequest());
    const response = await conn.nextFrame(5000);
    // whoAmI (op 107, header only) lists the session's auth ids: x509 comes from the client cert.
    socket.write(Buffer.from('00000008000000010000006b', 'hex'));
    const identities = parseWhoAmI(await conn.nextFrame(5000));
    const authorized = socket.authorized;
    conn.close();
    return { authorized, response, identities };
  }

  it('accepts a verified TLS handshake and a ConnectRequest', async () => {
    expect(server.tlsPort).toBeDefined();
    expect(server.tlsConnectString).toBe(`127.0.0.1:${server.tlsPort}`);
    expect(server.tls?.ca).toMatch(/BEGIN CERTIFICATE/);
    const { authorized, response, identities } = await tlsHandshake(false);
    expect(authorized).toBe(true);
    expect(identities).toEqual(['ip:127.0.0.1']);
    expect(response.length).toBe(37); // 41 bytes on the wire
    expect(response.readInt32BE(4)).toBeGreaterThan(0); // negotiated timeout
    expect(response.readInt32BE(16)).toBe(16); // password length
  });

  it('offers a client certificate when clientAuth is want (needs openssl)', async () => {
    if (!hasOpenssl) {
      // Without openssl `want` degrades to no client certificate rather than failing the server.
      expect(server.tls?.cert).toBeUndefined();
      return;
    }
    expect(server.tls?.cert).toMatch(/BEGIN CERTIFICATE/);
    expect(server.tls?.key).toMatch(/PRIVATE KEY/);
    expect(server.tls?.clientDn).toBe('CN=zkts-client,O=zookeeper-ts');
    const { authorized, response, identities } = await tlsHandshake(true);
    expect(authorized).toBe(true);
    expect(response.readInt32BE(4)).toBeGreaterThan(0);
    expect(identities).toContain('x509:CN=zkts-client,O=zookeeper-ts');
  });

  it('still serves plaintext on the client port', async () => {
    expect(await server.fourLetter('ruok')).toBe('imok');
  });
});

// --- ensemble -------------------------------------------------------------------------------------

describe('three-node ensemble', () => {
  let ensemble: ZkEnsemble;
  beforeAll(async () => {
    ensemble = await startEnsemble({ readOnlyMode: true });
  });
  afterAll(async () => {
    await ensemble?.close();
  });

  it('forms a quorum with one leader and two followers', async () => {
    expect(ensemble.members).toHaveLength(3);
    expect(ensemble.connectString.split(',')).toEqual(ensemble.members.map((m) => m.connectString));
    const modes = await Promise.all(ensemble.members.map((_, i) => ensemble.mode(i)));
    expect(modes.filter((m) => m === 'leader')).toHaveLength(1);
    expect(modes.filter((m) => m === 'follower')).toHaveLength(2);
  });

  it('leader() finds the member reporting Mode: leader', async () => {
    const leader = await ensemble.leader();
    expect(parseMode(await ensemble.fourLetter(leader, 'srvr'))).toBe('leader');
    const followers = await ensemble.followers();
    expect(followers.sort()).toEqual([0, 1, 2].filter((i) => i !== leader));
    const mntr = parseMntr(await ensemble.fourLetter(leader, 'mntr'));
    expect(mntr.zk_synced_followers).toBe('2');
  });

  it('replicates writes to every member', async () => {
    const leader = await ensemble.leader();
    const follower = (await ensemble.followers())[0]!;
    expect(await createNode(ensemble.members[follower]!, uniquePath('replicated'))).toBe(0);
    const counts = async () =>
      Promise.all(
        ensemble.members.map(async (m) => parseMntr(await m.fourLetter('mntr')).zk_znode_count),
      );
    const leaderCount = parseMntr(await ensemble.fourLetter(leader, 'mntr')).zk_znode_count;
    await waitFor(
      async () => ((await counts()).every((c) => c === leaderCount) ? true : undefined),
      {
        what: 'equal znode counts',
        timeoutMs: 5000,
      },
    );
  });

  it('elects a new leader when the leader is killed, and takes the old one back', async () => {
    const old = await ensemble.leader();
    await ensemble.kill(old);
    expect(ensemble.members[old]!.running).toBe(false);
    await ensemble.waitForQuorum();
    const next = await ensemble.leader();
    expect(next).not.toBe(old);
    await ensemble.start(old);
    await ensemble.waitForQuorum();
    expect(await ensemble.mode(old)).toBe('follower');
    expect(await ensemble.leader()).toBe(next);
  });

  it('serves read-only from a member cut off from its quorum', async () => {
    const leader = await ensemble.leader();
    const survivor = (leader + 1) % 3;
    const others = [0, 1, 2].filter((i) => i !== survivor);
    expect(await ensemble.fourLetter(survivor, 'isro')).toBe('rw');
    await Promise.all(others.map((i) => ensemble.stop(i)));
    await waitFor(
      async () => ((await ensemble.fourLetter(survivor, 'isro')) === 'ro' ? true : undefined),
      {
        what: 'isro = ro',
        timeoutMs: 20_000,
        intervalMs: 200,
      },
    );
    expect(await ensemble.mode(survivor)).toBe('read-only');
    await Promise.all(others.map((i) => ensemble.start(i)));
    await ensemble.waitForQuorum();
    expect(await ensemble.fourLetter(survivor, 'isro')).toBe('rw');
  });
});

// --- TCP proxy ------------------------------------------------------------------------------------

describe('TcpProxy', () => {
  let target: { port: number };
  let proxy: TcpProxy;
  beforeAll(async () => {
    const [, port] = sharedServer().connectString.split(',')[0]!.split(':');
    target = { port: Number(port) };
    proxy = await TcpProxy.start('127.0.0.1', target.port);
  });
  afterAll(async () => {
    await proxy?.close();
  });

  /** Waits until the proxy forgot every connection (closes propagate asynchronously). */
  async function idle(): Promise<void> {
    await waitFor(async () => (proxy.connections() === 0 ? true : undefined), {
      what: 'the proxy to have no connections',
      timeoutMs: 2000,
    });
  }

  /** A session through the proxy whose handshake already went through. */
  async function session(): Promise<RawConnection> {
    const conn = await RawConnection.open(proxy.port);
    expect(await conn.handshake()).toBeGreaterThan(0);
    return conn;
  }

  it('passes bytes both ways and counts them', async () => {
    const before = proxy.bytes();
    expect(await fourLetterWord('127.0.0.1', proxy.port, 'ruok')).toBe('imok');
    const after = proxy.bytes();
    expect(after.up - before.up).toBe(4);
    expect(after.down - before.down).toBe(4);
    await idle();
  });

  it('carries a session: ConnectRequest, ConnectResponse and pings', async () => {
    await idle();
    const conn = await session();
    expect(proxy.connections()).toBe(1);
    conn.socket.write(PING);
    const reply = await conn.nextFrame(2000);
    expect(reply.readInt32BE(0)).toBe(-2);
    conn.close();
  });

  it('freeze() swallows bytes without closing; thaw() resets connections that lost bytes', async () => {
    const conn = await session();
    expect(proxy.connections()).toBeGreaterThanOrEqual(1);
    proxy.freeze();
    const before = proxy.bytes();
    conn.socket.write(PING);
    expect(await conn.nextFrame(600, true)).toBeUndefined();
    expect(conn.closed).toBe(false);
    const after = proxy.bytes();
    expect(after.up).toBe(before.up);
    expect(after.down).toBe(before.down);
    expect(after.dropped - before.dropped).toBe(PING.length);
    proxy.thaw();
    expect(await conn.nextFrame(2000, true)).toBeUndefined();
    expect(conn.closed).toBe(true);
  });

  it("freeze('hold') delivers the held bytes on thaw()", async () => {
    const conn = await session();
    proxy.freeze('hold');
    conn.socket.write(PING);
    expect(await conn.nextFrame(400, true)).toBeUndefined();
    proxy.thaw();
    const reply = await conn.nextFrame(2000);
    expect(reply.readInt32BE(0)).toBe(-2);
    expect(conn.closed).toBe(false);
    conn.close();
  });

  it('cut() closes every current connection', async () => {
    await idle();
    const a = await session();
    const b = await session();
    expect(proxy.connections()).toBe(2);
    proxy.cut();
    await a.nextFrame(2000, true);
    await b.nextFrame(2000, true);
    expect(a.closed && b.closed).toBe(true);
    expect(proxy.connections()).toBe(0);
    // The proxy itself keeps working.
    expect(await fourLetterWord('127.0.0.1', proxy.port, 'ruok')).toBe('imok');
  });

  it("cut('fin') closes connections cleanly", async () => {
    await idle();
    const conn = await session();
    let sawEnd = false;
    conn.socket.once('end', () => {
      sawEnd = true;
    });
    proxy.cut('fin');
    expect(await conn.nextFrame(2000, true)).toBeUndefined();
    expect(conn.closed).toBe(true);
    expect(sawEnd).toBe(true);
  });

  it('delay() delays each direction, keeping order', async () => {
    const conn = await session();
    proxy.delay(150);
    try {
      const started = Date.now();
      conn.socket.write(PING);
      conn.socket.write(createRequest(7, uniquePath('delayed')));
      const ping = await conn.nextFrame(3000);
      const elapsed = Date.now() - started;
      const created = await conn.nextFrame(3000);
      expect(ping.readInt32BE(0)).toBe(-2);
      expect(created.readInt32BE(0)).toBe(7);
      expect(created.readInt32BE(12)).toBe(0);
      // 150 ms up plus 150 ms down; timers never fire early (allow 1 ms of clock rounding each way).
      expect(elapsed).toBeGreaterThanOrEqual(298);
    } finally {
      proxy.delay(0);
      conn.close();
    }
  });

  it('refuse() closes new connections at once, setTarget() redirects new ones', async () => {
    proxy.refuse(true);
    const refused = await fourLetterWord('127.0.0.1', proxy.port, 'ruok', 2000).catch(
      () => 'error',
    );
    expect(['', 'error']).toContain(refused);
    proxy.refuse(false);
    expect(await fourLetterWord('127.0.0.1', proxy.port, 'ruok')).toBe('imok');

    await using other = await startStandalone({ reconfigEnabled: true });
    proxy.setTarget('127.0.0.1', other.port);
    expect(parseMode(await fourLetterWord('127.0.0.1', proxy.port, 'srvr'))).toBe('leader');
    proxy.setTarget('127.0.0.1', target.port);
    expect(parseMode(await fourLetterWord('127.0.0.1', proxy.port, 'srvr'))).toBe('standalone');
  });
});

// Keep the test honest about leaks: everything above closed its servers.
describe('cleanup', () => {
  it('leaves no sockets of closed servers answering', async () => {
    const server = await startStandalone();
    const { port } = server;
    await server.close();
    await sleep(50);
    await expect(fourLetterWord('127.0.0.1', port, 'ruok', 1000)).rejects.toThrow();
  });
});
