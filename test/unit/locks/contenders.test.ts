// The contender logic of the public lock classes against a scripted client (scripted-client.ts):
// which node each contender waits on, what it does after a wake, a create whose reply was lost,
// and what is cleaned up. Real-server behaviour: test/integration/locks.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ZooKeeperError } from '../../../src/index.js';
import {
  LockTimeoutError,
  Mutex,
  ReadWriteLock,
  revoke,
  Semaphore,
} from '../../../src/locks/index.js';
import { type ScriptedClient, ScriptedServer } from './scripted-client.js';

// The clock is faked in every test: waits advance it a millisecond at a time, and the checks
// that something does NOT happen let a whole second pass at once (every follow-up of a step and
// any retry pause of 100-200 ms has run by then), however loaded the machine.
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Resolves once `condition` holds (checked after each faked millisecond, for five seconds). */
async function until(condition: () => boolean, what = 'condition'): Promise<void> {
  for (let i = 0; i < 5_000 && !condition(); i++) await vi.advanceTimersByTimeAsync(1);
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
}

/** A promise and whether it has settled. */
function track<T>(promise: Promise<T>): { promise: Promise<T>; settled: () => boolean } {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  return { promise, settled: () => done };
}

/** Lets every pending request, watch event and timer of the next faked second run. */
const settle = () => vi.advanceTimersByTimeAsync(1_000);

/** The children of `dir` as full paths, in sequence order. */
function queue(server: ScriptedServer, dir: string): string[] {
  return server
    .children(dir)
    .sort((a, b) => Number(a.slice(-10)) - Number(b.slice(-10)))
    .map((name) => `${dir}/${name}`);
}

/** The nodes `client` set a data watch on (waiting on a node), in order. */
const watched = (client: ScriptedClient) =>
  client.requests({ op: 'getData', watch: true }).map((r) => r.path);

/** A server with `n` sessions and the lock path created. */
async function setup(n: number, path = '/lock') {
  const server = new ScriptedServer();
  const clients = Array.from({ length: n }, () => server.connect());
  await clients[0]!.create2(path);
  return { server, clients };
}

describe('Mutex decisions (scripted client)', () => {
  it('the front of the queue holds; each waiter watches only its predecessor; a release wakes one', async () => {
    const { server, clients } = await setup(3);
    const [a, b, c] = clients as [ScriptedClient, ScriptedClient, ScriptedClient];
    const held = await new Mutex(a, '/lock').acquire();
    const bWait = track(new Mutex(b, '/lock').acquire());
    await until(() => watched(b).length === 1, 'b to watch');
    const cWait = track(new Mutex(c, '/lock').acquire());
    await until(() => watched(c).length === 1, 'c to watch');
    const [aNode, bNode, cNode] = queue(server, '/lock');
    expect(held.path).toBe(aNode);
    expect(watched(b)).toEqual([aNode]);
    expect(watched(c)).toEqual([bNode]); // not the holder: no herd
    expect(watched(a)).toEqual([]);
    await settle();
    expect(bWait.settled() || cWait.settled()).toBe(false);

    await held.release();
    const bLease = await bWait.promise;
    expect(bLease.path).toBe(bNode);
    await settle();
    expect(cWait.settled()).toBe(false);
    expect(watched(c)).toEqual([bNode]); // A's release did not wake C
    await bLease.release();
    expect((await cWait.promise).path).toBe(cNode);
  });

  it('a waiter woken by a predecessor that left lists again and waits on the next one ahead', async () => {
    const { server, clients } = await setup(3);
    const [a, b, c] = clients as [ScriptedClient, ScriptedClient, ScriptedClient];
    const held = await new Mutex(a, '/lock').acquire();
    const giveUp = new AbortController();
    const bWait = new Mutex(b, '/lock').acquire({ signal: giveUp.signal }).catch((e) => e);
    await until(() => watched(b).length === 1, 'b to watch');
    const cWait = track(new Mutex(c, '/lock').acquire());
    await until(() => watched(c).length === 1, 'c to watch');
    const [aNode, bNode] = queue(server, '/lock');
    const listingsBefore = c.requests({ op: 'getChildren' }).length;

    giveUp.abort(new Error('b gives up'));
    expect(await bWait).toMatchObject({ message: 'b gives up' });
    await until(() => watched(c).length === 2, 'c to watch again');
    // Woken by B's node going, C did not assume it holds: it listed again and found A ahead.
    expect(watched(c)).toEqual([bNode, aNode]);
    expect(c.requests({ op: 'getChildren' }).length).toBeGreaterThan(listingsBefore);
    await settle();
    expect(cWait.settled()).toBe(false);
    expect(queue(server, '/lock')).toHaveLength(2); // B left nothing behind

    await held.release();
    expect((await cWait.promise).path).toBe(queue(server, '/lock')[0]);
  });
});

