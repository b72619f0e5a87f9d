// SharedCount against the scripted server: the schedules that decide whether a started count keeps
// following its node (a node replaced by a new one; a re-read swallowed by a session renewal).
import { describe, expect, it, vi } from 'vitest';
import { CreateMode } from '../../../src/index.js';
import { encodeCount, type RecipeClient, SharedCount } from '../../../src/recipes/index.js';
import { ScriptedServer } from '../locks/scripted-client.js';

const PATH = '/count';
const WAIT = { timeout: 5_000, interval: 5 };

async function startedCount(server: ScriptedServer) {
  const client = server.connect();
  const count = new SharedCount(client as unknown as RecipeClient, PATH, { seed: 0 });
  await count.start();
  return { client, count };
}

describe('SharedCount follows its node', () => {
  it('follows a node deleted and created again, whose version starts over below the known one', async () => {
    const server = new ScriptedServer();
    const { count } = await startedCount(server);
    for (let value = 1; value <= 5; value++) server.setData(PATH, encodeCount(value));
    await vi.waitFor(() => expect(count.versioned).toEqual({ count: 5, version: 5 }), WAIT);
    // Another client replaces the node in one step (a multi): the new node is at version 0.
    server.delete(PATH, -1);
    server.create(0x99n, PATH, encodeCount(42), CreateMode.PERSISTENT);
    await vi.waitFor(() => expect(count.count).toBe(42), WAIT);
    expect(count.versioned).toEqual({ count: 42, version: 0 });
    // A compare-and-set at the version read succeeds at once.
    expect(await count.trySet(43, count.versioned.version)).toBe(true);
    expect(count.versioned).toEqual({ count: 43, version: 1 });
    await count.close();
  });

  it('keeps following after a renewal rejected the re-read a change event started', async () => {
    const server = new ScriptedServer();
    const { client, count } = await startedCount(server);
    // The change event's re-read loses its link; its retry is answered by the renewal.
    server.fail({ op: 'getData', code: 'CONNECTIONLOSS' });
    server.fail({ op: 'getData', code: 'SESSIONEXPIRED' });
    server.setData(PATH, encodeCount(5));
    // The watch that fired is used up and the failed reads armed none: the renewal ends no watch.
    client.renew({ endWatches: true });
    await vi.waitFor(() => expect(count.count).toBe(5), WAIT);
    // Every later change is followed on the new session.
    server.setData(PATH, encodeCount(6));
    await vi.waitFor(() => expect(count.count).toBe(6), WAIT);
    expect(client.requests({ op: 'getData', watch: true }).at(-1)?.outcome).toBe('ok');
    await count.close();
  });
});
