// The shared watcher map (src/locks/watchers.ts): an entry lives while the client holds its
// closure (a read set the watch) or a wait is in progress, never longer. A wait that set no watch
// (the node was gone, the link broke, the wait was given up) must leave nothing behind.
import { describe, expect, it } from 'vitest';
import type { Client } from '../../../src/client/client.js';
import type { WatchedEvent } from '../../../src/client/types.js';
import { waitForChange } from '../../../src/coordination/wait.js';
import { dataWatchKey, joinWatcher, watchedKeyCount } from '../../../src/coordination/watchers.js';
import type { LockClient } from '../../../src/locks/types.js';
import { makeError } from '../../../src/protocol/errors.js';

/** Resolves after the event loop has gone round once: every microtask queued before has run. */
const oneTurn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A client whose getData answers as `answer` says, after a turn of the event loop; `answered()`
 * resolves a turn after the last reply was delivered (whatever the reply set off has run).
 */
function clientAnswering(
  answer: () => 'ok' | 'NONODE' | 'CONNECTIONLOSS',
): LockClient & { answered(): Promise<unknown> } {
  let last: Promise<unknown> = Promise.resolve();
  const getData = ((path: string) => {
    const reply = new Promise((resolve, reject) =>
      setImmediate(() => {
        const outcome = answer();
        if (outcome === 'ok') resolve({ data: new Uint8Array(), stat: {} });
        else reject(makeError(outcome, `${outcome} for ${path}`, { path }));
      }),
    );
    last = reply.then(oneTurn, oneTurn);
    return reply;
  }) as unknown as Client['getData'];
  return { getData, answered: () => last } as unknown as LockClient & {
    answered(): Promise<unknown>;
  };
}

const noop = (_event: WatchedEvent) => {};

describe('joinWatcher', () => {
  it('wakes each wait in it once per event, not one that left; a wait joined meanwhile waits for the next', () => {
    const client = {} as LockClient;
    const heard: string[] = [];
    const event: WatchedEvent = { type: 'NodeDeleted', path: '/n' };
    const waiter = (name: string) => (e: WatchedEvent) => heard.push(`${name}:${e.type}`);
    const [a, b, c] = [waiter('a'), waiter('b'), waiter('c')];
    let late: ReturnType<typeof joinWatcher> | undefined;
    const d = (e: WatchedEvent) => {
      heard.push(`d:${e.type}`);
      // Joins again while the event is delivered: not woken by this one.
      late = joinWatcher(client, 'getData:/n', a);
    };
    const ma = joinWatcher(client, 'getData:/n', a);
    joinWatcher(client, 'getData:/n', b);
    joinWatcher(client, 'getData:/n', a); // the same wake twice is woken once
    const mc = joinWatcher(client, 'getData:/n', c);
    joinWatcher(client, 'getData:/n', d);
    mc.leave();
    ma.armed();
    ma.watcher(event);
    expect(heard.sort()).toEqual(['a:NodeDeleted', 'b:NodeDeleted', 'd:NodeDeleted']);
    // The one that joined during delivery has a fresh entry, and hears the next event alone.
    heard.length = 0;
    late!.armed();
    late!.watcher({ type: 'NodeCreated', path: '/n' });
    expect(heard).toEqual(['a:NodeCreated']);
    // The first wait left, the second stays: only the second is woken.
    heard.length = 0;
    const m1 = joinWatcher(client, 'getData:/m', a);
    const m2 = joinWatcher(client, 'getData:/m', b);
    m1.leave();
    m2.watcher(event);
    expect(heard).toEqual(['b:NodeDeleted']);
  });

  it('keeps an entry while its first wait remains, after a later one left', () => {
    const client = {} as LockClient;
    const first = joinWatcher(client, 'getData:/stay', noop);
    const second = joinWatcher(client, 'getData:/stay', () => {});
    second.leave();
    // Never armed, but the first wait is still in it: a new wait shares the same closure.
    const third = joinWatcher(client, 'getData:/stay', () => {});
    expect(third.watcher).toBe(first.watcher);
    expect(watchedKeyCount(client)).toBe(1);
    first.leave();
    third.leave();
    expect(watchedKeyCount(client)).toBe(0);
  });

  it("never lets an older watcher's late news drop or replace the entry of the newer one", () => {
    const client = {} as LockClient;
    // A wait given up before its read came back: the entry goes with it.
    const stale = joinWatcher(client, 'getData:/n', noop);
    stale.leave();
    const current = joinWatcher(client, 'getData:/n', () => {});
    // Leaving the old one again does not drop the newer entry.
    stale.leave();
    expect(joinWatcher(client, 'getData:/n', () => {}).watcher).toBe(current.watcher);
    // The given-up read comes back and set the watch: the newer entry stays the one shared.
    stale.armed();
    expect(joinWatcher(client, 'getData:/n', () => {}).watcher).toBe(current.watcher);
    // The old closure fires (the client held it): the newer entry is not dropped.
    stale.watcher({ type: 'NodeDataChanged', path: '/n' });
    expect(joinWatcher(client, 'getData:/n', () => {}).watcher).toBe(current.watcher);
    expect(watchedKeyCount(client)).toBe(1);
  });

  it('counts no watched key for a client that never watched', () => {
    expect(watchedKeyCount({} as LockClient)).toBe(0);
  });

  it('forgets an entry whose watch was never set once its last waiter leaves', () => {
    const client = {} as LockClient;
    const first = joinWatcher(client, 'getData:/gone', noop);
    first.leave();
    const second = joinWatcher(client, 'getData:/gone', noop);
    // A fresh closure: the old entry is gone from the map.
    expect(second.watcher).not.toBe(first.watcher);
    second.leave();
  });

  it('keeps an entry whose watch is set (the client holds its closure) for later waits to share', () => {
    const client = {} as LockClient;
    const first = joinWatcher(client, 'getData:/held', noop);
    first.armed();
    first.leave();
    const second = joinWatcher(client, 'getData:/held', noop);
    expect(second.watcher).toBe(first.watcher);
    second.leave();
  });

  it('keeps the entries of several keys on one client apart, whichever key came first', () => {
    const client = {} as LockClient;
    const a = joinWatcher(client, dataWatchKey('/a'), () => {});
    const b = joinWatcher(client, dataWatchKey('/b'), () => {});
    const c = joinWatcher(client, dataWatchKey('/c'), () => {});
    expect(new Set([a.watcher, b.watcher, c.watcher]).size).toBe(3);
    expect(watchedKeyCount(client)).toBe(3);
    // The first key's entry goes; the others are still found and shared.
    a.leave();
    expect(watchedKeyCount(client)).toBe(2);
    const b2 = joinWatcher(client, dataWatchKey('/b'), () => {});
    expect(b2.watcher).toBe(b.watcher);
    expect(joinWatcher(client, dataWatchKey('/c'), () => {}).watcher).toBe(c.watcher);
    // A new key takes the free place; the first key comes back with a fresh closure.
    const d = joinWatcher(client, dataWatchKey('/d'), () => {});
    const a2 = joinWatcher(client, dataWatchKey('/a'), () => {});
    expect(a2.watcher).not.toBe(a.watcher);
    expect(watchedKeyCount(client)).toBe(4);
    // A key's watch fires: its entry goes, the others stay, and its next wait registers afresh.
    b.armed();
    b.watcher({ type: 'NodeDeleted', path: '/b' });
    expect(watchedKeyCount(client)).toBe(3);
    expect(joinWatcher(client, dataWatchKey('/d'), () => {}).watcher).toBe(d.watcher);
    const b3 = joinWatcher(client, dataWatchKey('/b'), () => {});
    expect(b3.watcher).not.toBe(b.watcher);
    // An older closure of a key, armed late and fired, leaves the newer entry alone.
    a.armed();
    a.watcher({ type: 'NodeDataChanged', path: '/a' });
    expect(joinWatcher(client, dataWatchKey('/a'), () => {}).watcher).toBe(a2.watcher);
    expect(watchedKeyCount(client)).toBe(4);
  });

  it('keeps an entry while another wait is still in it', () => {
    const client = {} as LockClient;
    // Distinct wake functions: each wait is its own member.
    const first = joinWatcher(client, 'getData:/busy', () => {});
    const second = joinWatcher(client, 'getData:/busy', () => {});
    first.leave();
    const third = joinWatcher(client, 'getData:/busy', () => {});
    expect(third.watcher).toBe(second.watcher);
    second.leave();
    third.leave();
  });
});