describe('Mutex recovery after a create whose reply was lost (scripted client)', () => {
  it('applied by the server: finds its own node by prefix after a sync, creates no second node', async () => {
    const { server, clients } = await setup(1);
    const a = clients[0]!;
    server.fail({ op: 'create2', path: /^\/lock\/_c_/, code: 'CONNECTIONLOSS', applied: true });
    const lease = await new Mutex(a, '/lock').acquire();
    expect(queue(server, '/lock')).toEqual([lease.path]);
    const creates = a.requests({ op: 'create2' }).filter((r) => r.path.startsWith('/lock/'));
    expect(creates.map((r) => r.outcome)).toEqual(['CONNECTIONLOSS']);
    // The recovery read went to a server brought up to date first: sync, then list.
    const log = a.requests();
    const lost = log.findIndex((r) => r.op === 'create2' && r.outcome === 'CONNECTIONLOSS');
    const sync = log.findIndex((r, i) => i > lost && r.op === 'sync' && r.path === '/lock');
    expect(sync).toBeGreaterThan(lost);
    expect(log.findIndex((r, i) => i > sync && r.op === 'getChildren')).toBeGreaterThan(sync);
    // The node found by its prefix was checked to be this session's before it was adopted.
    expect(a.requests({ op: 'exists', path: lease.path })).toHaveLength(1);
    await lease.release();
    expect(queue(server, '/lock')).toEqual([]);
  });

  it('not applied: finds nothing under its prefix and creates again with a fresh prefix', async () => {
    const { server, clients } = await setup(1);
    const a = clients[0]!;
    server.fail({ op: 'create2', path: /^\/lock\/_c_/, code: 'CONNECTIONLOSS' });
    const lease = await new Mutex(a, '/lock').acquire();
    expect(queue(server, '/lock')).toEqual([lease.path]);
    const creates = a.requests({ op: 'create2' }).filter((r) => r.path.startsWith('/lock/'));
    expect(creates.map((r) => r.outcome)).toEqual(['CONNECTIONLOSS', 'ok']);
    expect(creates[0]!.path).not.toBe(creates[1]!.path); // a new owner prefix
    await lease.release();
  });

  it('a node under its prefix owned by another session is deleted, never adopted', async () => {
    const { server, clients } = await setup(2);
    const [a, other] = clients as [ScriptedClient, ScriptedClient];
    // The lost create "landed" for another session (an earlier session of this process).
    const realCreate = a.create2.bind(a);
    let first = true;
    a.create2 = (path, data, options) => {
      if (first && path.startsWith('/lock/')) {
        first = false;
        void other.create2(path, data, options);
        return Promise.reject(new ZooKeeperError('CONNECTIONLOSS', 'reply lost'));
      }
      return realCreate(path, data, options);
    };
    const lease = await new Mutex(a, '/lock').acquire();
    expect(queue(server, '/lock')).toEqual([lease.path]);
    expect(server.nodes.get(lease.path)?.stat.ephemeralOwner).toBe(a.sessionId);
    expect(a.requests({ op: 'delete' })).toHaveLength(1); // the stranger's node
    await lease.release();
  });
});

