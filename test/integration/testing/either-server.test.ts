// One test file, two servers: the same tests run on the in-process model and on a real ZooKeeper
// (JVMs of the local install) through zookeeper-ts/testing's one handle, the real one chosen the
// way a user's suite chooses it, by ZKTS_TEST_SERVER=real. Every fault control a real server
// allows from outside is checked on both; the ones it does not allow are refused with a typed
// error. Waits are on events (state changes, replies), bounded by the test's timeout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { CreateMode } from '../../../src/client/types.js';
import { startServer, type TestServer } from '../../../src/testing/index.js';
import { requireManaged } from '../../harness/index.js';
import { stateReached } from '../../support/integration.js';

/** Resolves with the first state of `client` that `want` accepts (the current one included). */

describe.each(['model', 'real'] as const)('the %s server behind the one handle', (kind) => {
  let server: TestServer;
  const clients: Client[] = [];
  const connect = async (options: Parameters<typeof Client.connect>[1] = {}) => {
    const client = await Client.connect(server.connectString, { sessionTimeout: 4000, ...options });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    if (kind === 'real') requireManaged('the real-server handle');
    const saved = process.env.ZKTS_TEST_SERVER;
    // As a user's suite switches: the environment, not the test, says which server.
    process.env.ZKTS_TEST_SERVER = kind;
    try {
      server = await startServer({ tickTime: 500 });
    } finally {
      if (saved === undefined) delete process.env.ZKTS_TEST_SERVER;
      else process.env.ZKTS_TEST_SERVER = saved;
    }
  }, 90_000);
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await server?.close();
  });

  it('is the kind the environment asked for, on a loopback port and in memory, one tree', async () => {
    expect(server.kind).toBe(kind);
    expect(server.connectString).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(server.members).toMatchObject([{ id: 1, up: true, serving: true, leader: true }]);
    const tcp = await connect();
    const memory = await connect({ transport: server.transport });
    await tcp.create(`/${kind}-shared`, 'hello');
    const { data } = await memory.getData(`/${kind}-shared`);
    expect(new TextDecoder().decode(data)).toBe('hello');
  });

  it('expireSession ends the session: its ephemeral goes, the client learns it expired', async () => {
    const watcher = await connect();
    const victim = await connect({ renewSession: false });
    const path = `/${kind}-eph`;
    await victim.create(path, '', { mode: CreateMode.EPHEMERAL });
    let onDeleted!: (event: unknown) => void;
    const deleted = new Promise((resolve) => {
      onDeleted = resolve;
    });
    expect(await watcher.exists(path, { watch: (event) => onDeleted(event) })).not.toBeNull();
    const expired = stateReached(victim, (state) => state === 'expired');
    expect(await server.expireSession(victim)).toBe(true);
    expect(await deleted).toMatchObject({ type: 'NodeDeleted', path });
    expect(await expired).toBe('expired');
    expect(await server.expireSession(victim)).toBe(false);
  });

  it('expireSessions ends the sessions of a named in-memory client, and only those', async () => {
    const a = await connect({ transport: server.transportFor('worker'), renewSession: false });
    const other = await connect({ transport: server.transportFor('other') });
    const ended = stateReached(a, (state) => state === 'expired');
    expect(await server.expireSessions('worker')).toBe(1);
    await ended;
    expect(other.state).toBe('connected');
  });

  it('dropConnections: the client reconnects to the same session', async () => {
    const client = await connect();
    const id = client.sessionId;
    const lost = stateReached(client, (state) => state === 'suspended');
    expect(server.dropConnections(client)).toBe(1);
    await lost;
    await stateReached(client, (state) => state === 'connected');
    expect(client.sessionId).toBe(id);
  });

  it('loseNextReply: the write is applied, its caller sees a connection loss', async () => {
    const client = await connect();
    server.loseNextReply(client);
    const path = `/${kind}-lost-reply`;
    await expect(client.create(path, 'x')).rejects.toMatchObject({ code: 'CONNECTIONLOSS' });
    await stateReached(client, (state) => state === 'connected');
    expect(await client.exists(path)).not.toBeNull();
  });

  it('blackHole holds the bytes and delivers them late, none lost', async () => {
    const client = await connect();
    const started = performance.now();
    server.blackHole(client, 400);
    await client.create(`/${kind}-held`, 'x');
    expect(performance.now() - started).toBeGreaterThanOrEqual(350);
    expect(client.state).toBe('connected');
  });

  it('crash and restart: the member is down, then serves the client again', async () => {
    const client = await connect();
    const lost = stateReached(client, (state) => state === 'suspended');
    await server.crash(1);
    await lost;
    expect(server.members[0]).toMatchObject({ up: false, serving: false });
    await server.restart(1);
    expect(server.members[0]).toMatchObject({ up: true, serving: true });
    await stateReached(client, (state) => state === 'connected');
    await client.create(`/${kind}-after-restart`, '');
  }, 90_000);

  it('an ensemble of three: the leader crashes, another leads, the first rejoins as a follower', async () => {
    const saved = process.env.ZKTS_TEST_SERVER;
    process.env.ZKTS_TEST_SERVER = kind;
    await using ensemble = await startServer({ members: 3, tickTime: 500 }).finally(() => {
      if (saved === undefined) delete process.env.ZKTS_TEST_SERVER;
      else process.env.ZKTS_TEST_SERVER = saved;
    });
    expect(ensemble.connectString.split(',')).toHaveLength(3);
    expect(ensemble.members.filter((m) => m.leader)).toHaveLength(1);
    const client = await Client.connect(ensemble.connectString, { sessionTimeout: 4000 });
    try {
      await client.create('/before', '');
      const leader = ensemble.members.find((m) => m.leader)!.id;
      await ensemble.crash(leader);
      expect(ensemble.members.find((m) => m.id === leader)).toMatchObject({ up: false });
      // Members that lose their leader close their clients' connections: a write may meet one.
      for (;;) {
        const written = await client.setData('/before', 'after the crash').then(
          () => true,
          (error: { code?: string }) => {
            if (error.code !== 'CONNECTIONLOSS') throw error;
            return false;
          },
        );
        if (written) break;
        await stateReached(client, (state) => state === 'connected');
      }
      await ensemble.restart(leader);
      const rejoined = ensemble.members.find((m) => m.id === leader)!;
      expect(rejoined).toMatchObject({ up: true, serving: true, leader: false });
      expect(ensemble.members.filter((m) => m.leader)).toHaveLength(1);
    } finally {
      await client.close();
    }
  }, 120_000);
});

describe('what only the model can do', () => {
  it('a real server refuses partition and lagFollower with UNIMPLEMENTED', async () => {
    requireManaged('the real-server handle');
    await using server = await startServer({ kind: 'real', tickTime: 500, listen: false });
    expect(() => server.partition(1, 100)).toThrow(
      expect.objectContaining({ code: 'UNIMPLEMENTED' }),
    );
    expect(() => server.lagFollower(1, 100)).toThrow(
      expect.objectContaining({ code: 'UNIMPLEMENTED' }),
    );
  }, 90_000);
});
