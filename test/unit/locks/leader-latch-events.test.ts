// LeaderLatch against the scripted client (scripted-client.ts): the election events it publishes on
// `zookeeper-ts:lock`, the errors it answers with, who a waiting candidate watches, and the
// election's node gone with our candidate. Real-server behaviour:
// test/integration/locks/leader-latch.test.ts and test/integration/telemetry/events.test.ts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { boundsWaiting } from '../../../src/coordination/deadline.js';
import {
  LeaderLatch,
  LeaseReleasedError,
  type LockLostError,
  LockTimeoutError,
} from '../../../src/locks/index.js';
import { lockMessages, startedLatch as started } from '../../support/locks-unit.js';
import { until } from '../../support/wait.js';
import { ScriptedServer, scriptedSessions } from './scripted-client.js';

// The checks that something does NOT happen run on a faked clock: a second of it passes at once,
// with every follow-up of a step and any retry pause (100-200 ms) run, however loaded the machine.
const QUIET_MS = 1_000;

afterEach(() => {
  vi.useRealTimers();
});

/** The election and hold messages published while the test runs (acquires left out). */
const lockEvents = () =>
  lockMessages((event) => !event.type.startsWith('acquire') && event.type !== 'granted');

describe('LeaderLatch events (zookeeper-ts:lock)', () => {
  it('a term publishes leader-gained, and leader-lost with why it ended', async () => {
    const events = lockEvents();
    const [, client] = scriptedSessions(1);
    const latch = started(client);
    const term = await latch.leadership();
    expect(events).toEqual([
      { type: 'leader-gained', lockPath: '/el', node: term.path, reason: undefined },
    ]);
    // Curator's protected layout: `_c_<uuid>-latch-<seq>`.
    expect(term.path).toMatch(
      /^\/el\/_c_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-latch-\d{10}$/,
    );
    client.setState('suspended');
    await until(() => events.length >= 4, 'the end of the term');
    expect(events.slice(1)).toEqual([
      {
        type: 'lost',
        lockPath: '/el',
        node: term.path,
        kind: 'latch-',
        holdTime: expect.any(Number),
        reason: 'suspended',
        afterLoss: false,
      },
      { type: 'leader-lost', lockPath: '/el', node: term.path, reason: 'suspended' },
      expect.objectContaining({ type: 'released', node: term.path, afterLoss: true }),
    ]);
    client.setState('connected');
    await until(() => latch.hasLeadership, 'a new term');
    events.length = 0;
    await latch.close();
    expect(events).toEqual([
      { type: 'leader-lost', lockPath: '/el', node: term.path, reason: 'closed' },
      expect.objectContaining({ type: 'released', node: term.path, afterLoss: false }),
    ]);
  });

  it('a candidate that never leads publishes no election event', async () => {
    const server = new ScriptedServer();
    const first = started(server.connect());
    await first.leadership();
    const events = lockEvents();
    const second = started(server.connect());
    await expect(second.leadership({ timeout: 0 })).rejects.toMatchObject({ timeout: 0 });
    await second.close();
    expect(events).toEqual([]);
    await first.close();
  });
});

describe('LeaderLatch errors (scripted client)', () => {
  it('names the problem in its BADARGUMENTS errors', async () => {
    const client = new ScriptedServer().connect();
    expect(() => new LeaderLatch(client, 'el')).toThrow('LeaderLatch: invalid path "el"');
    expect(() => new LeaderLatch(client, '/el', { id: 7 as unknown as string })).toThrow(
      'id must be a string',
    );
    expect(
      () => new LeaderLatch(client, '/el', { lossPolicy: 'never' as unknown as 'expired' }),
    ).toThrow("lossPolicy must be 'suspended' or 'expired', got never");
    const latch = new LeaderLatch(client, '/el');
    await expect(latch.leadership()).rejects.toThrow('start() the latch first');
    void latch.start();
    await latch.start(); // a second start() waits for the same first listing
    await latch.close();
    await expect(latch.leadership()).rejects.toThrow('the latch /el was closed');
    await expect(latch.start()).rejects.toMatchObject({ code: 'CLOSED' });
  });

  it('names the election in its timeouts', async () => {
    const server = new ScriptedServer();
    const first = started(server.connect());
    await first.leadership();
    const second = started(server.connect());
    await expect(second.leadership({ timeout: 0 })).rejects.toThrow(
      'leadership of /el is not available now (timeout 0 does not wait)',
    );
    await expect(second.leadership({ timeout: 10 })).rejects.toThrow(
      'timed out after 10 ms waiting for leadership of /el',
    );
    await second.close();
    await first.close();
  });

  it('the term a close ends aborts with LeaseReleasedError; close before the first listing ends cleanly', async () => {
    const [server, client] = scriptedSessions(1);
    const latch = started(client);
    const term = await latch.leadership();
    expect(latch.hasLeadership).toBe(true);
    await latch.close();
    expect(term.signal.reason).toBeInstanceOf(LeaseReleasedError);
    expect(latch.hasLeadership).toBe(false);
    const early = started(client, '/early');
    const waiting = early.leadership();
    await early.close();
    await expect(waiting).rejects.toThrow(/the latch .* was closed/);
    expect(server.children('/early')).toEqual([]);
  });
});

