// zookeeper-ts/testing's in-process server: reached over TCP and in memory, and each fault
// control doing what it says, seen through a real Client. Every wait is on an event (a state
// change, a reply), bounded by the test's timeout.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { CreateMode } from '../../../src/client/types.js';
import type { SessionState } from '../../../src/session/types.js';
import { manualClock, startServer, type TestServer } from '../../../src/testing/index.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
  vi.restoreAllMocks();
});

// The client pauses a random 0-1 s before it dials again after a dropped link (and half of up
// to 1 s after a round of refusals): that pacing is the session's, pinned in its own tests. Here
// it is drawn as 0, so that each fault's recovery shows without a random wait.
beforeEach(() => {
  vi.spyOn(Math, 'random').mockReturnValue(0);
});

/**
 * A client that will be left without a server (closed, partitioned): its close() waits half the
 * session timeout for a server to acknowledge it, so its session is short (the server's tickTime
 * must allow it: at least two ticks).
 */
const STRANDED = { sessionTimeout: 800 };

async function server(options: Parameters<typeof startServer>[0] = {}): Promise<TestServer> {
  const s = await startServer(options);
  open.push(s);
  return s;
}

async function connect(
  s: TestServer,
  options: Parameters<typeof Client.connect>[1] = {},
  connectString = s.connectString,
): Promise<Client> {
  const client = await Client.connect(connectString, { sessionTimeout: 4000, ...options });
  open.push(client);
  return client;
}

/** Resolves with the first state of `client` that `want` accepts (including the current one). */
function reaches(client: Client, want: (state: SessionState) => boolean): Promise<SessionState> {
  return new Promise((resolve) => {
    if (want(client.state)) {
      resolve(client.state);
      return;
    }
    const off = client.on('state', (state) => {
      if (want(state)) {
        off();
        resolve(state);
      }
    });
  });
}

describe('startServer', () => {
  it('serves a client over TCP on a loopback port and one over the in-memory transport, on the same tree', async () => {
    const s = await server();
    expect(s.connectString).toMatch(/^127\.0\.0\.1:\d+$/);
    const tcp = await connect(s);
    const memory = await connect(s, { transport: s.transport });
    await tcp.create('/shared', 'from tcp');
    const { data, stat } = await memory.getData('/shared');
    expect(new TextDecoder().decode(data)).toBe('from tcp');
    expect(stat.version).toBe(0);
    let onChanged!: (event: unknown) => void;
    const changed = new Promise((resolve) => {
      onChanged = resolve;
    });
    await memory.exists('/shared', { watch: (event) => onChanged(event) });
    await tcp.setData('/shared', 'again');
    expect(await changed).toMatchObject({ type: 'NodeDataChanged', path: '/shared' });
  });

  it('listen: false serves the in-memory transport only, under member names', async () => {
    const s = await server({ listen: false });
    expect(s.connectString).toBe('zk1:2181');
    const client = await connect(s, { transport: s.transport });
    expect(await client.getChildren('/')).toEqual(['zookeeper']);
  });

  it('rejects bad options with a typed error', async () => {
    await expect(startServer({ members: 0 })).rejects.toMatchObject({ code: 'BADARGUMENTS' });
    await expect(startServer({ tickTime: 1.5 })).rejects.toMatchObject({ code: 'BADARGUMENTS' });
  });

  it('close() releases the ports and ends the clients; it is idempotent and async-disposable', async () => {
    const s = await startServer({ tickTime: 200 });
    const client = await connect(s, STRANDED);
    const lost = reaches(client, (state) => state === 'suspended');
    await s[Symbol.asyncDispose]();
    await s.close();
    await lost;
    // The port is free again: a new server can listen on it.
    const port = Number(s.connectString.split(':')[1]);
    const again = await server({ port });
    expect(again.connectString).toBe(`127.0.0.1:${port}`);
  });
});