describe('Mutex cleanup (scripted client)', () => {
  it('a release whose delete fails with CONNECTIONLOSS is retried until the node is gone', async () => {
    const { server, clients } = await setup(1);
    const a = clients[0]!;
    const lease = await new Mutex(a, '/lock').acquire();
    server.fail({ op: 'delete', path: lease.path, code: 'CONNECTIONLOSS', times: 2 });
    await lease.release();
    expect(a.requests({ op: 'delete', path: lease.path }).map((r) => r.outcome)).toEqual([
      'CONNECTIONLOSS',
      'CONNECTIONLOSS',
      'ok',
    ]);
    expect(queue(server, '/lock')).toEqual([]);
  });

  it('a delete applied whose reply was lost: the retry finds the node gone and the release resolves', async () => {
    const { server, clients } = await setup(1);
    const a = clients[0]!;
    const lease = await new Mutex(a, '/lock').acquire();
    server.fail({ op: 'delete', path: lease.path, code: 'CONNECTIONLOSS', applied: true });
    await lease.release();
    expect(a.requests({ op: 'delete' }).map((r) => r.outcome)).toEqual([
      'CONNECTIONLOSS',
      'NONODE',
    ]);
  });

  it('a release held up by a lost connection gives up once the session is over (its node went with it)', async () => {
    const { server, clients } = await setup(1);
    const a = clients[0]!;
    const lease = await new Mutex(a, '/lock', { lossPolicy: 'expired' }).acquire();
    server.fail({ op: 'delete', path: lease.path, code: 'CONNECTIONLOSS' });
    a.setState('suspended');
    const releasing = track(lease.release());
    await settle();
    expect(releasing.settled()).toBe(false); // waiting for the connection
    a.setState('expired');
    await expect(releasing.promise).resolves.toBeUndefined();
    expect(a.requests({ op: 'delete' }).map((r) => r.outcome)).toEqual(['SESSIONEXPIRED']);
    expect(queue(server, '/lock')).toEqual([]);
  });

  it('a timed-out acquire removes its node, retrying a delete that lost its connection', async () => {
    const { server, clients } = await setup(2);
    const [a, b] = clients as [ScriptedClient, ScriptedClient];
    const held = await new Mutex(a, '/lock').acquire();
    server.fail({ op: 'delete', session: b.sessionId, code: 'CONNECTIONLOSS' });
    const timedOut = expect(new Mutex(b, '/lock').acquire({ timeout: 50 })).rejects.toBeInstanceOf(
      LockTimeoutError,
    );
    await vi.advanceTimersByTimeAsync(50);
    await timedOut;
    await until(() => queue(server, '/lock').length === 1, "b's node to go");
    expect(queue(server, '/lock')).toEqual([held.path]);
    expect(b.requests({ op: 'delete' }).map((r) => r.outcome)).toEqual(['CONNECTIONLOSS', 'ok']);
    await held.release();
  });

  it('tryAcquire on a held lock leaves no node behind', async () => {
    const { server, clients } = await setup(2);
    const [a, b] = clients as [ScriptedClient, ScriptedClient];
    const held = await new Mutex(a, '/lock').acquire();
    expect(await new Mutex(b, '/lock').tryAcquire()).toBeNull();
    expect(queue(server, '/lock')).toEqual([held.path]);
    expect(watched(b)).toEqual([]); // never waited
    await held.release();
  });
});

