// LeaderLatch on the real server: one leader at a time, hand-over on close, on session expiry and
// on node deletion, a cut link, herd-freedom, protected names, and the waiting API's bounds.
import { afterEach, describe, expect, it } from 'vitest';
import { type Client, ZooKeeperError } from '../../../src/index.js';
import {
  LATCH_NAME,
  LeaderLatch,
  type Leadership,
  LockTimeoutError,
} from '../../../src/locks/index.js';
import { sharedServer, TcpProxy } from '../../harness/index.js';
import { abortReason } from '../../support/integration.js';
import { afterRoundTrips } from '../../support/request-log.js';
import {
  childrenOf,
  instrument,
  lockPath,
  losingFirstCreate,
  newClient,
  newClients,
  registeredWatchers,
  sleep,
  until,
  untilChildren,
  watchesByPath,
} from './helpers.js';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const LATCH_NODE = new RegExp(`^_c_${UUID}-${LATCH_NAME}\\d{10}$`);

const latches: LeaderLatch[] = [];
const proxies: { proxy: TcpProxy; zk: Client }[] = [];
afterEach(async () => {
  await Promise.all(latches.splice(0).map((latch) => latch.close().catch(() => {})));
  // Clients behind a proxy close first, while their link still works.
  for (const { proxy, zk } of proxies.splice(0)) {
    await zk.close();
    await proxy.close();
  }
});

function started(client: ConstructorParameters<typeof LeaderLatch>[0], path: string, id: string) {
  const latch = new LeaderLatch(client, path, { id });
  latches.push(latch);
  latch.start();
  return latch;
}

async function proxied(
  sessionTimeout: number,
  renewSession = true,
): Promise<{ proxy: TcpProxy; zk: Client }> {
  const [host, port] = sharedServer().connectString.split(':') as [string, string];
  const proxy = await TcpProxy.start(host, Number(port));
  const zk = await newClient({ sessionTimeout, renewSession }, proxy.connectString);
  proxies.push({ proxy, zk });
  return { proxy, zk };
}

/** A (through a proxy with `sessionTimeout`) leads on a fresh path; B (on the shared server) is in line. */
async function aLeadsBQueued(sessionTimeout: number, renewSession = true) {
  const { proxy, zk } = await proxied(sessionTimeout, renewSession);
  const other = await newClient();
  return { proxy, zk, other, ...(await aLeadsBJoins(zk, other)) };
}

/** On a fresh election, `a`'s latch A leads and `b`'s latch B has joined the line. */
async function aLeadsBJoins(a: Client, b: Client) {
  const path = lockPath('election');
  const latchA = started(a, path, 'A');
  const leaderA = await latchA.leadership({ timeout: 10_000 });
  const latchB = started(b, path, 'B');
  await untilChildren(b, path, 2, 'B joined');
  return { path, latchA, leaderA, latchB };
}

/** When the promise settled (Date.now()), for ordering checks. */
function settledAt(promise: Promise<unknown>): Promise<number> {
  return promise.then(
    () => Date.now(),
    () => Date.now(),
  );
}

/**
 * A leads and B waits (sessions of 2 s); then A's link goes dead and stays dead: A is told no
 * later than B leads, once the server expired A's session, with a larger fencing token.
 */
async function deadLinkHandsOver(renewSession = true) {
  const queued = await aLeadsBQueued(2_000, renewSession);
  const { proxy, zk, leaderA, latchB } = queued;
  const oldSession = zk.sessionId;
  const lostA = settledAt(abortReason(leaderA.signal));
  const gainedB = latchB.leadership({ timeout: 20_000 });
  proxy.freeze('drop'); // a dead link: the server expires A's session after 2 s
  const leaderB = await gainedB;
  const gainedAt = Date.now();
  expect(await lostA).toBeLessThanOrEqual(gainedAt);
  expect(leaderB.fencingToken > leaderA.fencingToken).toBe(true);
  return { ...queued, leaderB, oldSession };
}

