// Semaphore's options against the scripted client (scripted-client.ts): what its refusals say,
// maxLeases and sequenceOrder, and what it publishes on the lock channel.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CreateMode, InvalidArgumentError } from '../../../src/index.js';
import { Semaphore, SemaphoreMutex, type SemaphoreOptions } from '../../../src/locks/index.js';
import { expectTwoHoldsOfKind, lockMessages } from '../../support/locks-unit.js';
import { until } from '../../support/wait.js';
import { ScriptedServer, scriptedSessions } from './scripted-client.js';

// The checks that something does NOT happen run on a faked clock: a second of it passes at once,
// with every follow-up of a step and any retry pause (100-200 ms) run, however loaded the machine.
const QUIET_MS = 1_000;

afterEach(() => {
  vi.useRealTimers();
});

describe('Semaphore options and events (scripted client)', () => {
  it('refuses an invalid path or maxLeases, saying which', () => {
    const client = new ScriptedServer().connect();
    expect(() => new Semaphore(client, 'x', { maxLeases: 1 })).toThrow(
      expect.objectContaining({
        code: 'BADARGUMENTS',
        message: expect.stringMatching(/^Semaphore: invalid path "x"/),
      }),
    );
    expect(() => new Semaphore(client, '/s', { maxLeases: 0 })).toThrow(
      expect.objectContaining({
        code: 'BADARGUMENTS',
        message: 'maxLeases must be a positive integer, got 0',
      }),
    );
  });

  it('takes maxLeases from its options: missing options or a missing maxLeases is an InvalidArgumentError', () => {
    const client = new ScriptedServer().connect();
    const construct = (options: unknown) => () =>
      new Semaphore(client, '/s', options as SemaphoreOptions);
    expect(construct(undefined)).toThrow(InvalidArgumentError);
    expect(construct(undefined)).toThrow('Semaphore needs options with maxLeases');
    expect(construct({})).toThrow('maxLeases must be a positive integer, got undefined');
    expect(construct({ maxLeases: 2.5 })).toThrow(InvalidArgumentError);
    expect(construct({ maxLeases: 2 ** 31 })).toThrow(InvalidArgumentError);
    expect(new Semaphore(client, '/s', { maxLeases: 3 }).maxLeases).toBe(3);
    expect(new SemaphoreMutex(client, '/m').maxLeases).toBe(1);
    expect(new SemaphoreMutex(client, '/m', { data: 'x' }).maxLeases).toBe(1);
  });

  it("publishes its acquires and holds with the kind 'lease-'", async () => {
    const seen = lockMessages((message) => message.lockPath === '/k');
    const client = new ScriptedServer().connect();
    const lease = await new Semaphore(client, '/k', { maxLeases: 1 }).acquire();
    await lease.release();
    const tried = await new Semaphore(client, '/k', { maxLeases: 1 }).tryAcquire();
    await tried!.release();
    expectTwoHoldsOfKind(seen, 'lease-');
  });

  it("its guard follows the semaphore's sequenceOrder", async () => {
    const [, a, b] = scriptedSessions(2);
    await b.create2('/o', undefined, { mode: CreateMode.PERSISTENT });
    await b.create2('/o/locks', undefined, { mode: CreateMode.PERSISTENT });
    // Another process's guard node at the counter's limit, created before ours: it holds the
    // guard in creation order ('numeric'), ours does by sequence text ('interop').
    await b.create2('/o/locks/_c_z-lock-2147483647', undefined, { mode: CreateMode.EPHEMERAL });
    expect(await new Semaphore(a, '/o', { maxLeases: 1 }).tryAcquire()).toBeNull();
    const lease = await new Semaphore(a, '/o', {
      maxLeases: 1,
      sequenceOrder: 'interop',
    }).tryAcquire();
    expect(lease).not.toBeNull();
    await lease!.release();
  });

  it('gives the guard back after a grant: the next process takes a lease at once', async () => {
    const [server, a, b] = scriptedSessions(2);
    const first = await new Semaphore(a, '/g', { maxLeases: 2 }).acquire();
    expect(server.children('/g/locks')).toEqual([]);
    const second = await new Semaphore(b, '/g', { maxLeases: 2 }).tryAcquire();
    expect(second).not.toBeNull();
    await first.release();
    await second!.release();
  });

  it('waiters of one client on two semaphores: a release wakes only the waiter of its semaphore', async () => {
    vi.useFakeTimers();
    const [, a, b] = scriptedSessions(2);
    const [one, two] = [
      await new Semaphore(a, '/s1', { maxLeases: 1 }).acquire(),
      await new Semaphore(a, '/s2', { maxLeases: 1 }).acquire(),
    ];
    const onOne = new Semaphore(b, '/s1', { maxLeases: 1 }).acquire();
    const onTwo = new Semaphore(b, '/s2', { maxLeases: 1 }).acquire();
    const listings = (dir: string) => b.requests({ op: 'getChildren', path: dir }).length;
    await until(() => listings('/s1/leases') === 1 && listings('/s2/leases') === 1);
    await two.release();
    await (await onTwo).release();
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(listings('/s1/leases')).toBe(1);
    await one.release();
    await (await onOne).release();
  });
});
