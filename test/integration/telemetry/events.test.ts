// The library's diagnostics channels, subscribed through Node's own `node:diagnostics_channel`,
// against the real server: each event fires with the right fields in contention, timeout, loss by
// deletion, loss by suspension, expiry (and renewal), and reconnect to another ensemble member.
import diagnostics from 'node:diagnostics_channel';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  ChannelName,
  type Client,
  connect,
  type LockMessage,
  type RequestMessage,
  type SessionMessage,
  type WatchEventMessage,
} from '../../../src/index.js';
import { ExclusiveLock, LeaderLatch, Mutex, revoke, Semaphore } from '../../../src/locks/index.js';
import { sharedServer, startEnsemble, type ZkEnsemble } from '../../harness/index.js';
import { lockPath, newClient, proxiedClient, until } from '../locks/helpers.js';

/** Everything published on the session and lock channels while a test runs. */
const sessionEvents: SessionMessage[] = [];
const lockEvents: LockMessage[] = [];
const onSession = (m: unknown) => sessionEvents.push(m as SessionMessage);
const onLock = (m: unknown) => lockEvents.push(m as LockMessage);
diagnostics.subscribe(ChannelName.session, onSession);
diagnostics.subscribe(ChannelName.lock, onLock);

afterEach(() => {
  sessionEvents.length = 0;
  lockEvents.length = 0;
});
afterAll(() => {
  diagnostics.unsubscribe(ChannelName.session, onSession);
  diagnostics.unsubscribe(ChannelName.lock, onLock);
});

function locksAt(path: string): LockMessage[] {
  return lockEvents.filter((m) => m.lockPath === path);
}

describe('zookeeper-ts:request', () => {
  it('traces each request: op, the chroot-relative path, xid, server, result, bytes', async () => {
    const root = lockPath('req');
    const plain = await newClient();
    await plain.create2(root.slice(0, root.lastIndexOf('/')));
    await plain.create2(root);
    const zk = await newClient({}, `${sharedServer().connectString}${root}`);
    const seen: { event: string; message: RequestMessage }[] = [];
    const handlers = {
      start: (message: RequestMessage) => seen.push({ event: 'start', message: { ...message } }),
      asyncEnd: (message: RequestMessage) => seen.push({ event: 'asyncEnd', message }),
      error: (message: RequestMessage) => seen.push({ event: 'error', message }),
    };
    const channel = diagnostics.tracingChannel(ChannelName.request);
    channel.subscribe(handlers as never);
    try {
      await zk.create('/node', new Uint8Array(10));
      await expect(zk.getData('/missing')).rejects.toMatchObject({ code: 'NONODE' });
    } finally {
      channel.unsubscribe(handlers as never);
    }
    const mine = seen.filter((s) => s.message.sessionId === zk.sessionId);
    expect(mine.map((s) => `${s.event} ${s.message.op} ${s.message.path}`)).toEqual([
      'start create /node',
      'asyncEnd create /node',
      'start getData /missing',
      'error getData /missing',
      'asyncEnd getData /missing',
    ]);
    const create = mine[1]!.message;
    expect(create).toMatchObject({ server: zk.server, resultCode: 'OK' });
    expect(create.xid).toBeGreaterThan(0);
    expect(create.bytesSent).toBeGreaterThan(10);
    expect(create.bytesReceived).toBeGreaterThan(16);
    expect(create.duration).toBeGreaterThanOrEqual(0);
    expect(create.endTime).toBeGreaterThanOrEqual(create.startTime);
    const missing = mine[4]!.message;
    expect(missing.resultCode).toBe('NONODE');
    expect(missing.error).toMatchObject({ code: 'NONODE' });
  });
});

