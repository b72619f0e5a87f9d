// The lock engine over a real Client's session (the direct seam), against the simulator's server
// model in-process (model-client.ts): the requests an acquisition sends, their replies, the node
// layout they leave, the chroot mapping of what the server answers, and a predecessor that goes
// between the listing and the watch.
import { tracingChannel } from 'node:diagnostics_channel';
import { describe, expect, it, vi } from 'vitest';
import { CreateMode } from '../../../src/client/types.js';
import { LockTimeoutError, Mutex } from '../../../src/locks/index.js';
import { holderAndWaiter, inModel, lockDir } from './model-client.js';

// The errors the session makes for its refused replies ('op path'), to check that an answer the
// engine expects on its normal path costs no Error (its stack capture is CPU per acquisition).
const refusals = vi.hoisted(() => ({ made: [] as string[] }));
vi.mock('../../../src/session/reply-errors.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/session/reply-errors.js')>();
  return {
    ...real,
    replyError: (...args: Parameters<typeof real.replyError>) => {
      refusals.made.push(`${args[2]} ${args[1]}`);
      return real.replyError(...args);
    },
  };
});

const LOCK_NODE = /^\/locks\/m\/_c_[0-9a-f-]+-lock-\d{10}$/;

describe('acquisition over a real Client (direct seam)', () => {
  it('an uncontended acquire sends one create2 and one unwatched getChildren; release one delete at any version', async () => {
    await inModel(async (world) => {
      await lockDir(world, 'setup');
      const a = await world.connect('a');
      const from = world.sent.length;
      const lease = await world.settle(new Mutex(a, '/locks/m').acquire());
      expect(world.requests('a', from)).toEqual([
        expect.stringMatching(/^create2 \/locks\/m\/_c_[0-9a-f-]+-lock-$/),
        'getChildren /locks/m',
      ]);
      expect(world.sent.find((r) => r.op === 'getChildren' && r.client === 'a')?.watch).toBe(false);
      expect(lease.path).toMatch(LOCK_NODE);
      const stat = await world.settle(a.exists(lease.path));
      expect(stat?.ephemeralOwner).toBe(a.sessionId);
      expect(lease.fencingToken).toBe(stat!.czxid);
      const releasing = world.sent.length;
      await world.settle(lease.release());
      const deletes = world.sent.slice(releasing).filter((r) => r.op === 'delete');
      expect(deletes.map((r) => [r.path, r.version])).toEqual([[lease.path, -1]]);
      expect(await world.settle(a.exists(lease.path))).toBeNull();
    });
  });

  it('on first use makes the lock path, sends the create again, and takes the lock', async () => {
    await inModel(async (world) => {
      const a = await world.connect('a');
      const lease = await world.settle(new Mutex(a, '/locks/m').acquire());
      const ops = world.requests('a');
      expect(ops[0]).toMatch(/^create2 \/locks\/m\/_c_/);
      expect(ops[1]).toBe('getChildren /locks/m');
      expect(ops.filter((op) => op.startsWith('create2'))).toHaveLength(2);
      expect(lease.path).toMatch(LOCK_NODE);
      expect(await world.settle(a.getChildren('/locks/m'))).toEqual([lease.path.split('/')[3]]);
    });
  });

  it('maps the created path out of the chroot: the lease path is the client’s, the node the server’s', async () => {
    await inModel(async (world) => {
      const root = await world.connect('root');
      await world.settle(root.create('/app'));
      await world.settle(root.create('/app/locks'));
      await world.settle(root.create('/app/locks/m'));
      const a = await world.connect('a', { chroot: '/app' });
      const from = world.sent.length;
      const lease = await world.settle(new Mutex(a, '/locks/m').acquire());
      expect(lease.path).toMatch(LOCK_NODE);
      expect(world.requests('a', from)).toEqual([
        expect.stringMatching(/^create2 \/app\/locks\/m\/_c_/),
        'getChildren /app/locks/m',
      ]);
      const stat = await world.settle(root.exists(`/app${lease.path}`));
      expect(stat?.ephemeralOwner).toBe(a.sessionId);
      expect(lease.fencingToken).toBe(stat!.czxid);
      await world.settle(lease.release());
      expect(await world.settle(root.getChildren('/app/locks/m'))).toEqual([]);
    });
  });

  it('a waiter watches the contender ahead with one getData and takes the lock when it goes', async () => {
    await inModel(async (world) => {
      const { b, held } = await holderAndWaiter(world, 'a');
      const from = world.sent.length;
      const waiting = new Mutex(b, '/locks/m').acquire();
      const watch = await world.until((r) => r.client === 'b' && r.op === 'getData');
      expect(watch.path).toBe(held.path);
      expect(watch.watch).toBe(true);
      await world.run(1_000);
      expect(world.requests('b', from)).toEqual([
        expect.stringMatching(/^create2 \/locks\/m\/_c_/),
        'getChildren /locks/m',
        `getData ${held.path}`,
      ]);
      await world.settle(held.release());
      const lease = await world.settle(waiting);
      expect(lease.path).toMatch(LOCK_NODE);
      expect(world.requests('b', from).slice(3)).toEqual(['getChildren /locks/m']);
      expect(lease.fencingToken).toBeGreaterThan(held.fencingToken);
    });
  });

  it('a predecessor deleted between the listing and the watch: the getData finds no node, lists again and takes the lock, leaving no watcher and making no Error', async () => {
    await inModel(async (world) => {
      const { b, held } = await holderAndWaiter(world, 'a');
      // Hold b's getData on the wire while a's node goes.
      world.onceSent('b', 'getData', () => {
        world.net.blackHole('b', '*', world.sched.now + 200);
        void held.release();
      });
      const from = world.sent.length;
      refusals.made.length = 0;
      const lease = await world.settle(new Mutex(b, '/locks/m').acquire());
      // The NONODE of the getData is taken as the server's code: no Error is made for it.
      expect(refusals.made).toEqual([]);
      expect(world.requests('b', from)).toEqual([
        expect.stringMatching(/^create2 \/locks\/m\/_c_/),
        'getChildren /locks/m',
        `getData ${held.path}`,
        'getChildren /locks/m',
      ]);
      expect(lease.path).toMatch(LOCK_NODE);
      // The getData that found no node set no watch: the client holds no watcher for it.
      await expect(
        world.settle(b.removeWatches(held.path, 'data', { local: true })),
      ).rejects.toMatchObject({ code: 'NOWATCHER' });
    });
  });

  it('a tryAcquire that finds the lock taken deletes its node and resolves null', async () => {
    await inModel(async (world) => {
      const { a, b, held } = await holderAndWaiter(world, 'a');
      const from = world.sent.length;
      expect(await world.settle(new Mutex(b, '/locks/m').tryAcquire())).toBeNull();
      const ops = world.requests('b', from);
      expect(ops.slice(0, 2)).toEqual([
        expect.stringMatching(/^create2 \/locks\/m\/_c_/),
        'getChildren /locks/m',
      ]);
      expect(ops.slice(2)).toEqual([expect.stringMatching(/^delete \/locks\/m\/_c_/)]);
      expect(await world.settle(a.getChildren('/locks/m'))).toEqual([held.path.split('/')[3]]);
    });
  });
});

