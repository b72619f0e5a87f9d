// An acquire's deadline (timeout and signal) through the public locks, against the scripted
// client (scripted-client.ts): argument checks, which reason the caller hears, a grant that
// arrives too late, and no timer left behind. Real-server behaviour: test/integration/locks.
// Also: `timeout: 0` never waits, and a `timeout: 0` attempt given up by its caller ends quietly.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { boundsWaiting, deadlinesOf } from '../../../src/coordination/deadline.js';
import { ExclusiveLock, LockTimeoutError, Mutex, Semaphore } from '../../../src/locks/index.js';
import { until } from '../../support/wait.js';
import { holdCreates, ScriptedServer, scriptedSessions } from './scripted-client.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('acquire deadlines (scripted client)', () => {
  it('refuses a timeout that is not a non-negative finite number, and a signal that is not an AbortSignal', async () => {
    const client = new ScriptedServer().connect();
    const mutex = new Mutex(client, '/d');
    for (const timeout of [-1, Number.NaN, Number.POSITIVE_INFINITY, '5' as unknown as number]) {
      await expect(mutex.acquire({ timeout })).rejects.toMatchObject({
        code: 'BADARGUMENTS',
        message: expect.stringContaining(String(timeout)),
      });
    }
    await expect(mutex.acquire({ signal: {} as AbortSignal })).rejects.toMatchObject({
      code: 'BADARGUMENTS',
      message: expect.stringContaining('signal'),
    });
    // Nothing was created by the refused calls.
    expect(client.requests({ op: 'create2' })).toEqual([]);
    const lease = await mutex.acquire({ timeout: 1_000 });
    await lease.release();
  });

  it("a timeout's error names the lock and what was awaited", async () => {
    const [, a, b] = scriptedSessions(2);
    const held = await new Semaphore(a, '/sem', { maxLeases: 1 }).acquire();
    const error = await new Semaphore(b, '/sem', { maxLeases: 1 })
      .acquire({ timeout: 20 })
      .catch((e) => e);
    expect(error).toBeInstanceOf(LockTimeoutError);
    expect(error.message).toContain('one of the 1 leases of the semaphore /sem');
    expect(error.message).toContain('20');
    const zero = await new Semaphore(b, '/sem', { maxLeases: 1 })
      .acquire({ timeout: 0 })
      .catch((e) => e);
    expect(zero).toBeInstanceOf(LockTimeoutError);
    expect(zero.message).toContain('one of the 1 leases of the semaphore /sem');
    await held.release();
  });

  it("with a timeout set, the caller's signal still wins with its own reason (also when already aborted)", async () => {
    const [server, a, b] = scriptedSessions(2);
    const held = await new Mutex(a, '/s').acquire();
    const abort = new AbortController();
    const waiting = new Mutex(b, '/s').acquire({ timeout: 10_000, signal: abort.signal });
    await until(() => server.children('/s').length === 2);
    abort.abort(new Error('stop now'));
    await expect(waiting).rejects.toThrow('stop now');
    const already = AbortSignal.abort(new Error('was aborted'));
    await expect(new Mutex(b, '/s').acquire({ timeout: 10_000, signal: already })).rejects.toThrow(
      'was aborted',
    );
    await expect(new Mutex(b, '/s').acquire({ signal: already })).rejects.toThrow('was aborted');
    await until(() => server.children('/s').length === 1, "the waiters' nodes to go");
    await held.release();
  });

  it('the timeout is kept even while the attempt is stuck, and a grant that comes too late is given back', async () => {
    const [server, a] = scriptedSessions(1);
    const open = holdCreates(a);
    const started = Date.now();
    const error = await new ExclusiveLock(a, '/late').acquire({ timeout: 30 }).catch((e) => e);
    expect(error).toBeInstanceOf(LockTimeoutError);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(server.nodes.has('/late')).toBe(false);
    // The create lands after the caller gave up: the lock takes the node and gives it back.
    open();
    await until(() => server.requests({ op: 'create2', path: '/late' }).length > 0);
    await until(() => !server.nodes.has('/late'), 'the late grant to be released');
    const next = await new ExclusiveLock(server.connect(), '/late').tryAcquire();
    expect(next).not.toBeNull();
    await next!.release();
  });

  it('an attempt that fails after its caller gave up does not reach the caller twice', async () => {
    const [server, a] = scriptedSessions(1);
    const open = holdCreates(a);
    server.fail({ op: 'create2', path: '/f', code: 'NOAUTH' });
    const abort = new AbortController();
    const acquiring = new ExclusiveLock(a, '/f').acquire({ signal: abort.signal });
    abort.abort(new Error('gave up'));
    open();
    await expect(acquiring).rejects.toThrow('gave up');
  });

  it('an error of the attempt reaches a caller with a deadline', async () => {
    const [server, a] = scriptedSessions(1);
    server.fail({ op: 'create2', path: '/err', code: 'NOAUTH' });
    await expect(new ExclusiveLock(a, '/err').acquire({ timeout: 5_000 })).rejects.toMatchObject({
      code: 'NOAUTH',
    });
  });

  it('leaves no timer holding the process once the lock is granted', async () => {
    vi.useFakeTimers();
    const client = new ScriptedServer().connect();
    const abort = new AbortController();
    const lease = await new Mutex(client, '/timer').acquire({
      timeout: 60_000,
      signal: abort.signal,
    });
    expect(boundsWaiting()).toBe(0);
    expect(deadlinesOf(client).holdsProcess).toBe(false);
    // The client's timer waits, unref'd, for the next acquire; at its time it goes.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(vi.getTimerCount()).toBe(0);
    // The caller's signal no longer matters once the acquire is over.
    abort.abort(new Error('later'));
    expect(lease.signal.aborted).toBe(false);
    await lease.release();
  });
});

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
