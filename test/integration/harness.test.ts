/**
 * Proves the real-ZooKeeper harness works, using only four-letter words and a few raw frames
 * (never src/, which the harness exists to test).
 */
import { existsSync } from 'node:fs';
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
  uniquePath,
  waitFor,
  type ZkEnsemble,
  type ZkServer,
} from '../harness/index.js';
import { findLocalInstall } from '../harness/install.js';
import {
  connectRequest,
  createNode,
  NODEEXISTS,
  parseWhoAmI,
  RawConnection,
  znodeCount,
} from './harness-wire.js';

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