describe('LeaderLatch', () => {
  it('one leader at a time, in join order; closing the leader hands over to the next', async () => {
    const [a, b, c] = await newClients(3);
    const { path, latchA, leaderA, latchB } = await aLeadsBJoins(a!, b!);
    const latchC = started(c!, path, 'C');
    await untilChildren(a!, path, 3, 'C joined');

    // Curator's layout: protected names with `latch-`, the id as data, the leader first.
    for (const name of await childrenOf(a!, path)) expect(name).toMatch(LATCH_NODE);
    expect(await latchC.participants()).toEqual([
      { id: 'A', path: leaderA.path, isLeader: true },
      { id: 'B', path: latchB.ourPath, isLeader: false },
      { id: 'C', path: latchC.ourPath, isLeader: false },
    ]);
    expect((await latchB.leader())?.id).toBe('A');
    expect([latchA.hasLeadership, latchB.hasLeadership, latchC.hasLeadership]).toEqual([
      true,
      false,
      false,
    ]);
    expect(leaderA.id).toBe('A');
    // A second call during the term returns the same term.
    expect(await latchA.leadership({ timeout: 0 })).toBe(leaderA);
    await expect(latchB.leadership({ timeout: 0 })).rejects.toBeInstanceOf(LockTimeoutError);

    const nextB = latchB.leadership({ timeout: 10_000 });
    await latchA.close();
    expect(leaderA.signal.aborted).toBe(true);
    expect(leaderA.signal.reason).toMatchObject({ name: 'LeaseReleasedError' });
    const leaderB = await nextB;
    expect(leaderB.fencingToken > leaderA.fencingToken).toBe(true);
    expect(latchC.hasLeadership).toBe(false);
    expect(await childrenOf(a!, path)).toHaveLength(2);
    expect(latchA.state).toBe('closed');
    await expect(latchA.leadership()).rejects.toMatchObject({ code: 'CLOSED' });

    await latchB.close();
    const leaderC = await latchC.leadership({ timeout: 10_000 });
    expect(leaderC.fencingToken > leaderB.fencingToken).toBe(true);
    await latchC.close();
    expect(await childrenOf(a!, path)).toEqual([]);
  });

  it('a link that stays down: the leader is told at once, its session expires, the next one leads; A rejoins on a new session', async () => {
    const { proxy, zk, other, latchA, leaderA, latchB, leaderB, oldSession } =
      await deadLinkHandsOver();

    // A hears of the expiry, renews its session and takes part again, behind B.
    const nextA = latchA.leadership({ timeout: 30_000 });
    proxy.thaw();
    proxy.cut();
    await until(
      async () => (await latchB.participants()).map((p) => p.id).join() === 'B,A',
      'A back in line behind B',
      15_000,
    );
    expect(zk.sessionId).not.toBe(oldSession);
    expect(latchA.state).toBe('started');
    expect(latchA.hasLeadership).toBe(false);
    expect(latchB.hasLeadership).toBe(true);
    // The waiting leadership() of A was kept across the renewal: B leaves, A leads again.
    await latchB.close();
    const again = await nextA;
    expect(again.fencingToken > leaderB.fencingToken).toBe(true);
    expect(again.path).not.toBe(leaderA.path);
    expect((await other.exists(again.path))?.ephemeralOwner).toBe(zk.sessionId);
  });

  it('without renewal, a link that stays down ends the latch with the session error', async () => {
    const { proxy, latchA, leaderA, latchB } = await deadLinkHandsOver(false);
    expect(leaderA.signal.reason).toMatchObject({ name: 'LockLostError', reason: 'suspended' });
    expect((await latchB.participants()).map((p) => p.id)).toEqual(['B']);

    // When A hears of the expiry, its latch ends with the session's error.
    proxy.thaw();
    proxy.cut();
    await until(() => latchA.state === 'closed', 'A ends', 15_000);
    await expect(latchA.leadership()).rejects.toMatchObject({ code: 'SESSIONEXPIRED' });
    expect(latchB.hasLeadership).toBe(true);
  });

  it('a cut link suspends leadership at once; within the session the leader keeps its place', async () => {
    const { proxy, other, path, latchA, leaderA: first, latchB } = await aLeadsBQueued(10_000);
    const gainedB = latchB.leadership();
    gainedB.catch(() => {});

    proxy.cut();
    expect(await abortReason(first.signal)).toMatchObject({ reason: 'suspended' });
    expect(latchA.hasLeadership).toBe(false);
    // Reconnected in the same session: its node is still first, so A leads again, same token.
    const second = await latchA.leadership({ timeout: 10_000 });
    expect(second).not.toBe(first);
    expect(second.signal.aborted).toBe(false);
    expect(second.fencingToken).toBe(first.fencingToken);
    expect(latchB.hasLeadership).toBe(false);
    expect(await childrenOf(other, path)).toHaveLength(2);
  });

  it('repeated terms and abandoned leadership() waits accumulate no watcher closures', async () => {
    const { proxy, zk, other, latchA, leaderA, latchB } = await aLeadsBQueued(10_000);
    let term = leaderA;
    // Each cut ends A's term (suspended); A reconnects in the same session and leads again.
    for (let i = 0; i < 5; i++) {
      proxy.cut();
      await abortReason(term.signal);
      term = await latchA.leadership({ timeout: 10_000 });
      expect(term.signal.aborted).toBe(false);
    }
    // A's client watches its own node once, however many terms it has led on it.
    expect(registeredWatchers(zk, term.path)).toBe(1);
    // B watches A's node; its timed-out and aborted waits leave nothing of their own.
    for (let i = 0; i < 10; i++) {
      await expect(latchB.leadership({ timeout: 20 })).rejects.toBeInstanceOf(LockTimeoutError);
      const stop = new AbortController();
      const waiting = latchB.leadership({ signal: stop.signal });
      stop.abort(new Error('gave up'));
      await expect(waiting).rejects.toThrow('gave up');
    }
    expect(registeredWatchers(other, term.path)).toBe(1);
    // The shared watcher still works: A stepping down hands over to B.
    await latchA.close();
    const led = await latchB.leadership({ timeout: 10_000 });
    expect(led.signal.aborted).toBe(false);
  });

  it("with lossPolicy 'expired', leadership survives a reconnect within the session", async () => {
    const zk = await newClient();
    const path = lockPath('election');
    const latch = new LeaderLatch(zk, path, { id: 'A', lossPolicy: 'expired' });
    latches.push(latch);
    latch.start();
    const leadership = await latch.leadership({ timeout: 10_000 });
    const states: string[] = [];
    zk.on('state', (state) => states.push(state));
    zk.dropConnection();
    await until(() => states.includes('connected'), 'reconnect');
    expect(states).toEqual(['suspended', 'connected']);
    expect(leadership.signal.aborted).toBe(false);
    expect(latch.hasLeadership).toBe(true);
    expect(await latch.leadership({ timeout: 0 })).toBe(leadership);
  });

  it('a candidate cut off while the leader steps down leads once its link is back', async () => {
    const leaderZk = await newClient();
    const { proxy, zk } = await proxied(10_000);
    const path = lockPath('election');
    const latchA = started(leaderZk, path, 'A');
    await latchA.leadership({ timeout: 10_000 });
    const latchB = started(zk, path, 'B');
    await untilChildren(leaderZk, path, 2, 'B joined');
    const gainedB = latchB.leadership({ timeout: 20_000 });
    proxy.refuse(true);
    proxy.cut();
    await until(() => zk.state === 'suspended', 'B cut off');
    await latchA.close();
    await sleep(200);
    expect(latchB.hasLeadership).toBe(false);
    proxy.refuse(false);
    const leaderB = await gainedB;
    expect(leaderB.signal.aborted).toBe(false);
    expect((await latchB.participants()).map((p) => p.id)).toEqual(['B']);
  });

  it('a leader whose node is deleted by someone else loses (deleted) and joins again at the back', async () => {
    const [a, b, admin] = await newClients(3);
    const { latchA, leaderA, latchB } = await aLeadsBJoins(a!, b!);
    await admin!.delete(leaderA.path);
    expect(await abortReason(leaderA.signal)).toMatchObject({ reason: 'deleted' });
    const leaderB = await latchB.leadership({ timeout: 10_000 });
    expect(leaderB.id).toBe('B');
    await until(async () => (await latchA.participants()).length === 2, 'A joined again');
    expect((await latchA.participants()).map((p) => p.id)).toEqual(['B', 'A']);
    await latchB.close();
    expect((await latchA.leadership({ timeout: 10_000 })).fencingToken > leaderB.fencingToken).toBe(
      true,
    );
  });

  it('herd-free: each candidate watches only its predecessor; a hand-over wakes one', async () => {
    const N = 8;
    const zks = await newClients(N);
    const path = lockPath('election');
    const counted = zks.map((zk) => {
      const w = instrument(zk);
      return { zk, ...w, client: Object.assign(w.client, { sync: zk.sync.bind(zk) }) };
    });
    const ls: LeaderLatch[] = [];
    for (const [i, w] of counted.entries()) {
      ls.push(started(w.client, path, `p${i}`));
      await untilChildren(zks[0]!, path, i + 1, `p${i} joined`);
    }
    const leader: Leadership = await ls[0]!.leadership({ timeout: 10_000 });
    let watches = new Map<string, bigint[]>();
    await until(async () => {
      watches = await watchesByPath(path);
      // N - 1 predecessor watches, and the leader's watch on its own node.
      return [...watches.values()].flat().length === N;
    }, 'every candidate watching');
    const owners = new Map<string, bigint>();
    for (const name of await childrenOf(zks[0]!, path)) {
      const node = `${path}/${name}`;
      owners.set(node, (await zks[0]!.exists(node))!.ephemeralOwner);
    }
    for (const [node, sessions] of watches) {
      expect(sessions.filter((s) => s !== owners.get(node)).length).toBeLessThanOrEqual(1);
    }
    expect(counted.map((w) => w.calls.childWatches ?? 0)).toEqual(Array(N).fill(0));

    const before = counted.slice(1).reduce((sum, w) => sum + w.wakes.count, 0);
    await ls[0]!.close();
    expect(leader.signal.aborted).toBe(true);
    await ls[1]!.leadership({ timeout: 10_000 });
    await afterRoundTrips(zks, path); // any other wake-up has arrived and listed by now
    const after = counted.slice(1).reduce((sum, w) => sum + w.wakes.count, 0);
    expect(after - before).toBe(1);
    expect(ls.slice(2).some((l) => l.hasLeadership)).toBe(false);
  });

  it('after a CONNECTIONLOSS on create, adopts its own node instead of creating a second', async () => {
    const zk = await newClient();
    const path = lockPath('election');
    await zk.create2(path.slice(0, path.lastIndexOf('/')));
    await zk.create2(path);
    const { client, calls } = losingFirstCreate(zk, true);
    const latch = started(Object.assign(client, { sync: zk.sync.bind(zk) }), path, 'A');
    const leadership = await latch.leadership({ timeout: 10_000 });
    expect(calls.create2).toBe(1);
    expect(await childrenOf(zk, path)).toEqual([leadership.path.slice(path.length + 1)]);
  });

  it('a leadership() timeout names the leadership it waited for, and is still a LockTimeoutError', async () => {
    const [a, b] = await newClients(2);
    const path = lockPath('election');
    const latchA = started(a!, path, 'A');
    await latchA.leadership({ timeout: 10_000 });
    const latchB = started(b!, path, 'B');
    for (const timeout of [100, 0]) {
      const error = await latchB.leadership({ timeout }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LockTimeoutError);
      expect(error).toMatchObject({ code: 'TIMEOUT', timeout, path });
      expect((error as Error).message).toBe(
        timeout === 0
          ? `leadership of ${path} is not available now (timeout 0 does not wait)`
          : `timed out after ${timeout} ms waiting for leadership of ${path}`,
      );
    }
  });

  it('bounds: timeout, abort, not started, closed while waiting; no node left behind', async () => {
    const [a, b] = await newClients(2);
    const path = lockPath('election');
    const latchA = started(a!, path, 'A');
    await latchA.leadership({ timeout: 10_000 });
    const latchB = new LeaderLatch(b!, path, { id: 'B' });
    latches.push(latchB);
    await expect(latchB.leadership()).rejects.toMatchObject({ code: 'BADARGUMENTS' });
    await latchB.start({ timeout: 10_000 });
    await latchB.start(); // a second start() waits for the same first listing
    expect(latchB.hasLeadership).toBe(false);
    await expect(latchB.leadership({ timeout: 200 })).rejects.toBeInstanceOf(LockTimeoutError);
    const stop = new AbortController();
    const waiting = latchB.leadership({ signal: stop.signal });
    stop.abort(new Error('not any more'));
    await expect(waiting).rejects.toThrow('not any more');
    const pending = expect(latchB.leadership()).rejects.toMatchObject({ code: 'CLOSED' });
    await latchB.close();
    await pending;
    expect(await childrenOf(a!, path)).toHaveLength(1);
    expect(latchA.hasLeadership).toBe(true);
    expect(() => new LeaderLatch(a!, path, { lossPolicy: 'never' as 'expired' })).toThrow(
      ZooKeeperError,
    );
  });
});
