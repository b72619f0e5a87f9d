// The lock engine driven through a RecipeClient's public calls (the calls seam): a wrapper client
// whose replies come in another order than the requests, whose reads fail, whose calls throw,
// and what the engine passes to each call. Against the scripted client (scripted-client.ts).
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { WatchedEvent } from '../../../src/client/types.js';
import { Mutex } from '../../../src/locks/index.js';
import { until } from '../../support/wait.js';
import { type ScriptedClient, type ScriptedServer, scriptedSessions } from './scripted-client.js';

/** Resolves once the event loop has gone round: every microtask queued before has run. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

afterEach(() => {
  vi.useRealTimers();
});

const DIR = '/e';

/** A gate: `wait` resolves once `open` is called. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

/** A holder `a` and a second session `b` on one scripted tree with the lock directory made. */
async function twoClients(): Promise<{
  server: ScriptedServer;
  a: ScriptedClient;
  b: ScriptedClient;
}> {
  const [server, a] = scriptedSessions(1);
  const b = server.connect();
  await a.create2(DIR);
  return { server, a, b };
}

describe('replies out of order (a wrapper RecipeClient)', () => {
  it('takes the lock from the early listing when the create is answered after it', async () => {
    const { b } = await twoClients();
    const create = b.create2.bind(b);
    const listed = gate();
    const list = b.getChildren.bind(b);
    b.getChildren = ((...args: Parameters<typeof list>) =>
      list(...args).finally(() => listed.open())) as typeof b.getChildren;
    // The create is applied at once; its answer comes only after the listing's.
    b.create2 = (async (...args: Parameters<typeof create>) => {
      const created = await create(...args);
      await listed.wait;
      await nextTurn(); // after the listing's answer has been handled
      return created;
    }) as typeof b.create2;
    const lease = await new Mutex(b, DIR).acquire({ timeout: 2_000 });
    expect(b.requests().map((r) => r.op)).toEqual(['create2', 'getChildren']);
    expect(lease.path.startsWith(`${DIR}/_c_`)).toBe(true);
  });

  it('lists again when the early listing failed and the create is answered after it', async () => {
    const { server, b } = await twoClients();
    server.fail({ op: 'getChildren', code: 'CONNECTIONLOSS' });
    const create = b.create2.bind(b);
    b.create2 = (async (...args: Parameters<typeof create>) => {
      const created = await create(...args);
      await nextTurn(); // after the early listing's failure has been handled
      return created;
    }) as typeof b.create2;
    const lease = await new Mutex(b, DIR).acquire({ timeout: 2_000 });
    expect(b.requests().map((r) => `${r.op} ${r.outcome}`)).toEqual([
      'create2 ok',
      'getChildren CONNECTIONLOSS',
      'getChildren ok',
    ]);
    expect(server.children(DIR)).toEqual([lease.path.slice(DIR.length + 1)]);
  });

  it('a watch that fires before its getData is answered: lists once that answer is in, and takes the lock', async () => {
    const { a, b } = await twoClients();
    const held = await new Mutex(a, DIR).acquire();
    const answer = gate();
    const read = b.getData.bind(b);
    b.getData = (async (...args: Parameters<typeof read>) => {
      const value = await read(...args);
      await answer.wait;
      return value;
    }) as typeof b.getData;
    const waiting = new Mutex(b, DIR).acquire({ timeout: 5_000 });
    await until(() => b.requests({ op: 'getData' }).length === 1, "b's getData");
    vi.useFakeTimers();
    await held.release(); // the watch set by that getData fires now
    // A faked second passes at once: whatever the wake-up does before the answer has happened.
    await vi.advanceTimersByTimeAsync(1_000);
    vi.useRealTimers();
    expect(b.requests({ op: 'getChildren' })).toHaveLength(1); // not before the answer
    answer.open();
    const lease = await waiting;
    expect(b.requests({ op: 'getChildren' })).toHaveLength(2);
    expect(lease.released).toBe(false);
  });
});

