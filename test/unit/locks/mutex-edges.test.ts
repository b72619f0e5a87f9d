// Mutex options as a user sees them: the refusals name the Mutex and the bad value, and
// `sequenceOrder` reaches the queue (numeric by default). Against the scripted client
// (scripted-client.ts).
import { describe, expect, it } from 'vitest';
import { CreateMode } from '../../../src/index.js';
import { Mutex } from '../../../src/locks/index.js';
import { ScriptedServer } from './scripted-client.js';

describe('Mutex options (scripted client)', () => {
  it('refuses an invalid path or naming, naming the Mutex and the value', () => {
    const client = new ScriptedServer().connect();
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
    const server = new ScriptedServer();
    const [a, b] = [server.connect(), server.connect()];
    await b.create2('/m', undefined, { mode: CreateMode.PERSISTENT });
    // Another process's node at the counter's limit, created before ours: first in creation
    // order ('numeric' at the limit), but its sequence text sorts after ours ('interop').
    await b.create2('/m/_c_z-lock-2147483647', undefined, { mode: CreateMode.EPHEMERAL });
    expect(await new Mutex(a, '/m').tryAcquire()).toBeNull();
    expect(await new Mutex(a, '/m', { sequenceOrder: 'numeric' }).tryAcquire()).toBeNull();
    const lease = await new Mutex(a, '/m', { sequenceOrder: 'interop' }).tryAcquire();
    expect(lease).not.toBeNull();
    await lease!.release();
  });
});