describe('zookeeper-ts:watch', () => {
  const watchEvents: WatchEventMessage[] = [];
  const onWatch = (m: unknown) => watchEvents.push(m as WatchEventMessage);

  it('one message per notification: the session, the chroot-relative path, its type, how many watchers it reached', async () => {
    const root = lockPath('watch');
    const plain = await newClient();
    await plain.create2(root.slice(0, root.lastIndexOf('/')));
    await plain.create2(root);
    await plain.create2(`${root}/n`);
    const zk = await newClient({}, `${sharedServer().connectString}${root}`);
    diagnostics.subscribe(ChannelName.watch, onWatch);
    try {
      const seen: string[] = [];
      const first = () => seen.push('first');
      // The same watcher twice is one watcher; a second function is another.
      await zk.getData('/n', { watch: first });
      await zk.exists('/n', { watch: first });
      await zk.getData('/n', { watch: () => seen.push('second') });
      await plain.setData(`${root}/n`, new Uint8Array([1]));
      await until(() => watchEvents.length >= 1 && seen.length >= 2, 'the data change event');
      // A child watch whose node the other client then deletes: NodeDeleted reaches it.
      await zk.getChildren('/n', { watch: () => seen.push('child') });
      await plain.delete(`${root}/n`);
      await until(() => watchEvents.length >= 2, 'the deletion event');
      const mine = watchEvents.filter((m) => m.sessionId === zk.sessionId);
      expect(mine).toEqual([
        {
          type: 'event',
          sessionId: zk.sessionId,
          eventType: 'NodeDataChanged',
          path: '/n',
          delivered: 2,
        },
        {
          type: 'event',
          sessionId: zk.sessionId,
          eventType: 'NodeDeleted',
          path: '/n',
          delivered: 1,
        },
      ]);
      expect(seen.sort()).toEqual(['child', 'first', 'second']);
    } finally {
      diagnostics.unsubscribe(ChannelName.watch, onWatch);
      await zk.close();
      await plain.close();
    }
  });

  it('a Mutex handoff between two sessions costs the waiter exactly one watch event, the holder none', async () => {
    const path = lockPath('watch-handoff');
    const [a, b] = [await newClient(), await newClient()];
    diagnostics.subscribe(ChannelName.watch, onWatch);
    try {
      const held = await new Mutex(a, path).acquire();
      // The waiter's watch is set once its getData of the holder's node has been answered.
      let watchSet = false;
      const requests = diagnostics.tracingChannel(ChannelName.request);
      const handlers = {
        asyncEnd: (m: RequestMessage) => {
          if (m.sessionId === b.sessionId && m.op === 'getData' && m.path === held.path) {
            watchSet = true;
          }
        },
      };
      requests.subscribe(handlers as never);
      const waiting = new Mutex(b, path).acquire();
      await until(() => watchSet, 'the waiter watching the holder').finally(() =>
        requests.unsubscribe(handlers as never),
      );
      await held.release();
      const next = await waiting;
      await next.release();
      expect(watchEvents.filter((m) => m.sessionId === a.sessionId)).toEqual([]);
      const waiter = watchEvents.filter((m) => m.sessionId === b.sessionId);
      expect(waiter.map((m) => `${m.eventType} ${m.path} ${m.delivered}`)).toEqual([
        `NodeDeleted ${held.path} 1`,
      ]);
    } finally {
      diagnostics.unsubscribe(ChannelName.watch, onWatch);
      await a.close();
      await b.close();
    }
  });
});

