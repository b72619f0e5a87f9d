// How an acquisition over a real Client ends and what it leaves behind, against the simulator's
// server model in-process (model-client.ts): the watcher closures a client holds after repeated
// timed-out waits, an abort while a rare step (the first use's missing parents) runs, an abort at
// the instant of a reply, a session that expires under a create in flight, and the listeners left
// on the caller's signal.
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { watchedKeyCount } from '../../../src/coordination/watchers.js';
import { LockTimeoutError, Mutex } from '../../../src/locks/index.js';
import { registeredWatchers } from '../../support/registered-watchers.js';
import { holderAndWaiter, inModel, lockDir } from './model-client.js';

describe('what an acquisition leaves in the client', () => {
  it('repeated timed-out waits on one holder share one watcher closure, gone when the holder releases', async () => {
    await inModel(async (world) => {
      const { b, held } = await holderAndWaiter(world);
      for (let i = 0; i < 4; i++) {
        await expect(
          world.settle(new Mutex(b, '/locks/m').acquire({ timeout: 1_000 })),
        ).rejects.toBeInstanceOf(LockTimeoutError);
      }
      expect(world.requests('b').filter((op) => op.startsWith('getData'))).toHaveLength(4);
      expect(registeredWatchers(b, held.path)).toBe(1);
      expect(watchedKeyCount(b)).toBe(1);
      await world.settle(held.release());
      await world.run(1_000);
      expect(registeredWatchers(b, held.path)).toBe(0);
      expect(watchedKeyCount(b)).toBe(0);
    });
  });

  it('a wait whose predecessor was gone before the watch leaves no entry behind', async () => {
    await inModel(async (world) => {
      const { b, held } = await holderAndWaiter(world);
      world.onceSent('b', 'getData', () => {
        world.net.blackHole('b', '*', world.sched.now + 200);
        void held.release();
      });
      const lease = await world.settle(new Mutex(b, '/locks/m').acquire());
      expect(registeredWatchers(b, held.path)).toBe(0);
      expect(watchedKeyCount(b)).toBe(0);
      await world.settle(lease.release());
    });
  });

  it('leaves no listener on the caller’s signal once it holds the lock or gave up', async () => {
    await inModel(async (world) => {
      await lockDir(world);
      const a = await world.connect('a');
      const b = await world.connect('b');
      const signal = new AbortController().signal;
      const held = await world.settle(new Mutex(a, '/locks/m').acquire({ signal }));
      expect(getEventListeners(signal, 'abort')).toHaveLength(0);
      const waiting = new Mutex(b, '/locks/m').acquire({ signal });
      await world.until((r) => r.client === 'b' && r.op === 'getData');
      await world.settle(held.release());
      await world.settle(waiting);
      expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    });
  });
});

describe('an abort while a rare step runs', () => {
  it('on first use, an abort while the parents are made rejects with the reason and leaves no node', async () => {
    await inModel(async (world) => {
      const a = await world.connect('a');
      const controller = new AbortController();
      world.onceSent(undefined, 'createContainer', () => {
        world.sched.at(0, 'client', () => controller.abort(new Error('stop')));
      });
      await expect(
        world.settle(new Mutex(a, '/locks/m').acquire({ signal: controller.signal })),
      ).rejects.toThrow('stop');
      await world.run(2_000);
      const dir = await world.settle(a.exists('/locks/m'));
      if (dir) expect(await world.settle(a.getChildren('/locks/m'))).toEqual([]);
    });
  });
});

describe('a session that expires under an acquisition', () => {
  it('a create in flight when the session expires: the acquisition starts again on the renewed session', async () => {
    await inModel(async (world) => {
      const { a, b, held } = await holderAndWaiter(world);
      const oldSession = b.sessionId;
      world.onceSent('b', 'create2', () => {
        world.net.blackHole('b', '*', world.sched.now + 30_000);
      });
      const waiting = new Mutex(b, '/locks/m').acquire();
      waiting.catch(() => {});
      await world.run(40_000);
      expect(b.sessionId).not.toBe(oldSession);
      expect(b.state).toBe('connected');
      const mine = (await world.settle(a.getChildren('/locks/m'))).filter(
        (name) => name !== held.path.split('/')[3],
      );
      expect(mine).toHaveLength(1);
      await world.settle(held.release());
      const lease = await world.settle(waiting);
      const stat = await world.settle(b.exists(lease.path));
      expect(stat?.ephemeralOwner).toBe(b.sessionId);
    });
  });

  it('a waiter watching its predecessor when its session expires queues again as soon as the session is renewed', async () => {
    await inModel(async (world) => {
      const { b, held } = await holderAndWaiter(world);
      const waiting = new Mutex(b, '/locks/m').acquire();
      waiting.catch(() => {});
      // The waiter is queued once its watch read of the holder's node has gone out.
      await world.until((r) => r.client === 'b' && r.op === 'getData' && r.watch === true);
      await world.run(100);
      let renewedAt = -1;
      b.on('renewed', () => {
        renewedAt = world.sched.now;
      });
      const from = world.sent.length;
      world.net.blackHole('b', '*', world.sched.now + 15_000);
      const again = await world.until(
        (r) => r.client === 'b' && r.op === 'create2' && renewedAt >= 0,
        60_000,
      );
      // Within the renewal's own turn, once, and long before the holder lets go.
      expect(renewedAt).toBeGreaterThan(0);
      expect(again.at - renewedAt).toBeLessThan(50);
      expect(
        world.sent.slice(from).filter((r) => r.client === 'b' && r.op === 'create2'),
      ).toHaveLength(1);
      await world.settle(held.release());
      const lease = await world.settle(waiting);
      expect((await world.settle(b.exists(lease.path)))?.ephemeralOwner).toBe(b.sessionId);
    });
  });

  it('after starting again on the renewed session, an abort still ends the wait and removes the node', async () => {
    await inModel(async (world) => {
      const { a, b, held } = await holderAndWaiter(world);
      world.onceSent('b', 'create2', () => {
        world.net.blackHole('b', '*', world.sched.now + 30_000);
      });
      const controller = new AbortController();
      const waiting = new Mutex(b, '/locks/m').acquire({ signal: controller.signal });
      waiting.catch(() => {});
      await world.run(40_000);
      expect(world.requests('b').filter((op) => op.startsWith('create2'))).toHaveLength(2);
      expect(world.requests('b').filter((op) => op.startsWith('getData'))).toHaveLength(1);
      controller.abort(new Error('stop'));
      await expect(world.settle(waiting)).rejects.toThrow('stop');
      expect(await world.settle(a.getChildren('/locks/m'))).toEqual([held.path.split('/')[3]]);
    });
  });
});