describe('waitForChange leaves nothing behind', () => {
  for (const outcome of ['NONODE', 'CONNECTIONLOSS'] as const) {
    it(`when getData answers ${outcome} (no watch set)`, async () => {
      const client = clientAnswering(() => outcome);
      const before = joinWatcher(client, dataWatchKey('/n'), noop);
      before.leave();
      for (let i = 0; i < 1_000; i++) await waitForChange(client, '/n', undefined);
      const after = joinWatcher(client, dataWatchKey('/n'), noop);
      expect(after.watcher).not.toBe(before.watcher);
      after.leave();
    });
  }

  it('when the wait is given up before the reply, and the reply then says the node is gone', async () => {
    const client = clientAnswering(() => 'NONODE');
    const controller = new AbortController();
    const waiting = waitForChange(client, '/m', controller.signal);
    const probe = joinWatcher(client, dataWatchKey('/m'), noop);
    controller.abort(new Error('given up'));
    await expect(waiting).rejects.toThrow('given up');
    probe.leave();
    await client.answered(); // the reply comes: NONODE
    const after = joinWatcher(client, dataWatchKey('/m'), noop);
    expect(after.watcher).not.toBe(probe.watcher);
    after.leave();
  });

  it("but keeps the closure when a given-up wait's read did set the watch", async () => {
    const client = clientAnswering(() => 'ok');
    const controller = new AbortController();
    const waiting = waitForChange(client, '/k', controller.signal);
    const probe = joinWatcher(client, dataWatchKey('/k'), noop);
    controller.abort(new Error('given up'));
    await expect(waiting).rejects.toThrow('given up');
    probe.leave();
    await client.answered(); // the reply comes: the watch is set
    const after = joinWatcher(client, dataWatchKey('/k'), noop);
    // The client holds the closure: a later wait must share it, not add a second one.
    expect(after.watcher).toBe(probe.watcher);
    after.leave();
  });
});
