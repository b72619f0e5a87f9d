// Session renewal with a chroot, and with `renewSession: false` (issue 38, "schedules nobody has
// tried yet"), on the in-process model server: the client is cut off past its session timeout and
// the server expires the session.
import { describe, expect, it } from 'vitest';
import { CreateMode } from '../../../src/index.js';
import { inModel } from '../locks/model-client.js';

describe('renewal with a chroot', () => {
  it('the renewed session keeps the chroot: new nodes, watches and persistent watches stay under it', async () => {
    await inModel(async (world) => {
      const setup = await world.connect('setup');
      await world.settle(setup.create('/app'));
      const client = await world.connect('a', { chroot: '/app', sessionTimeout: 4_000 });
      const first = client.sessionId;
      await world.settle(client.create('/old', 'x', { mode: CreateMode.EPHEMERAL }));
      const events: string[] = [];
      const watching = client.watch('/', { recursive: true });
      await world.settle(watching.ready);
      void (async () => {
        for await (const event of watching) events.push(`${event.type} ${event.path ?? ''}`);
      })();
      world.net.blackHole('a', '*', world.sched.now + 12_000);
      await world.run(60_000);
      expect(client.sessionId).not.toBe(first);
      expect(client.state).toBe('connected');
      expect(client.chroot).toBe('/app');
      // The old session's ephemeral node is gone; the new one's lands under the chroot.
      expect(await world.settle(setup.exists('/app/old'))).toBeNull();
      await world.settle(client.create('/new', 'y', { mode: CreateMode.EPHEMERAL }));
      const stat = await world.settle(setup.exists('/app/new'));
      expect(stat?.ephemeralOwner).toBe(client.sessionId);
      expect(await world.settle(setup.exists('/new'))).toBeNull();
      // The persistent watch was told of the gap and goes on under the chroot, paths chroot-relative.
      await world.settle(setup.setData('/app/new', 'z'));
      await world.run(1_000);
      expect(events).toContain('Resync /');
      expect(events).toContain('NodeDataChanged /new');
      await world.settle(watching.return!());
    });
  });
});

describe('renewSession: false', () => {
  it('the expiry is final: every later call rejects with SESSIONEXPIRED, none hangs, close() settles', async () => {
    await inModel(async (world) => {
      const client = await world.connect('a', { sessionTimeout: 4_000, renewSession: false });
      const first = client.sessionId;
      const states: string[] = [];
      client.on('state', (state) => states.push(state));
      world.net.blackHole('a', '*', world.sched.now + 12_000);
      await world.run(60_000);
      expect(client.state).toBe('expired');
      expect(client.sessionId).toBe(first);
      expect(states).not.toContain('connected');
      await expect(world.settle(client.exists('/'))).rejects.toMatchObject({
        code: 'SESSIONEXPIRED',
      });
      await world.settle(client.close());
      expect(world.ensemble.sessions.has(first)).toBe(false);
    });
  });
});