describe('zookeeper-ts:lock', () => {
  it('contention: the waiter is granted at position 1 after waiting; the holder reports its hold', async () => {
    const path = lockPath();
    const [a, b] = [await newClient(), await newClient()];
    const held = await new Mutex(a, path).acquire();
    const waiting = new Mutex(b, path).acquire({ timeout: 10_000 });
    await until(async () => (await a.getChildren(path)).length === 2, 'the waiter queued');
    await new Promise((r) => setTimeout(r, 50));
    await held.release();
    const second = await waiting;
    await second.release();
    const events = locksAt(path);
    expect(events.map((m) => m.type)).toEqual([
      'acquire-start',
      'granted',
      'acquire-start',
      'released',
      'granted',
      'released',
    ]);
    const [start1, grant1, start2, release1, grant2] = events as [
      LockMessage & { type: 'acquire-start' },
      LockMessage & { type: 'granted' },
      LockMessage & { type: 'acquire-start' },
      LockMessage & { type: 'released' },
      LockMessage & { type: 'granted' },
    ];
    expect(start1).toMatchObject({ kind: 'lock-', sessionId: a.sessionId });
    expect(grant1).toMatchObject({ acquireId: start1.acquireId, queuePosition: 0, waited: false });
    expect(grant1.node).toBe(held.path);
    expect(grant2).toMatchObject({ acquireId: start2.acquireId, queuePosition: 1, waited: true });
    expect(grant2.waitTime).toBeGreaterThanOrEqual(50);
    expect(release1).toMatchObject({ node: held.path, afterLoss: false });
    expect(release1.holdTime).toBeGreaterThanOrEqual(50);
  });

  it('a Semaphore and an ExclusiveLock report their acquires too (start, then granted or timeout)', async () => {
    const [zk, other] = [await newClient(), await newClient()];
    const semPath = lockPath('sem');
    const exPath = lockPath('ex');
    const lease = await new Semaphore(zk, semPath, { maxLeases: 1 }).acquire();
    await expect(
      new Semaphore(other, semPath, { maxLeases: 1 }).acquire({ timeout: 200 }),
    ).rejects.toMatchObject({
      name: 'LockTimeoutError',
    });
    const held = await new ExclusiveLock(zk, exPath).acquire();
    await until(() => locksAt(semPath).filter((m) => m.type === 'timeout').length === 1, 'timeout');
    expect(locksAt(semPath).map((m) => m.type)).toEqual(
      expect.arrayContaining(['acquire-start', 'granted', 'timeout']),
    );
    expect(
      locksAt(exPath)
        .map((m) => m.type)
        .slice(0, 2),
    ).toEqual(['acquire-start', 'granted']);
    await lease.release();
    await held.release();
  });

  it('timeout: the acquire ends as timeout after its wait, at the position it entered', async () => {
    const path = lockPath();
    const [a, b] = [await newClient(), await newClient()];
    const held = await new Mutex(a, path).acquire();
    await expect(new Mutex(b, path).acquire({ timeout: 300 })).rejects.toMatchObject({
      name: 'LockTimeoutError',
    });
    await held.release();
    const timeout = locksAt(path).find((m) => m.type === 'timeout');
    expect(timeout).toMatchObject({ queuePosition: 1, waited: true, node: undefined });
    expect((timeout as { waitTime: number }).waitTime).toBeGreaterThanOrEqual(290);
    expect((timeout as { error: unknown }).error).toMatchObject({ name: 'LockTimeoutError' });
  });

  it('an abort by the caller ends as aborted', async () => {
    const path = lockPath();
    const [a, b] = [await newClient(), await newClient()];
    const held = await new Mutex(a, path).acquire();
    const controller = new AbortController();
    const waiting = new Mutex(b, path).acquire({ signal: controller.signal });
    await until(async () => (await a.getChildren(path)).length === 2, 'the waiter queued');
    controller.abort(new Error('caller gave up'));
    await expect(waiting).rejects.toThrow('caller gave up');
    await held.release();
    expect(locksAt(path).filter((m) => m.type === 'aborted')).toHaveLength(1);
  });

  it('loss by deletion: lost with reason deleted and its hold time; the release after says so', async () => {
    const path = lockPath();
    const [a, b] = [await newClient(), await newClient()];
    const held = await new Mutex(a, path).acquire();
    const signal = held.signal; // arms the node watch
    await b.delete(held.path);
    await until(() => signal.aborted, 'the loss');
    await held.release();
    const tail = locksAt(path).slice(-2);
    expect(tail).toMatchObject([
      { type: 'lost', reason: 'deleted', node: held.path },
      { type: 'released', afterLoss: true },
    ]);
  });

  it('loss by suspension: lost with reason suspended; the session reports the suspension with its cause', async () => {
    const path = lockPath();
    const { proxy, client: zk } = await proxiedClient({ sessionTimeout: 10_000 });
    const held = await new Mutex(zk, path, { lossPolicy: 'suspended' }).acquire();
    proxy.cut('rst');
    await until(() => held.signal.aborted, 'the loss');
    expect(locksAt(path).find((m) => m.type === 'lost')).toMatchObject({
      reason: 'suspended',
      node: held.path,
    });
    const suspended = sessionEvents.find(
      (m) => m.type === 'state' && m.state === 'suspended' && m.sessionId === zk.sessionId,
    );
    expect(suspended).toMatchObject({ previous: 'connected', server: proxy.connectString });
    expect((suspended as { cause?: Error }).cause).toBeInstanceOf(Error);
    // Back on the same session: a reconnect through the same server address.
    await until(() => zk.state === 'connected', 'the reconnect');
    const reconnect = sessionEvents.find(
      (m) => m.type === 'connect' && m.reconnect && m.sessionId === zk.sessionId,
    );
    expect(reconnect).toMatchObject({ server: proxy.connectString, readOnly: false });
    expect((reconnect as { duration: number }).duration).toBeGreaterThanOrEqual(0);
    await held.release();
  });

  it('expiry: the state change carries SESSIONEXPIRED, a renewal names both sessions, the held lock is lost as expired', async () => {
    const path = lockPath();
    const { proxy, client: zk } = await proxiedClient({ sessionTimeout: 2_000 });
    const held = await new Mutex(zk, path, { lossPolicy: 'expired' }).acquire();
    const oldId = zk.sessionId;
    proxy.freeze('drop');
    await until(() => held.signal.aborted, 'the loss', 15_000);
    proxy.thaw();
    proxy.cut();
    await until(() => zk.state === 'connected' && zk.sessionId !== oldId, 'renewal', 15_000);
    const expired = sessionEvents.find((m) => m.type === 'state' && m.state === 'expired');
    expect(expired).toMatchObject({ sessionId: oldId });
    expect((expired as { cause?: unknown }).cause).toMatchObject({ code: 'SESSIONEXPIRED' });
    expect(sessionEvents.find((m) => m.type === 'renewed')).toEqual({
      type: 'renewed',
      previousSessionId: oldId,
      sessionId: zk.sessionId,
    });
    expect(locksAt(path).find((m) => m.type === 'lost')).toMatchObject({
      reason: 'expired',
      node: held.path,
    });
    await held.release();
  }, 30_000);

  it('elections: leadership gained, lost with its reason when the node is deleted, gained again', async () => {
    const path = lockPath('election');
    const [a, b] = [await newClient(), await newClient()];
    const latch = new LeaderLatch(a, path);
    latch.start();
    try {
      const first = await latch.leadership({ timeout: 10_000 });
      await b.delete(first.path);
      await until(() => first.signal.aborted, 'the term to end');
      await until(
        () => locksAt(path).filter((m) => m.type === 'leader-gained').length === 2,
        'leadership again',
      );
      expect(locksAt(path).map((m) => m.type)).toEqual(
        expect.arrayContaining(['leader-gained', 'lost', 'leader-lost']),
      );
      expect(locksAt(path).find((m) => m.type === 'leader-lost')).toMatchObject({
        node: first.path,
        reason: 'deleted',
      });
    } finally {
      await latch.close();
    }
  });

  it('revocation: the holder of a revocable lease hears the request', async () => {
    const path = lockPath();
    const [a, b] = [await newClient(), await newClient()];
    const lease = await new Mutex(a, path).acquire({ revocable: true });
    await revoke(b, path);
    await until(() => lease.revocation.aborted, 'the revocation request');
    await lease.release();
    expect(locksAt(path).find((m) => m.type === 'revocation-requested')).toEqual({
      type: 'revocation-requested',
      lockPath: path,
      node: lease.path,
      reason: undefined,
    });
  });

  it('auth results: an accepted digest is reported ok', async () => {
    const zk = await newClient();
    await zk.addAuth('digest', new TextEncoder().encode('user:secret'));
    expect(sessionEvents).toContainEqual({
      type: 'auth',
      scheme: 'digest',
      ok: true,
      code: undefined,
    });
  });
});

describe('zookeeper-ts:session on a 3-member ensemble', () => {
  let ensemble: ZkEnsemble | undefined;
  const clients: Client[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await ensemble?.close();
  });

  it('a reconnect to another member names the new server and the time it took', async () => {
    ensemble = await startEnsemble({ size: 3 });
    const zk = await connect(ensemble.connectString, {
      sessionTimeout: 8_000,
      connectTimeout: 15_000,
    });
    clients.push(zk);
    const first = zk.server;
    const index = ensemble.members.findIndex((m) => m.connectString === first);
    await ensemble.stop(index);
    await until(() => zk.state === 'connected' && zk.server !== first, 'failover', 20_000);
    const reconnect = sessionEvents.find(
      (m) => m.type === 'connect' && m.reconnect && m.sessionId === zk.sessionId,
    );
    expect(reconnect).toMatchObject({ server: zk.server, readOnly: false });
    expect(reconnect && 'duration' in reconnect && reconnect.duration).toBeGreaterThan(0);
    const suspended = sessionEvents.find((m) => m.type === 'state' && m.state === 'suspended');
    expect(suspended).toMatchObject({ server: first, sessionId: zk.sessionId });
  }, 120_000);
});
