// withLock and the Semaphore's edges against the scripted client (scripted-client.ts).
// Real-server behaviour: test/integration/locks.
import { describe, expect, it } from 'vitest';
import {
  type Lease,
  LockTimeoutError,
  Mutex,
  Semaphore,
  SemaphoreMutex,
  withLock,
} from '../../../src/locks/index.js';
import { until } from '../../support/wait.js';
import { ScriptedServer, scriptedSessions } from './scripted-client.js';

describe('withLock (scripted client)', () => {
  it('runs the function with the lease and releases after it, also when it throws', async () => {
    const [server, client] = scriptedSessions(1);
    const mutex = new Mutex(client, '/w');
    let seen: Lease | undefined;
    const result = await withLock(mutex, async (lease) => {
      seen = lease;
      expect(server.children('/w')).toHaveLength(1);
      return 42;
    });
    expect(result).toBe(42);
    expect(seen!.released).toBe(true);
    expect(server.children('/w')).toEqual([]);
    await expect(
      withLock(mutex, () => {
        throw new Error('inside');
      }),
    ).rejects.toThrow('inside');
    expect(server.children('/w')).toEqual([]);
  });

  it('passes the acquire options on, and refuses a missing function', async () => {
    const [server, a, b] = scriptedSessions(2);
    const held = await new Mutex(a, '/o').acquire();
    await expect(withLock(new Mutex(b, '/o'), () => 1, { timeout: 0 })).rejects.toBeInstanceOf(
      LockTimeoutError,
    );
    await expect(withLock(new Mutex(b, '/o'), undefined as never)).rejects.toMatchObject({
      code: 'BADARGUMENTS',
      message: 'withLock needs a function (lease) => result',
    });
    expect(server.children('/o')).toHaveLength(1);
    await held.release();
  });
});

describe('Semaphore edges (scripted client)', () => {
  it('refuses a maxLeases that is not a positive 31-bit integer', () => {
    const client = new ScriptedServer().connect();
    const badArgs = expect.objectContaining({ code: 'BADARGUMENTS' });
    for (const max of [0, -1, 1.5, 0x80000000, Number.NaN]) {
      expect(() => new Semaphore(client, '/s', { maxLeases: max })).toThrow(badArgs);
    }
    expect(() => new Semaphore(client, '/s', { maxLeases: 0x7fffffff })).not.toThrow();
  });

  it('stores its data in the lease node; a SemaphoreMutex has one lease', async () => {
    const [server, a, b] = scriptedSessions(2);
    const lease = await new Semaphore(a, '/d', { maxLeases: 2, data: 'who' }).acquire();
    expect(new TextDecoder().decode(server.nodes.get(lease.path)!.data)).toBe('who');
    await lease.release();
    const one = await new SemaphoreMutex(a, '/sm').acquire();
    expect(await new SemaphoreMutex(b, '/sm').tryAcquire()).toBeNull();
    // The refused try left no lease node and no guard node behind.
    expect(server.children('/sm/leases')).toHaveLength(1);
    expect(server.children('/sm/locks')).toEqual([]);
    await one.release();
    const next = await new SemaphoreMutex(b, '/sm').tryAcquire();
    expect(next).not.toBeNull();
    await next!.release();
  });

  it('tryAcquire gives up at once while another process takes a lease (holds the guard)', async () => {
    const [server, a, b, c] = scriptedSessions(3);
    const held = await new Semaphore(a, '/g', { maxLeases: 1 }).acquire();
    // b waits for a lease, holding the guard.
    const waiting = new Semaphore(b, '/g', { maxLeases: 1 }).acquire();
    await until(() => server.children('/g/leases').length === 2);
    expect(await new Semaphore(c, '/g', { maxLeases: 1 }).tryAcquire()).toBeNull();
    await held.release();
    await (await waiting).release();
  });

  it('a lease node deleted by someone else while waiting is replaced by a new one', async () => {
    const [server, a, b, admin] = scriptedSessions(3);
    const held = await new Semaphore(a, '/x', { maxLeases: 1 }).acquire();
    const waiting = new Semaphore(b, '/x', { maxLeases: 1 }).acquire();
    await until(() => server.children('/x/leases').length === 2);
    const mine = server.children('/x/leases').find((n) => !held.path.endsWith(n))!;
    await admin.delete(`/x/leases/${mine}`);
    await until(() => server.children('/x/leases').length === 2, 'a new lease node');
    expect(server.children('/x/leases')).not.toContain(mine);
    await held.release();
    const lease = await waiting;
    expect(lease.path).not.toContain(mine);
    await lease.release();
  });

  it('an acquire that gives up while waiting leaves no lease or guard node', async () => {
    const [server, a, b] = scriptedSessions(2);
    const held = await new Semaphore(a, '/t', { maxLeases: 1 }).acquire();
    await expect(
      new Semaphore(b, '/t', { maxLeases: 1 }).acquire({ timeout: 20 }),
    ).rejects.toBeInstanceOf(LockTimeoutError);
    await until(() => server.children('/t/leases').length === 1, 'the waiter to clean up');
    await until(() => server.children('/t/locks').length === 0, 'the guard to be released');
    await expect(
      new Semaphore(b, '/t', { maxLeases: 1 }).acquire({
        signal: AbortSignal.abort(new Error('no')),
      }),
    ).rejects.toThrow('no');
    await held.release();
  });

  it("names its lease nodes as Curator does (protected, 'lease-')", async () => {
    const [, client] = scriptedSessions(1);
    const lease = await new Semaphore(client, '/n', { maxLeases: 1 }).acquire();
    expect(lease.path).toMatch(/^\/n\/leases\/_c_[0-9a-f-]{36}-lease-0000000000$/);
    await lease.release();
  });

  it('tryAcquire passes on an error of its lease create', async () => {
    const [server, client] = scriptedSessions(1);
    server.fail({ op: 'create2', path: /^\/e\/leases\/_c_/, code: 'NOAUTH' });
    await expect(new Semaphore(client, '/e', { maxLeases: 1 }).tryAcquire()).rejects.toMatchObject({
      code: 'NOAUTH',
    });
    expect(server.children('/e/locks')).toEqual([]);
  });

  it('a waiter for the guard that gives up leaves the guard queue at once', async () => {
    const [server, a, b, c] = scriptedSessions(3);
    const held = await new Semaphore(a, '/q', { maxLeases: 1 }).acquire();
    // b holds the guard while it waits for a lease; c waits for the guard behind b.
    const waiting = new Semaphore(b, '/q', { maxLeases: 1 }).acquire();
    await until(() => server.children('/q/leases').length === 2);
    const abort = new AbortController();
    const third = new Semaphore(c, '/q', { maxLeases: 1 }).acquire({ signal: abort.signal });
    await until(() => server.children('/q/locks').length === 2);
    abort.abort(new Error('gave up'));
    await expect(third).rejects.toThrow('gave up');
    await until(() => server.children('/q/locks').length === 1, "c's guard node to go");
    await held.release();
    await (await waiting).release();
  });
});