describe('LeaderLatch line (scripted client)', () => {
  it('a waiting candidate watches only the node just ahead of it', async () => {
    vi.useFakeTimers();
    const [, a, b, c] = scriptedSessions(3);
    const first = started(a);
    await first.leadership();
    const second = started(b);
    await until(() => b.requests({ op: 'getData', watch: true }).length > 0);
    const third = started(c);
    await until(() => c.requests({ op: 'getData', watch: true }).length > 0);
    expect(b.requests({ watch: true }).map((r) => r.path)).toEqual([first.ourPath]);
    expect(c.requests({ watch: true }).map((r) => r.path)).toEqual([second.ourPath]);
    // The leader leaves: the second leads, the third is not woken (no herd).
    const listingsOfThird = c.requests({ op: 'getChildren' }).length;
    await first.close();
    await second.leadership();
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(c.requests({ op: 'getChildren' })).toHaveLength(listingsOfThird);
    expect(third.hasLeadership).toBe(false);
    await second.close();
    await third.leadership({ timeout: 1_000 });
    await third.close();
  });

  it('a leader whose node and election node are both deleted makes them again and leads', async () => {
    const [server, client, admin] = scriptedSessions(2);
    const latch = started(client, '/gone/el');
    const term = await latch.leadership();
    void term.signal;
    await until(() => client.requests({ op: 'getData', watch: true }).length > 0);
    // The listing that follows the loss finds no election node at all: the candidate made
    // again and the election node are deleted just before it.
    const list = client.getChildren.bind(client);
    let first = true;
    client.getChildren = (async (path: string, options?: never) => {
      if (first && path === '/gone/el') {
        first = false;
        for (const child of server.children('/gone/el')) await admin.delete(`/gone/el/${child}`);
        await admin.delete('/gone/el');
      }
      return list(path, options);
    }) as typeof client.getChildren;
    await admin.delete(term.path);
    await until(() => term.signal.aborted, 'the loss');
    expect((term.signal.reason as LockLostError).reason).toBe('deleted');
    const again = await latch.leadership({ timeout: 1_000 });
    expect(again.path).not.toBe(term.path);
    expect(server.children('/gone/el')).toEqual([again.path.slice('/gone/el/'.length)]);
    expect(latch.state).toBe('started');
    await latch.close();
  });

  it('a candidate in line when the session is renewed takes part again on the new session', async () => {
    const [server, a, b] = scriptedSessions(2);
    const first = started(a);
    await first.leadership();
    const second = started(b);
    await until(() => b.requests({ op: 'getData', watch: true }).length > 0);
    const oldPath = second.ourPath;
    b.renew({ endWatches: true });
    await until(() => second.ourPath !== undefined && second.ourPath !== oldPath, 'a new node');
    expect(server.nodes.get(second.ourPath!)!.stat.ephemeralOwner).toBe(b.sessionId);
    const next = second.leadership({ timeout: 1_000 });
    await first.close();
    expect((await next).path).toBe(second.ourPath);
    await second.close();
  });

  it('a leader renewed while suspended leads again on the new session once connected', async () => {
    const [server, client] = scriptedSessions(1);
    const latch = started(client);
    const term = await latch.leadership();
    client.setState('suspended');
    client.renew();
    const again = await latch.leadership({ timeout: 1_000 });
    expect(again.path).not.toBe(term.path);
    expect(server.nodes.get(again.path)!.stat.ephemeralOwner).toBe(client.sessionId);
    expect(server.children('/el')).toHaveLength(1);
    await latch.close();
  });
});

describe('LeaderLatch term lost before it starts (scripted client)', () => {
  it('a term whose link dropped since the listing is never handed out nor announced', async () => {
    vi.useFakeTimers();
    const events = lockEvents();
    const [, client] = scriptedSessions(1);
    const list = client.getChildren.bind(client);
    let first = true;
    client.getChildren = (async (path: string, options?: never) => {
      const children = await list(path, options);
      if (first) {
        first = false;
        client.setState('suspended');
      }
      return children;
    }) as typeof client.getChildren;
    const latch = started(client);
    const waiting = latch.leadership();
    await until(() => !first);
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(latch.hasLeadership).toBe(false);
    client.setState('connected');
    const term = await waiting;
    expect(term.signal.aborted).toBe(false);
    expect(events.filter((e) => e.type.startsWith('leader-'))).toEqual([
      { type: 'leader-gained', lockPath: '/el', node: term.path, reason: undefined },
    ]);
    await latch.close();
  });
});

describe('LeaderLatch right after a loss (scripted client)', () => {
  it('leadership() asked in the same tick as the loss does not hand out the lost term', async () => {
    const [, client] = scriptedSessions(1);
    const latch = started(client);
    const term = await latch.leadership();
    client.setState('suspended');
    expect(latch.hasLeadership).toBe(false);
    await expect(latch.leadership({ timeout: 0 })).rejects.toBeInstanceOf(LockTimeoutError);
    const next = latch.leadership({ timeout: 1_000 });
    client.setState('connected');
    const again = await next;
    expect(again).not.toBe(term);
    expect(again.signal.aborted).toBe(false);
    await latch.close();
  });
});

describe('LeaderLatch timers (scripted client)', () => {
  it('a leadership() answered at once leaves no timer behind', async () => {
    const server = new ScriptedServer();
    const latch = started(server.connect());
    const term = await latch.leadership();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      expect(await latch.leadership({ timeout: 60_000 })).toBe(term);
      // Nothing waits on the shared timer (it stays armed, unref'd, until its time).
      expect(boundsWaiting()).toBe(0);
      await vi.advanceTimersByTimeAsync(60_000);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
    await latch.close();
  });
});
