// Every lock wait ends clean (issue 41): whether it was granted, timed out, aborted, answered at
// once (`timeout: 0`) or cut short by a close, it leaves no deadline timer holding the process
// and no abort listener on the caller's signal. Counted, not assumed: the timers the library arms
// are followed through wrapped setTimeout/clearTimeout (test/support/timer-census.ts) and the
// signal's listeners are read as the runtime sees them, on real Clients of the in-process server.
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { boundsWaiting } from '../../../src/coordination/deadline.js';
import {
  ExclusiveLock,
  LeaderLatch,
  LockTimeoutError,
  MultiLock,
  Mutex,
  ReadWriteLock,
  Semaphore,
  SemaphoreMutex,
} from '../../../src/locks/index.js';
import { startServer, type TestServer } from '../../../src/testing/index.js';
import { timerCensus } from '../../support/timer-census.js';
import { until } from '../../support/wait.js';

const open: { close(): Promise<void> }[] = [];
let census: ReturnType<typeof timerCensus> | undefined;

afterEach(async () => {
  census?.stop();
  census = undefined;
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
});

interface World {
  readonly server: TestServer;
  readonly subject: Client;
  readonly other: Client;
}

async function world(): Promise<World> {
  const server = await startServer({ listen: false });
  open.push(server);
  const connect = async (name: string) => {
    const client = await Client.connect(server.connectString, {
      transport: server.transportFor(name),
    });
    open.push(client);
    return client;
  };
  return { server, subject: await connect('subject'), other: await connect('other') };
}

type Bounds = { timeout?: number; signal?: AbortSignal };

/** One kind of lock wait: the subject's wait, and how the other session gets in its way. */
interface WaitKind {
  readonly name: string;
  /** The other session holds what the subject waits for; resolves with how it lets go. */
  block(other: Client, path: string): Promise<() => Promise<unknown>>;
  /** The subject's waiter: `wait(bounds)` is the wait; `done()` gives back what it won. */
  waiter(subject: Client, path: string): Promise<Waiter>;
}

interface Waiter {
  wait(bounds: Bounds): Promise<unknown>;
  done(): Promise<unknown>;
}

type Lockish = { acquire(bounds?: Bounds): Promise<{ release(): Promise<void> }> };

/** A lock's wait: `make` builds the lock on a client; the other session holds its own. */
function lockKind(name: string, make: (client: Client, path: string) => Lockish): WaitKind {
  return {
    name,
    async block(other, path) {
      const lease = await make(other, path).acquire();
      return () => lease.release();
    },
    async waiter(subject, path) {
      const lock = make(subject, path);
      const won: { release(): Promise<void> }[] = [];
      return {
        wait: async (bounds) => won.push(await lock.acquire(bounds)),
        done: () => Promise.all(won.map((lease) => lease.release())),
      };
    },
  };
}

const KINDS: readonly WaitKind[] = [
  lockKind('Mutex', (client, path) => new Mutex(client, path)),
  lockKind('ReadWriteLock write side', (client, path) => new ReadWriteLock(client, path).write),
  lockKind('Semaphore', (client, path) => new Semaphore(client, path, { maxLeases: 1 })),
  lockKind('SemaphoreMutex', (client, path) => new SemaphoreMutex(client, path)),
  lockKind('ExclusiveLock', (client, path) => new ExclusiveLock(client, path)),
  lockKind(
    'MultiLock',
    (client, path) =>
      new MultiLock([new Mutex(client, `${path}/a`), new Mutex(client, `${path}/b`)]),
  ),
  {
    name: 'LeaderLatch.leadership',
    async block(other, path) {
      const leader = new LeaderLatch(other, path);
      await leader.start();
      return () => leader.close();
    },
    async waiter(subject, path) {
      const latch = new LeaderLatch(subject, path);
      await latch.start();
      return { wait: (bounds) => latch.leadership(bounds), done: () => latch.close() };
    },
  },
];

let paths = 0;

/**
 * Runs one wait of `kind` to its end (`end` makes it end: lets it through, aborts it, ...) and
 * says what it left: the library's timers that hold the process, the signal's listeners, the
 * bounds still on a timer.
 */