describe('ReadWriteLock decisions (scripted client)', () => {
  it('readers share; a writer waits on the last reader ahead of it and holds once they are gone', async () => {
    const { server, clients } = await setup(3, '/rw');
    const [r1, r2, w] = clients as [ScriptedClient, ScriptedClient, ScriptedClient];
    const read1 = await new ReadWriteLock(r1, '/rw').read.acquire();
    const read2 = await new ReadWriteLock(r2, '/rw').read.acquire();
    const writing = track(new ReadWriteLock(w, '/rw').write.acquire());
    await until(() => watched(w).length === 1, 'the writer to watch');
    expect(watched(w)).toEqual([read2.path]);
    await read1.release();
    await settle();
    expect(writing.settled()).toBe(false);
    await read2.release();
    const write = await writing.promise;
    expect(queue(server, '/rw')).toEqual([write.path]);
    await write.release();
  });

  it('a reader behind a waiting writer waits on that writer, not on the readers ahead', async () => {
    const { server, clients } = await setup(3, '/rw');
    const [r1, w, r2] = clients as [ScriptedClient, ScriptedClient, ScriptedClient];
    const read1 = await new ReadWriteLock(r1, '/rw').read.acquire();
    const writing = track(new ReadWriteLock(w, '/rw').write.acquire());
    await until(() => watched(w).length === 1, 'the writer to watch');
    const reading = track(new ReadWriteLock(r2, '/rw').read.acquire());
    await until(() => watched(r2).length === 1, 'the second reader to watch');
    const [, writeNode] = queue(server, '/rw');
    expect(watched(r2)).toEqual([writeNode]); // no writer starvation
    await read1.release();
    const write = await writing.promise;
    await settle();
    expect(reading.settled()).toBe(false);
    await write.release();
    await (await reading.promise).release();
  });
});

describe('Semaphore bound (scripted client)', () => {
  it('never more than maxLeases holders; a waiter gets in when a lease is released', async () => {
    const { server, clients } = await setup(3, '/sem');
    const [a, b, c] = clients as [ScriptedClient, ScriptedClient, ScriptedClient];
    const first = await new Semaphore(a, '/sem', { maxLeases: 2 }).acquire();
    const second = await new Semaphore(b, '/sem', { maxLeases: 2 }).acquire();
    const third = track(new Semaphore(c, '/sem', { maxLeases: 2 }).acquire());
    await until(() => c.requests({ op: 'getChildren', watch: true }).length > 0, 'c to wait');
    await settle();
    expect(third.settled()).toBe(false);
    expect(await new Semaphore(a, '/sem', { maxLeases: 2 }).tryAcquire()).toBeNull();
    expect(server.children('/sem/leases')).toHaveLength(3); // two held, one waiting
    await first.release();
    const lease = await third.promise;
    expect(server.children('/sem/leases')).toHaveLength(2);
    await second.release();
    await lease.release();
    expect(server.children('/sem/leases')).toEqual([]);
    expect(server.children('/sem/locks')).toEqual([]); // the guard was given back each time
  });
});

describe('revocation (scripted client)', () => {
  it('a read of the held node that timed out is retried: a later revoke request is still seen', async () => {
    const { server, clients } = await setup(2);
    const [a, b] = clients as [ScriptedClient, ScriptedClient];
    // The first reads of the held node (the lease's own watch, then the revocation watch) time out.
    server.fail({ op: 'getData', path: /^\/lock\//, code: 'REQUESTTIMEOUT', times: 2 });
    const lease = await new Mutex(a, '/lock').acquire({ revocable: true });
    await until(() => a.requests({ op: 'getData', watch: true }).length >= 4, 'the watches');
    await settle();
    expect(lease.revocation.aborted).toBe(false);
    expect(await revoke(b, '/lock')).toBe(lease.path);
    await until(() => lease.revocation.aborted, 'the revocation request');
    await lease.release();
  });
});

describe('close() (scripted client)', () => {
  it('a held lease is lost the moment close() is called, before the server says anything', async () => {
    const { clients } = await setup(1);
    const a = clients[0] as ScriptedClient;
    const lease = await new Mutex(a, '/lock').acquire();
    const signal = lease.signal;
    expect(signal.aborted).toBe(false);
    a.beginClose();
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toMatchObject({ name: 'LockLostError', reason: 'closed' });
  });

  it('a grant decided after close() began rejects instead of handing out a lease', async () => {
    const { clients } = await setup(2);
    const [a, b] = clients as [ScriptedClient, ScriptedClient];
    const held = await new Mutex(a, '/lock').acquire();
    const bWait = new Mutex(b, '/lock').acquire().catch((error: unknown) => error);
    await until(() => watched(b).length === 1, 'b to watch');
    b.beginClose();
    // The release wakes b, whose listing now puts it first: too late, its session is closing.
    await held.release();
    expect(await bWait).toMatchObject({ name: 'LockLostError', reason: 'closed' });
  });
});
