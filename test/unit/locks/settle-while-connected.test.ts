// Cleanup after a failed or given-up acquire waits for its deletes only while the client is
// connected (src/coordination/nodes.ts, settleWhileConnected): a link that drops, and may never come
// back, must not hold the caller; the task's failure is never passed on.
import { describe, expect, it } from 'vitest';
import { settleWhileConnected } from '../../../src/coordination/nodes.js';
import type { LockClient } from '../../../src/locks/types.js';

/** A client whose state the test sets, with the state listeners it has. */
function clientIn(initial: string) {
  const listeners = new Set<(state: string) => void>();
  const client = {
    state: initial,
    on(event: string, listener: (state: string) => void) {
      expect(event).toBe('state');
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return {
    client: client as unknown as LockClient,
    listeners,
    become(state: string) {
      client.state = state;
      for (const listener of [...listeners]) listener(state);
    },
  };
}

/** A task the test settles. */
function task() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Whether `promise` has settled after the microtasks queued now have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return done;
}

describe('settleWhileConnected', () => {
  for (const state of ['suspended', 'connecting', 'expired', 'closed']) {
    it(`does not wait at all while the client is ${state}`, async () => {
      const c = clientIn(state);
      const t = task();
      expect(await settled(settleWhileConnected(c.client, t.promise))).toBe(true);
      expect(c.listeners.size).toBe(0);
      t.reject(new Error('late failure: never passed on'));
    });
  }

  for (const state of ['connected', 'connected-readonly']) {
    it(`waits for the task while ${state}, and passes no failure on`, async () => {
      const c = clientIn(state);
      const t = task();
      const waiting = settleWhileConnected(c.client, t.promise);
      expect(await settled(waiting)).toBe(false);
      // Another connected state (a move to a read-write server) keeps it waiting.
      c.become(state === 'connected' ? 'connected-readonly' : 'connected');
      expect(await settled(waiting)).toBe(false);
      t.reject(new Error('the delete failed'));
      await expect(waiting).resolves.toBeUndefined();
      expect(c.listeners.size).toBe(0);
    });
  }

  it('stops waiting as soon as the link drops, with the task still running', async () => {
    const c = clientIn('connected');
    const t = task();
    const waiting = settleWhileConnected(c.client, t.promise);
    expect(await settled(waiting)).toBe(false);
    c.become('suspended');
    await expect(waiting).resolves.toBeUndefined();
    expect(c.listeners.size).toBe(0);
    t.resolve();
  });

  it('resolves once the task succeeds, and leaves no listener behind', async () => {
    const c = clientIn('connected');
    const t = task();
    const waiting = settleWhileConnected(c.client, t.promise);
    t.resolve();
    await expect(waiting).resolves.toBeUndefined();
    expect(c.listeners.size).toBe(0);
  });
});
