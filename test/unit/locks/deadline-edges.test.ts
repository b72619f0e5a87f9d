// Deadline edges through the public locks, against the scripted client (scripted-client.ts):
// `timeout: 0` never waits, and a `timeout: 0` attempt given up by its caller ends quietly.
import { describe, expect, it } from 'vitest';
import { LockTimeoutError, Mutex, Semaphore } from '../../../src/locks/index.js';
import { until } from '../../support/wait.js';
import { scriptedSessions } from './scripted-client.js';

describe('acquire deadlines: timeout 0 (scripted client)', () => {
  it('timeout 0 on a taken lock sets no watch and leaves nothing behind', async () => {
    const [server, a, b] = scriptedSessions(2);
    const held = await new Mutex(a, '/z').acquire();
    const error = await new Mutex(b, '/z').acquire({ timeout: 0 }).catch((e) => e);
    expect(error).toBeInstanceOf(LockTimeoutError);
    expect(b.requests().filter((r) => r.watch)).toEqual([]);
    await until(() => server.children('/z').length === 1);
    await held.release();
  });

  it('a timeout 0 attempt whose caller gave up ends quietly when it finds the lock taken', async () => {
    const [server, a, b, c] = scriptedSessions(3);
    const held = await new Semaphore(a, '/q', { maxLeases: 1 }).acquire();
    // c waits for a lease, holding the guard: b's try finds the guard taken.
    const waiting = new Semaphore(c, '/q', { maxLeases: 1 }).acquire();
    await until(() => server.children('/q/leases').length === 2);
    const abort = new AbortController();
    const acquiring = new Semaphore(b, '/q', { maxLeases: 1 }).acquire({
      timeout: 0,
      signal: abort.signal,
    });
    abort.abort(new Error('gave up'));
    await expect(acquiring).rejects.toThrow('gave up');
    // The attempt's "taken" result reaches nobody (no unhandled rejection: test/guard checks).
    await until(() => b.requests({ op: 'create2' }).length > 0);
    await new Promise((r) => setTimeout(r, 20));
    expect(server.children('/q/leases')).toHaveLength(2);
    await held.release();
    await (await waiting).release();
  });
});