async function leftBehind(
  kind: WaitKind,
  bounds: (signal: AbortSignal) => Bounds,
  end: (ctx: {
    letGo: () => Promise<unknown>;
    abort: AbortController;
    w: World;
    /** Whether the wait has settled (its outcome reached the caller). */
    settled: () => boolean;
  }) => Promise<void>,
) {
  const w = await world();
  const path = `/clean-${++paths}`;
  const letGo = await kind.block(w.other, path);
  const waiter = await kind.waiter(w.subject, path);
  const abort = new AbortController();
  census = timerCensus();
  const boundsBefore = boundsWaiting();
  const started = performance.now();
  let settledAfter = Number.NaN;
  const outcome = waiter.wait(bounds(abort.signal)).then(
    () => 'granted',
    (error: unknown) => error,
  );
  outcome.then(() => {
    settledAfter = performance.now() - started;
  });
  await end({ letGo, abort, w, settled: () => !Number.isNaN(settledAfter) });
  const result = await outcome;
  await waiter.done().catch(() => {});
  const left = {
    result,
    holding: census.holding(),
    listeners: getEventListeners(abort.signal, 'abort').length,
    bounds: boundsWaiting() - boundsBefore,
  };
  await letGo().catch(() => {});
  return { ...left, settledAfter };
}

/**
 * Until the subject's first requests have been answered (a sync goes after them on the session):
 * the wait is under way. What the checks assert holds however far it got.
 */
async function waiting(w: World): Promise<void> {
  await w.subject.sync('/');
}

/** What a wait left: nothing, whatever its outcome. */
const NOTHING = { holding: [], listeners: 0, bounds: 0 };

function leftOf(left: { holding: string[]; listeners: number; bounds: number }) {
  return { holding: left.holding, listeners: left.listeners, bounds: left.bounds };
}

describe.each(KINDS)('$name: a wait that ends leaves nothing behind', (kind) => {
  it('granted: no timer holds the process, no listener on the signal', async () => {
    const left = await leftBehind(
      kind,
      (signal) => ({ timeout: 60_000, signal }),
      async ({ letGo, w }) => {
        await waiting(w);
        await letGo();
      },
    );
    expect(left.result).toBe('granted');
    expect(leftOf(left)).toEqual(NOTHING);
  });

  it.each([
    ['timed out: a TIMEOUT at its time', 30],
    ['timeout 0: answered at once with a TIMEOUT of 0', 0],
  ])('%s, then nothing left', async (_, timeout) => {
    const left = await leftBehind(
      kind,
      (signal) => ({ timeout, signal }),
      async () => {},
    );
    expect(left.result).toBeInstanceOf(LockTimeoutError);
    expect((left.result as LockTimeoutError).timeout).toBe(timeout);
    // Never before its time (how late it may be under load is measured in bench/, not here).
    expect(left.settledAfter).toBeGreaterThanOrEqual(timeout);
    expect(leftOf(left)).toEqual(NOTHING);
  });

  it("aborted: the signal's reason at once, then nothing left", async () => {
    const reason = new Error('the caller gave up');
    let settledBeforeATimer = false;
    const left = await leftBehind(
      kind,
      (signal) => ({ timeout: 60_000, signal }),
      async ({ abort, w, settled }) => {
        await waiting(w);
        // The server's replies to the subject come late: only the bound itself can answer the
        // caller before a timer armed at the abort runs (the delayed replies' timers come later).
        w.server.delayReplies(200, { client: 'subject' });
        abort.abort(reason);
        await new Promise((resolve) => setTimeout(resolve, 0));
        settledBeforeATimer = settled();
        w.server.delayReplies(0, { client: 'subject' });
      },
    );
    expect(left.result).toBe(reason);
    expect(settledBeforeATimer).toBe(true);
    expect(leftOf(left)).toEqual(NOTHING);
  });

  it('closed: the client closes under the wait, which ends, leaving nothing', async () => {
    const left = await leftBehind(
      kind,
      (signal) => ({ timeout: 60_000, signal }),
      async ({ w }) => {
        await waiting(w);
        await w.subject.close();
      },
    );
    expect(left.result).toBeInstanceOf(Error);
    expect(left.result).not.toBeInstanceOf(LockTimeoutError);
    expect(leftOf(left)).toEqual(NOTHING);
  });
});

it('the census sees a timer the library leaves holding the process (the check can fail)', async () => {
  // A bound put on the timer and never ended: what a wait that forgot to end would leave.
  const { Deadlines, startBound } = await import('../../../src/coordination/deadline.js');
  census = timerCensus();
  const bound = startBound(new Deadlines(), 60_000, undefined, () => new Error('unused'));
  expect(census.holding()).toHaveLength(1);
  bound.end();
  expect(census.holding()).toEqual([]);
  await until(() => true);
});