describe('ending an acquisition over a real Client', () => {
  it('a timeout while waiting rejects with LockTimeoutError and leaves neither node nor watcher', async () => {
    await inModel(async (world) => {
      const { a, b, held } = await holderAndWaiter(world, 'a');
      await expect(
        world.settle(new Mutex(b, '/locks/m').acquire({ timeout: 5_000 })),
      ).rejects.toBeInstanceOf(LockTimeoutError);
      await world.run(1_000);
      expect(await world.settle(a.getChildren('/locks/m'))).toEqual([held.path.split('/')[3]]);
      // The watch set on a's node stays in b's client (one-shot); it fires harmlessly.
      await world.settle(held.release());
      await world.run(1_000);
    });
  });

  it('an abort while the create is in flight rejects at once with the reason and removes the node once it lands', async () => {
    await inModel(async (world) => {
      await lockDir(world, 'a');
      const b = await world.connect('b');
      const controller = new AbortController();
      world.onceSent('b', 'create2', () => {
        world.net.blackHole('b', '*', world.sched.now + 500);
      });
      const acquiring = new Mutex(b, '/locks/m').acquire({ signal: controller.signal });
      await world.until((r) => r.op === 'create2');
      const abortedAt = world.sched.now;
      controller.abort(new Error('stop'));
      await expect(world.settle(acquiring)).rejects.toThrow('stop');
      await world.run(2_000);
      expect(abortedAt).toBeLessThan(world.sched.now);
      expect(await world.settle(b.getChildren('/locks/m'))).toEqual([]);
    });
  });

  it('an abort while waiting rejects with the reason and deletes the node', async () => {
    await inModel(async (world) => {
      const { a, b, held } = await holderAndWaiter(world, 'a');
      const controller = new AbortController();
      const acquiring = new Mutex(b, '/locks/m').acquire({ signal: controller.signal });
      await world.until((r) => r.client === 'b' && r.op === 'getData');
      await world.run(100);
      controller.abort(new Error('stop'));
      await expect(world.settle(acquiring)).rejects.toThrow('stop');
      expect(await world.settle(a.getChildren('/locks/m'))).toEqual([held.path.split('/')[3]]);
    });
  });
});