describe('failed reads while waiting (a RecipeClient through its calls)', () => {
  it('a getData that fails otherwise than NONODE or a lost link ends the acquire with that error and removes the node', async () => {
    const { server, a, b } = await twoClients();
    const held = await new Mutex(a, DIR).acquire();
    server.fail({ op: 'getData', session: b.sessionId, code: 'NOAUTH' });
    await expect(new Mutex(b, DIR).acquire({ timeout: 2_000 })).rejects.toMatchObject({
      code: 'NOAUTH',
    });
    expect(server.children(DIR)).toEqual([held.path.slice(DIR.length + 1)]);
  });

  it('a getData that lost its link lists again and keeps waiting', async () => {
    const { server, a, b } = await twoClients();
    const held = await new Mutex(a, DIR).acquire();
    server.fail({ op: 'getData', session: b.sessionId, code: 'CONNECTIONLOSS' });
    const waiting = new Mutex(b, DIR).acquire({ timeout: 2_000 });
    await until(() => b.requests({ op: 'getData' }).length === 2, "b's second getData");
    expect(b.requests().map((r) => `${r.op} ${r.outcome}`)).toEqual([
      'create2 ok',
      'getChildren ok',
      'getData CONNECTIONLOSS',
      'getChildren ok',
      'getData ok',
    ]);
    await held.release();
    expect((await waiting).released).toBe(false);
  });

  it('a listing after the wake that fails for good ends the acquire with its error and removes the node', async () => {
    const { server, a, b } = await twoClients();
    const held = await new Mutex(a, DIR).acquire();
    const waiting = new Mutex(b, DIR).acquire({ timeout: 2_000 });
    waiting.catch(() => {});
    await until(() => b.requests({ op: 'getData' }).length === 1, "b's getData");
    server.fail({ op: 'getChildren', session: b.sessionId, code: 'NOAUTH' });
    await held.release();
    await expect(waiting).rejects.toMatchObject({ code: 'NOAUTH' });
    expect(server.children(DIR)).toEqual([]);
  });

  it('a listing after the wake that is refused for a while is sent again after a pause', async () => {
    const { server, a, b } = await twoClients();
    const held = await new Mutex(a, DIR).acquire();
    const waiting = new Mutex(b, DIR).acquire({ timeout: 2_000 });
    await until(() => b.requests({ op: 'getData' }).length === 1, "b's getData");
    server.fail({ op: 'getChildren', session: b.sessionId, code: 'THROTTLEDOP' });
    await held.release();
    const lease = await waiting;
    expect(b.requests({ op: 'getChildren' }).map((r) => r.outcome)).toEqual([
      'ok',
      'THROTTLEDOP',
      'ok',
    ]);
    expect(server.children(DIR)).toEqual([lease.path.slice(DIR.length + 1)]);
  });
});

describe('what the calls seam passes and how it reads a call', () => {
  it('sends the create, the listings and the getData without a signal: the acquire’s bound ends the attempt', async () => {
    const { a, b } = await twoClients();
    const held = await new Mutex(a, DIR).acquire();
    const signals: Record<string, unknown[]> = { create2: [], getChildren: [], getData: [] };
    const create = b.create2.bind(b);
    const list = b.getChildren.bind(b);
    const read = b.getData.bind(b);
    b.create2 = ((path: string, data: never, options: { signal?: AbortSignal; mode?: never }) => {
      signals.create2!.push(options.signal);
      return create(path, data, options);
    }) as typeof b.create2;
    b.getChildren = ((path: string, options: { signal?: AbortSignal; watch?: never } = {}) => {
      signals.getChildren!.push(options.signal);
      return list(path, options);
    }) as typeof b.getChildren;
    b.getData = ((
      path: string,
      options: { signal?: AbortSignal; watch?: (e: WatchedEvent) => void },
    ) => {
      signals.getData!.push(options.signal);
      return read(path, options);
    }) as typeof b.getData;
    const controller = new AbortController();
    const waiting = new Mutex(b, DIR).acquire({ signal: controller.signal });
    await until(() => signals.getData!.length === 1, "b's getData");
    await held.release();
    await (await waiting).release();
    const all = [...signals.create2!, ...signals.getChildren!, ...signals.getData!];
    expect(all.length).toBeGreaterThanOrEqual(4);
    for (const signal of all) expect(signal).toBeUndefined();
    // And the signal still aborts a wait at once.
    const again = await new Mutex(a, DIR).acquire();
    const stop = new AbortController();
    const aborted = new Mutex(b, DIR).acquire({ signal: stop.signal });
    await until(() => signals.getData!.length === 2, "b's second getData");
    stop.abort(new Error('stop'));
    await expect(aborted).rejects.toThrow('stop');
    await again.release();
  });

  it('a call that throws at once ends the acquire with that error, as a rejection', async () => {
    const { server, b } = await twoClients();
    b.getChildren = (() => {
      throw new Error('wrapper broke');
    }) as typeof b.getChildren;
    await expect(new Mutex(b, DIR).acquire({ timeout: 2_000 })).rejects.toThrow('wrapper broke');
    expect(server.children(DIR)).toEqual([]);
  });

  it('a call that rejects with a non-Error ends the acquire with an Error carrying it', async () => {
    const { b } = await twoClients();
    const create = b.create2.bind(b);
    b.create2 = (async (...args: Parameters<typeof create>) => {
      await create(...args);
      throw 'not an error object';
    }) as typeof b.create2;
    await expect(new Mutex(b, DIR).acquire({ timeout: 2_000 })).rejects.toThrow(
      'not an error object',
    );
  });

  it('an abort at the instant a rare step’s listing is answered ends the acquire with the reason, not a lease', async () => {
    const [server, b] = scriptedSessions(1); // the lock path is missing: the first create takes the rare step
    const controller = new AbortController();
    const list = b.getChildren.bind(b);
    let listings = 0;
    b.getChildren = ((...args: Parameters<typeof list>) => {
      const answer = list(...args);
      // The rare step's own listing (after the parents were made): the caller gives up as it
      // is answered.
      if (++listings === 2) controller.abort(new Error('stop'));
      return answer;
    }) as typeof b.getChildren;
    await expect(new Mutex(b, DIR).acquire({ signal: controller.signal })).rejects.toThrow('stop');
    expect(listings).toBe(2);
    expect(server.children(DIR)).toEqual([]);
  });
});
