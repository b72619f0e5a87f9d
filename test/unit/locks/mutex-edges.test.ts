// Mutex options as a user sees them: the refusals name the Mutex and the bad value, and
// `sequenceOrder` reaches the queue (numeric by default). On the in-process server, through real
// Clients.
import { describe, expect, it } from 'vitest';
import { CreateMode } from '../../../src/index.js';
import { Mutex } from '../../../src/locks/index.js';
import { inProcessServer } from './in-process.js';

describe('Mutex options (in-process server)', () => {
  it('refuses an invalid path or naming, naming the Mutex and the value', async () => {
    const client = await (await inProcessServer()).connect();
    expect(() => new Mutex(client, 'x')).toThrow(
      expect.objectContaining({
        code: 'BADARGUMENTS',
        message: expect.stringMatching(/^Mutex: invalid path "x"/),
      }),
    );
    expect(() => new Mutex(client, '/x', { naming: 'zk' as unknown as 'kazoo' })).toThrow(
      expect.objectContaining({
        code: 'BADARGUMENTS',
        message: "naming must be 'curator' or 'kazoo', got zk",
      }),
    );
  });

  it("orders the queue by sequence number by default, by sequence text with 'interop'", async () => {
    const server = await inProcessServer();
    const [a, b] = [await server.connect(), await server.connect()];
    await b.create('/m', '');
    // Another process's node at the counter's limit, created before ours: first in creation
    // order ('numeric' at the limit), but its sequence text sorts after ours ('interop').
    await b.create('/m/_c_z-lock-2147483647', '', { mode: CreateMode.EPHEMERAL });
    expect(await new Mutex(a, '/m').tryAcquire()).toBeNull();
    expect(await new Mutex(a, '/m', { sequenceOrder: 'numeric' }).tryAcquire()).toBeNull();
    const lease = await new Mutex(a, '/m', { sequenceOrder: 'interop' }).tryAcquire();
    expect(lease).not.toBeNull();
    await lease!.release();
  });
});
