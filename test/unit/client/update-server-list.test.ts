// updateServerList and a chroot in its connect string: a client's chroot never changes, so a
// different one is refused before anything changes (it used to be dropped silently).
import { describe, expect, it } from 'vitest';
import { inModel } from '../locks/model-client.js';

describe('updateServerList with a chroot', () => {
  it("refuses a chroot other than the client's with BADARGUMENTS, and keeps the host list", async () => {
    await inModel(async (world) => {
      const client = await world.connect('a', { chroot: '/app' });
      const before = client.server;
      expect(() => client.updateServerList(`${world.host}/other`)).toThrow(
        expect.objectContaining({ code: 'BADARGUMENTS' }),
      );
      expect(() => client.updateServerList('127.0.0.9:2181/other')).toThrow(/chroot/);
      // Nothing changed: the session stays on its server.
      expect(client.server).toBe(before);
      await world.settle(client.exists('/'));
    });
  });

  it("accepts the client's own chroot or none", async () => {
    await inModel(async (world) => {
      const client = await world.connect('a', { chroot: '/app' });
      expect(() => client.updateServerList(`${world.host}/app`)).not.toThrow();
      expect(() => client.updateServerList(world.host)).not.toThrow();
      expect(client.chroot).toBe('/app');
    });
  });

  it('refuses any chroot for a client without one', async () => {
    await inModel(async (world) => {
      const client = await world.connect('a');
      expect(() => client.updateServerList(`${world.host}/app`)).toThrow(
        expect.objectContaining({ code: 'BADARGUMENTS' }),
      );
    });
  });
});
