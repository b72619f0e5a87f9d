// Recipes on the in-process server (zookeeper-ts/testing) through real Clients: the waits that
// must survive a link that goes silent, a session that expires, and a holder that dies, in
// milliseconds and with no JVM. The same behaviour against a real ZooKeeper is in
// test/integration (recipes/barriers, recipes/renewal, locks/mutex); these are the fault
// schedules a real server makes slow or hard to stage. Waits are on events, bounded by the test.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { Mutex } from '../../../src/locks/index.js';
import { DistributedBarrier, DistributedDoubleBarrier } from '../../../src/recipes/index.js';
import type { SessionState } from '../../../src/session/types.js';
import { startServer, type TestServer } from '../../../src/testing/index.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
  vi.restoreAllMocks();
});

// The client pauses a random 0-1 s before it dials again after a dropped link or an expiry: that
// pacing is the session's, pinned in its own tests. Here it is drawn as 0, so that each fault's
// recovery shows without a random wait.
beforeEach(() => {
  vi.spyOn(Math, 'random').mockReturnValue(0);
});

async function server(): Promise<TestServer> {
  const s = await startServer({ listen: false, tickTime: 200 });
  open.push(s);
  return s;
}

async function client(s: TestServer, name: string, sessionTimeout = 4000): Promise<Client> {
  const c = await Client.connect(s.connectString, {
    transport: s.transportFor(name),
    sessionTimeout,
  });
  open.push(c);
  return c;
}

function reaches(c: Client, want: (state: SessionState) => boolean): Promise<SessionState> {
  return new Promise((resolve) => {
    if (want(c.state)) return resolve(c.state);
    const off = c.on('state', (state) => {
      if (want(state)) {
        off();
        resolve(state);
      }
    });
  });
}

describe('DistributedBarrier on the in-process server', () => {
  it('a waiter whose link went silent while the barrier was lowered is released once it is back', async () => {
    const s = await server();
    const waiterClient = await client(s, 'waiter');
    const other = await client(s, 'other');
    await new DistributedBarrier(other, '/gate').raise();
    const waiting = new DistributedBarrier(waiterClient, '/gate').wait({ timeout: 20_000 });
    // The waiter's watch is set before its link goes silent.
    await reaches(waiterClient, (state) => state === 'connected');
    await other.sync('/gate');
    s.blackHole({ client: 'waiter' }, 300);
    await new DistributedBarrier(other, '/gate').lower();
    await waiting;
    expect(await waiterClient.exists('/gate')).toBeNull();
  });

  it("a waiter's session expires while it waits: it looks again on the renewed session", async () => {
    const s = await server();
    const waiterClient = await client(s, 'waiter');
    const other = await client(s, 'other');
    const barrier = new DistributedBarrier(other, '/gate');
    await barrier.raise();
    const waiting = new DistributedBarrier(waiterClient, '/gate').wait({ timeout: 20_000 });
    let settled = false;
    void waiting.then(
      () => (settled = true),
      () => (settled = true),
    );
    const renewed = new Promise<void>((resolve) => {
      const off = waiterClient.on('renewed', () => {
        off();
        resolve();
      });
    });
    expect(await s.expireSessions('waiter')).toBe(1);
    await renewed;
    // The barrier is still up: the renewal alone released nobody.
    await waiterClient.sync('/gate');
    expect(settled).toBe(false);
    await barrier.lower();
    await waiting;
  });

  it('wait with a timeout on a barrier that stays up rejects with TimeoutError', async () => {
    const s = await server();
    const c = await client(s, 'waiter');
    const barrier = new DistributedBarrier(c, '/gate');
    await barrier.raise();
    await expect(barrier.wait({ timeout: 50 })).rejects.toMatchObject({ code: 'TIMEOUT' });
  });
});

describe('DistributedDoubleBarrier on the in-process server', () => {
  it('three members enter together and leave together', async () => {
    const s = await server();
    const members = await Promise.all(
      ['a', 'b', 'c'].map(async (name) => {
        const barrier = new DistributedDoubleBarrier(await client(s, name), '/double', {
          memberQty: 3,
        });
        open.push(barrier);
        return barrier;
      }),
    );
    const observer = await client(s, 'observer');
    const first = members[0]!.enter({ timeout: 20_000 });
    let entered = false;
    void first.then(() => (entered = true));
    // One member alone waits: the others have not come.
    await observer.sync('/double');
    expect(entered).toBe(false);
    await Promise.all([first, ...members.slice(1).map((m) => m.enter({ timeout: 20_000 }))]);
    await Promise.all(members.map((m) => m.leave({ timeout: 20_000 })));
    const left = (await observer.getChildren('/double')).filter((name) => name !== 'ready');
    expect(left).toEqual([]);
  });
});

describe('Mutex on the in-process server', () => {
  it("the holder's session expires: its lease ends, and the waiting contender gets the lock", async () => {
    const s = await server();
    const holder = await client(s, 'holder');
    const contender = await client(s, 'contender');
    const lease = await new Mutex(holder, '/locks/job').acquire({ timeout: 5_000 });
    const ended = new Promise((resolve) => lease.signal.addEventListener('abort', resolve));
    const next = new Mutex(contender, '/locks/job').acquire({ timeout: 20_000 });
    await contender.sync('/locks/job');
    expect(await s.expireSessions('holder')).toBe(1);
    await ended;
    const taken = await next;
    expect(taken.signal.aborted).toBe(false);
    await taken.release();
  });

  it('the reply of the create that queues the contender is lost: it still gets the lock, with one node', async () => {
    const s = await server();
    const c = await client(s, 'contender');
    const observer = await client(s, 'observer');
    await observer.create('/locks', '');
    await observer.create('/locks/lost', '');
    s.loseNextReply({ client: 'contender' });
    const lease = await new Mutex(c, '/locks/lost').acquire({ timeout: 20_000 });
    expect(await observer.getChildren('/locks/lost')).toHaveLength(1);
    await lease.release();
    expect(await observer.getChildren('/locks/lost')).toEqual([]);
  });
});