describe('fault controls', () => {
  it('expireSession deletes the ephemerals, and the client learns its session expired', async () => {
    const s = await server();
    const watcher = await connect(s);
    const victim = await connect(s, { renewSession: false });
    await victim.create('/eph', '', { mode: CreateMode.EPHEMERAL });
    let onDeleted!: (event: unknown) => void;
    const deleted = new Promise((resolve) => {
      onDeleted = resolve;
    });
    // The watch is set (its reply is in) before the session is expired.
    expect(await watcher.exists('/eph', { watch: (event) => onDeleted(event) })).not.toBeNull();
    const expired = reaches(victim, (state) => state === 'expired');
    expect(await s.expireSession(victim)).toBe(true);
    expect(await deleted).toMatchObject({ type: 'NodeDeleted', path: '/eph' });
    expect(await expired).toBe('expired');
    expect(await watcher.exists('/eph')).toBeNull();
    expect(await s.expireSession(victim)).toBe(false);
  });

  it('expireSessions ends every session of a named in-memory client', async () => {
    const s = await server();
    const a = await connect(s, { transport: s.transportFor('worker'), renewSession: false });
    const b = await connect(s, { transport: s.transportFor('worker'), renewSession: false });
    const other = await connect(s, { transport: s.transportFor('other') });
    const ends = [a, b].map((c) => reaches(c, (state) => state === 'expired'));
    expect(await s.expireSessions('worker')).toBe(2);
    await Promise.all(ends);
    expect(other.state).toBe('connected');
  });

  it('dropConnections: the client reconnects to the same session', async () => {
    const s = await server();
    const client = await connect(s);
    const id = client.sessionId;
    const suspended = reaches(client, (state) => state === 'suspended');
    expect(s.dropConnections(client)).toBe(1);
    await suspended;
    await reaches(client, (state) => state === 'connected');
    expect(client.sessionId).toBe(id);
    expect(await client.exists('/')).not.toBeNull();
  });

  it('blackHole holds the bytes until it ends: nothing is lost, the reply is late', async () => {
    const s = await server({ clock: 'real' });
    const client = await connect(s);
    s.blackHole(client, 300);
    const started = performance.now();
    await client.create('/late', 'x');
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    expect((await client.getData('/late')).stat.version).toBe(0);
  });

  it('delayReplies delays replies and events until cleared', async () => {
    const s = await server();
    const client = await connect(s, { transport: s.transportFor('slow') });
    s.delayReplies(200, { client: 'slow' });
    let started = performance.now();
    await client.exists('/');
    expect(performance.now() - started).toBeGreaterThanOrEqual(150);
    s.delayReplies(0, { client: 'slow' });
    started = performance.now();
    await client.exists('/');
    expect(performance.now() - started).toBeLessThan(150);
  });

  it('loseNextReply applies the write and loses its reply: the client sees a connection loss', async () => {
    const s = await server();
    const client = await connect(s);
    s.loseNextReply(client);
    await expect(client.create('/applied', 'x')).rejects.toMatchObject({ code: 'CONNECTIONLOSS' });
    await reaches(client, (state) => state === 'connected');
    expect(await client.exists('/applied')).not.toBeNull();
  });

  it('crash and restart a member of three: its clients move on, the ensemble keeps serving', async () => {
    const s = await server({ members: 3, tickTime: 100 });
    expect(s.members.map((m) => m.leader)).toEqual([true, false, false]);
    const first = s.members[0]!.address;
    const pinned = await connect(s, {}, first);
    const other = await connect(s, {}, s.members[1]!.address);
    await pinned.create('/before', '');
    const lost = reaches(pinned, (state) => state === 'suspended');
    await s.crash(1);
    await lost;
    expect(s.members[0]!.up).toBe(false);
    // The leader crashed: after the election another member leads and serves writes.
    await reaches(other, (state) => state === 'connected');
    await other.create('/after', '');
    expect(s.members.find((m) => m.leader)?.id).not.toBe(1);
    await s.restart(1);
    await reaches(pinned, (state) => state === 'connected');
    expect(await pinned.exists('/after')).not.toBeNull();
  });

  it('partition cuts a member off: its client is disconnected while the majority serves', async () => {
    const s = await server({ members: 3, tickTime: 200 });
    const onThird = await connect(s, STRANDED, s.members[2]!.address);
    const onLeader = await connect(s, {}, s.members[0]!.address);
    const lost = reaches(onThird, (state) => state === 'suspended');
    s.partition(3, 60_000);
    await lost;
    await onLeader.create('/majority', '');
    expect(s.members[2]!.serving).toBe(false);
  });

  it('lagFollower: a read on the lagging follower is stale until sync', async () => {
    const s = await server({ members: 3, tickTime: 200 });
    const writer = await connect(s, {}, s.members[0]!.address);
    const reader = await connect(s, {}, s.members[1]!.address);
    s.lagFollower(2, 500);
    await writer.create('/fresh', '');
    expect(await reader.exists('/fresh')).toBeNull();
    await reader.sync('/fresh');
    expect(await reader.exists('/fresh')).not.toBeNull();
    // 0 clears the lag: the reader's closeSession is not held half a second.
    s.lagFollower(2, 0);
  });

  it('a manual clock: no session expires until the test advances it past the timeout', async () => {
    const clock = manualClock();
    const s = await server({ clock, tickTime: 100 });
    const client = await connect(s, { sessionTimeout: 1000, renewSession: false });
    await client.create('/eph', '', { mode: CreateMode.EPHEMERAL });
    // The client goes silent (its link black-holed on the server's clock)...
    s.blackHole(client, 60_000);
    const expired = reaches(client, (state) => state === 'expired');
    // ...and nothing happens until the clock moves past the session timeout.
    await clock.advance(900);
    const probe = await connect(s);
    expect(await probe.exists('/eph')).not.toBeNull();
    await clock.advance(300);
    expect(await probe.exists('/eph')).toBeNull();
    s.dropConnections(client);
    await expired;
  });

  it('fault controls refuse bad arguments with typed errors', async () => {
    const s = await server();
    await expect(s.crash(2)).rejects.toMatchObject({ code: 'BADARGUMENTS' });
    expect(() => s.blackHole(undefined, -1)).toThrow(
      expect.objectContaining({ code: 'BADARGUMENTS' }),
    );
  });
});