describe('lost replies and connection loss over a real Client', () => {
  it('a create whose reply is lost after the server applied it is found by its prefix, not made twice', async () => {
    await inModel(async (world) => {
      await lockDir(world, 'a');
      const b = await world.connect('b');
      // Hold everything past the client's read timeout (2/3 of 10 s) but within the session's.
      world.onceSent('b', 'create2', () => {
        world.net.blackHole('b', '*', world.sched.now + 8_000);
      });
      const from = world.sent.length;
      const lease = await world.settle(new Mutex(b, '/locks/m').acquire());
      expect(world.requests('b', from).filter((op) => op.startsWith('create2'))).toHaveLength(1);
      expect(await world.settle(b.getChildren('/locks/m'))).toEqual([lease.path.split('/')[3]]);
      const stat = await world.settle(b.exists(lease.path));
      expect(lease.fencingToken).toBe(stat!.czxid);
    });
  });

  it('a listing whose reply is lost is sent again after the reconnect', async () => {
    await inModel(async (world) => {
      const { b, held } = await holderAndWaiter(world, 'a');
      const waiting = new Mutex(b, '/locks/m').acquire();
      await world.until((r) => r.client === 'b' && r.op === 'getData');
      await world.run(100);
      // The wake's listing goes out and the link drops before its answer.
      world.onceSent('b', 'getChildren', () => {
        world.sched.at(0, 'client', () => b.dropConnection('test'));
      });
      await world.settle(held.release());
      const lease = await world.settle(waiting);
      expect(lease.path).toMatch(LOCK_NODE);
      expect(world.requests('b').filter((op) => op === 'getChildren /locks/m').length).toBe(3);
    });
  });

  it('a dropped connection while waiting keeps the wait: the lock comes when the holder releases', async () => {
    await inModel(async (world) => {
      const { b, held } = await holderAndWaiter(world, 'a');
      const waiting = new Mutex(b, '/locks/m').acquire();
      await world.until((r) => r.client === 'b' && r.op === 'getData');
      await world.run(100);
      b.dropConnection('test');
      await world.run(3_000);
      await world.settle(held.release());
      const lease = await world.settle(waiting);
      expect(lease.path).toMatch(LOCK_NODE);
    });
  });

  it('a session renewed while waiting: the acquisition queues again on the new session', async () => {
    await inModel(async (world) => {
      const { a, b, held } = await holderAndWaiter(world, 'a');
      const waiting = new Mutex(b, '/locks/m').acquire();
      waiting.catch(() => {});
      await world.until((r) => r.client === 'b' && r.op === 'getData');
      const oldSession = b.sessionId;
      world.net.blackHole('b', '*', world.sched.now + 30_000);
      await world.run(45_000);
      expect(b.state).toBe('connected');
      expect(b.sessionId).not.toBe(oldSession);
      await world.settle(held.release());
      const lease = await world.settle(waiting);
      const stat = await world.settle(b.exists(lease.path));
      expect(stat?.ephemeralOwner).toBe(b.sessionId);
      expect(await world.settle(a.getChildren('/locks/m'))).toEqual([lease.path.split('/')[3]]);
    });
  });
});

describe('the direct seam’s requests as request telemetry sees them', () => {
  it('names each request’s op and client path, and a failed create’s error names them too', async () => {
    const channel = tracingChannel<unknown, { op: string; path?: string }>('zookeeper-ts:request');
    const seen: string[] = [];
    const start = (message: { op: string; path?: string }) => {
      seen.push(`${message.op} ${message.path}`);
    };
    const handlers = { start, end() {}, asyncStart() {}, asyncEnd() {}, error() {} };
    channel.subscribe(handlers);
    try {
      await inModel(async (world) => {
        const root = await world.connect('root');
        await world.settle(root.create('/app'));
        await world.settle(root.create('/app/locks'));
        await world.settle(root.create('/app/locks/m'));
        const a = await world.connect('a', { chroot: '/app' });
        const b = await world.connect('b', { chroot: '/app' });
        const held = await world.settle(new Mutex(a, '/locks/m').acquire());
        seen.length = 0;
        const waiting = new Mutex(b, '/locks/m').acquire();
        await world.until((r) => r.client === 'b' && r.op === 'getData');
        await world.run(100);
        await world.settle(held.release());
        const lease = await world.settle(waiting);
        expect(lease.path).toMatch(LOCK_NODE);
        expect(seen).toEqual([
          expect.stringMatching(/^create2 \/locks\/m\/_c_[0-9a-f-]+-lock-$/),
          'getChildren /locks/m',
          `getData ${held.path}`,
          `delete ${held.path}`,
          'getChildren /locks/m',
        ]);
        // A lock path under an ephemeral node: the create fails for good and says where.
        await world.settle(a.create('/eph', undefined, { mode: CreateMode.EPHEMERAL }));
        const failed = world.settle(new Mutex(b, '/eph').acquire());
        await expect(failed).rejects.toMatchObject({
          code: 'NOCHILDRENFOREPHEMERALS',
          op: 'create2',
          path: expect.stringMatching(/^\/eph\/_c_[0-9a-f-]+-lock-$/),
        });
      });
    } finally {
      channel.unsubscribe(handlers);
    }
  });
});
