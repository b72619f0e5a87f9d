// LeaderObserver on the real server: who leads a LeaderLatch election (Curator's LeaderLatch
// layout) or a LeaderSelector one (its mutex nodes), told at each change, with no node of its own
// and one watch (the leader's node); across a reconnect and a renewal of the observer's session.
import { afterEach, describe, expect, it } from 'vitest';
import { type Client, ClosedError } from '../../../src/index.js';
import {
  LeaderLatch,
  LeaderObserver,
  Mutex,
  type ObservedLeader,
} from '../../../src/locks/index.js';
import { stateReached, takeSessionAway } from '../../support/integration.js';
import { lockPath, newClient, proxiedClient, until, watchesByPath } from './helpers.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

function latch(zk: Client, path: string, id: string): LeaderLatch {
  const started = new LeaderLatch(zk, path, { id });
  closers.push(() => started.close());
  void started.start();
  return started;
}

function observer(zk: Client, path: string, election?: 'latch' | 'selector'): LeaderObserver {
  const made = new LeaderObserver(zk, path, election ? { election } : {});
  closers.push(() => made.close());
  return made;
}

/** Reads the next value of `it` within `ms`. */
async function next<T>(it: AsyncIterator<T>, ms = 15_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no value within ${ms} ms`)), ms);
  });
  try {
    const result = await Promise.race([it.next(), timeout]);
    if (result.done) throw new Error('the stream ended');
    return result.value;
  } finally {
    clearTimeout(timer);
  }
}

const ids = (leader: ObservedLeader | null) => leader?.id ?? null;

/**
 * `client` with its watching reads counted: `watches` (getChildren, getData, exists calls that set
 * a watch, by kind) and `wakes` (watch events delivered to the recipe).
 */
function counted(client: Client): {
  client: Client;
  watches: Record<string, number>;
  wakes: { count: number };
} {
  const watches: Record<string, number> = {};
  const wakes = { count: 0 };
  const wrapped = new Proxy(client, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (key !== 'getChildren' && key !== 'getData' && key !== 'exists') {
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (path: string, options: { watch?: (event: unknown) => void } = {}) => {
        const { watch } = options;
        if (!watch) return (value as (...args: unknown[]) => unknown).call(target, path, options);
        watches[key] = (watches[key] ?? 0) + 1;
        const counting = (event: unknown) => {
          wakes.count++;
          watch(event);
        };
        return (value as (...args: unknown[]) => unknown).call(target, path, {
          ...options,
          watch: counting,
        });
      };
    },
  });
  return { client: wrapped, watches, wakes };
}

/**
 * A leads and B is in line on a fresh election `name`; an observer on a proxied client (session
 * of `sessionTimeout`) has started and listens to the changes.
 */
async function observedHandover(name: string, sessionTimeout: number) {
  const [a, b] = [await newClient(), await newClient()];
  const { client: o, proxy } = await proxiedClient({ sessionTimeout });
  const path = lockPath(name);
  const first = latch(a, path, 'A');
  await first.leadership({ timeout: 10_000 });
  latch(b, path, 'B');
  const watching = observer(o, path);
  await watching.start({ timeout: 10_000 });
  return { b, o, proxy, path, first, watching, changes: watching.events() };
}

describe('LeaderObserver', () => {
  it('tells who leads a latch election and each change, with one watch and no node of its own', async () => {
    const [a, b, c, o] = [
      await newClient(),
      await newClient(),
      await newClient(),
      await newClient(),
    ];
    const path = lockPath('election');
    const first = latch(a, path, 'A');
    await first.leadership({ timeout: 10_000 });
    latch(b, path, 'B');
    const seen = counted(o);
    const watching = observer(seen.client, path);
    await watching.start({ timeout: 10_000 });
    expect(watching.leader).toMatchObject({ id: 'A', path: expect.stringContaining(`${path}/`) });
    const leaders = watching.leaders();
    expect(ids(await next(leaders))).toBe('A');

    // A candidate joining behind the leader: the observer's one watch stays on the leader's node.
    expect(seen.watches).toEqual({ getData: 1 });
    const third = latch(c, path, 'C');
    await until(async () => (await o.getChildren(path)).length === 3, 'the third candidate');
    // Events come before the reply to a later request: after this sync, any wake has happened.
    await o.sync(path);
    await o.getChildren(path);
    expect(seen.wakes.count).toBe(0);
    expect(seen.watches).toEqual({ getData: 1 });
    const watches = await watchesByPath(path);
    const mine = [...watches].filter(([, sessions]) => sessions.includes(o.sessionId));
    expect(mine.map(([node]) => node)).toEqual([watching.leader!.path]);
    expect(await o.getEphemerals(path)).toEqual([]);

    await first.close();
    expect(ids(await next(leaders))).toBe('B');
    expect(watching.leader?.id).toBe('B');
    await b.close();
    expect(ids(await next(leaders))).toBe('C');
    await third.close();
    expect(await next(leaders)).toBeNull();
    expect(watching.leader).toBeNull();
    // The next candidate of an empty election leads, and is told.
    latch(a, path, 'A2');
    expect(ids(await next(leaders))).toBe('A2');
  });

  it("follows a LeaderSelector election (Curator's LeaderSelector layout: mutex nodes with the id as data)", async () => {
    const [a, b, o] = [await newClient(), await newClient(), await newClient()];
    const path = lockPath('selector');
    // A LeaderSelector leads while its Mutex node is first; the node holds the participant id.
    const leaseA = await new Mutex(a, path, { data: 'alpha' }).acquire();
    const waitingB = new Mutex(b, path, { data: 'beta' }).acquire({ timeout: 15_000 });
    const watching = observer(o, path, 'selector');
    await watching.start({ timeout: 10_000 });
    const leaders = watching.leaders();
    expect(ids(await next(leaders))).toBe('alpha');
    // The latch layout's observer sees no candidates on these nodes.
    const latchView = observer(o, path);
    await latchView.start({ timeout: 10_000 });
    expect(latchView.leader).toBeNull();
    await leaseA.release();
    expect(ids(await next(leaders))).toBe('beta');
    await (await waitingB).release();
    expect(await next(leaders)).toBeNull();
  });

  it('starts on an election whose path does not exist yet, and sees it created', async () => {
    const [a, o] = [await newClient(), await newClient()];
    const path = lockPath('later');
    const watching = observer(o, path);
    await watching.start({ timeout: 10_000 });
    expect(watching.leader).toBeNull();
    const changes = watching.events();
    latch(a, path, 'first');
    expect(ids(await next(changes))).toBe('first');
  });

  it('a change made while the link is down is told once the observer is back (reconnect)', async () => {
    const { o, proxy, first, changes, watching } = await observedHandover('reconnect', 10_000);
    proxy.refuse(true);
    proxy.cut();
    await stateReached(o, 'suspended', 15_000);
    await first.close();
    expect(watching.leader?.id).toBe('A');
    proxy.refuse(false);
    expect(ids(await next(changes))).toBe('B');
    expect(o.sessionId).not.toBe(0n);
  });

  it('looks again on the new session after a renewal, and tells the change made meanwhile', async () => {
    const { b, o, proxy, path, first, changes } = await observedHandover('renewal', 4_000);
    const oldSession = o.sessionId;
    const thief = await takeSessionAway(o, proxy, { keepAlive: true });
    await thief.close();
    await first.close();
    proxy.refuse(false);
    expect(ids(await next(changes, 30_000))).toBe('B');
    expect(o.sessionId).not.toBe(oldSession);
    // Still following on the new session.
    const third = await newClient();
    latch(third, path, 'C');
    await b.close();
    expect(ids(await next(changes))).toBe('C');
  });

  it('close() ends its streams and is idempotent; start() after close() and a start() that times out reject', async () => {
    const o = await newClient();
    const path = lockPath('lifecycle');
    const watching = new LeaderObserver(o, path);
    await watching.start({ timeout: 10_000 });
    const leaders = watching.leaders();
    expect(await next(leaders)).toBeNull();
    const pending = leaders.next();
    const closing = watching.close();
    expect(watching.close()).toBe(closing);
    await closing;
    expect(await pending).toEqual({ value: undefined, done: true });
    await expect(watching.start()).rejects.toMatchObject({ code: 'CLOSED' });

    const { client: cut, proxy } = await proxiedClient({ sessionTimeout: 4_000 });
    proxy.refuse(true);
    proxy.cut();
    await until(() => cut.state === 'suspended', 'the cut', 15_000);
    const stalled = observer(cut, path);
    await expect(stalled.start({ timeout: 200 })).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(() => new LeaderObserver(o, 'relative')).toThrow(/invalid path/);
  });

  it('a start() still waiting for its first look rejects with ClosedError at close() (it hung)', async () => {
    const path = lockPath('close-while-starting');
    const { client: cut, proxy } = await proxiedClient({ sessionTimeout: 4_000 });
    proxy.refuse(true);
    proxy.cut();
    await until(() => cut.state === 'suspended', 'the cut', 15_000);
    const stalled = new LeaderObserver(cut, path);
    const starting = stalled.start();
    const second = stalled.start();
    await stalled.close();
    await expect(starting).rejects.toBeInstanceOf(ClosedError);
    await expect(second).rejects.toMatchObject({ code: 'CLOSED', path });
  });
});
