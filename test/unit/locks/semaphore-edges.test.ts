// Semaphore edges against the scripted client (scripted-client.ts): what its refusals say, and
// what it publishes on the lock channel.
import diagnostics from 'node:diagnostics_channel';
import { describe, expect, it } from 'vitest';
import { Semaphore } from '../../../src/locks/index.js';
import { ScriptedServer } from './scripted-client.js';

describe('Semaphore edges: messages and telemetry (scripted client)', () => {
  it('refuses an invalid path or maxLeases, saying which', () => {
    const client = new ScriptedServer().connect();
    expect(() => new Semaphore(client, 'x', 1)).toThrow(
      expect.objectContaining({
        code: 'BADARGUMENTS',
        message: expect.stringMatching(/^Semaphore: invalid path "x"/),
      }),
    );
    expect(() => new Semaphore(client, '/s', 0)).toThrow(
      expect.objectContaining({
        code: 'BADARGUMENTS',
        message: 'maxLeases must be a positive integer, got 0',
      }),
    );
  });

  it("publishes its acquires and holds with the kind 'lease-'", async () => {
    const seen: { type: string; kind?: string; lockPath?: string }[] = [];
    const listener = (message: unknown) => seen.push(message as (typeof seen)[number]);
    diagnostics.subscribe('zookeeper-ts:lock', listener);
    try {
      const client = new ScriptedServer().connect();
      const lease = await new Semaphore(client, '/k', 1).acquire();
      await lease.release();
      const tried = await new Semaphore(client, '/k', 1).tryAcquire();
      await tried!.release();
    } finally {
      diagnostics.unsubscribe('zookeeper-ts:lock', listener);
    }
    const ofSemaphore = seen.filter((m) => m.lockPath === '/k');
    const kinds = (type: string) => ofSemaphore.filter((m) => m.type === type).map((m) => m.kind);
    expect(kinds('acquire-start')).toEqual(['lease-', 'lease-']);
    expect(kinds('granted')).toEqual(['lease-', 'lease-']);
    expect(kinds('released')).toEqual(['lease-', 'lease-']);
  });
});
