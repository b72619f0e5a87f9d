// MultiLock's edges against the scripted client (scripted-client.ts) and hand-made locks (any
// object with the Lock surface is a lock to a MultiLock): the refusals' messages, the canonical
// order's corner cases, parts handed out already lost, clients that are over, and release errors.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { boundsWaiting } from '../../../src/coordination/deadline.js';
import { ZooKeeperError } from '../../../src/index.js';
import {
  type Lease,
  LeaseReleasedError,
  type Lock,
  LockLostError,
  MultiLock,
  Mutex,
} from '../../../src/locks/index.js';
import { until } from '../../support/wait.js';
import { type ScriptedClient, ScriptedServer, scriptedSessions } from './scripted-client.js';

// The checks that something does NOT happen run on a faked clock: a second of it passes at once,
// with every follow-up of a step and any retry pause (100-200 ms) run, however loaded the machine.
const QUIET_MS = 1_000;

afterEach(() => {
  vi.useRealTimers();
});

const chrooted = (client: ScriptedClient, chroot: string) => {
  Object.defineProperty(client, 'chroot', { value: chroot });
  return client;
};

/** A lease made by hand: `lost` hands it out already lost. */
function handLease(path: string, lost?: Error): Lease {
  const own = new AbortController();
  if (lost) own.abort(lost);
  let released = false;
  return {
    path,
    fencingToken: 1n,
    signal: own.signal,
    get released() {
      return released;
    },
    async release() {
      released = true;
    },
    multi: () => Promise.reject(new Error('no guarded writes on a hand-made lease')),
    [Symbol.asyncDispose]() {
      return this.release();
    },
  };
}

/** A lock made by hand whose first grant (acquire or tryAcquire) is a lease already lost. */
function lockLostAtFirstGrant(client: ScriptedClient, path: string) {
  const grants: Lease[] = [];
  const grant = async () => {
    const lease = handLease(path, grants.length === 0 ? new Error('lost at once') : undefined);
    grants.push(lease);
    return lease;
  };
  const lock: Lock = { client, path, acquire: grant, tryAcquire: grant };
  return { lock, grants };
}

describe('MultiLock edges (scripted client)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('says what is wrong with what it was given', () => {
    const client = new ScriptedServer().connect();
    const refusal = (message: string) =>
      expect.objectContaining({ code: 'BADARGUMENTS', message: expect.stringContaining(message) });
    expect(() => new MultiLock('x' as unknown as [])).toThrow(
      refusal('MultiLock takes an array of locks'),
    );
    expect(() => new MultiLock({} as unknown as [])).toThrow(
      refusal('MultiLock takes an array of locks'),
    );
    expect(() => new MultiLock([])).toThrow(refusal('MultiLock needs at least one lock'));
    expect(() => new MultiLock([null as unknown as Mutex])).toThrow(
      refusal('MultiLock takes locks, got null'),
    );
    // A function carrying an acquire method is not a lock either.
    const fn = Object.assign(() => {}, {
      client,
      path: '/f',
      acquire: async () => null,
      tryAcquire: async () => null,
    });
    expect(() => new MultiLock([fn as unknown as Mutex])).toThrow(
      refusal('MultiLock takes locks, got function'),
    );
    expect(() => new MultiLock([{ acquire: 1 } as unknown as Mutex])).toThrow(
      refusal('MultiLock takes locks, got object'),
    );
  });

  it("orders a chrooted client's root by the chroot itself", () => {
    const [server, plain] = scriptedSessions(1);
    const inZero = chrooted(server.connect(), '/0');
    // '/0' sorts before '/0!', but '/0/' (the chroot plus '/') after it.
    const afterChroot = new MultiLock([new Mutex(plain, '/0!'), new Mutex(inZero, '/')]);
    expect(afterChroot.locks.map((l) => l.client)).toEqual([inZero, plain]);
    // '/!' sorts before '/0', but after a bare '/'.
    const beforeChroot = new MultiLock([new Mutex(inZero, '/'), new Mutex(plain, '/!')]);
    expect(beforeChroot.locks.map((l) => l.client)).toEqual([plain, inZero]);
  });

  it('keeps the given order of locks on the same full path (several clients)', () => {
    const [, a, b, c] = scriptedSessions(3);
    const one = new MultiLock([new Mutex(a, '/s'), new Mutex(b, '/s'), new Mutex(c, '/s')]);
    expect(one.locks.map((l) => l.client)).toEqual([a, b, c]);
    const other = new MultiLock([new Mutex(c, '/s'), new Mutex(b, '/s'), new Mutex(a, '/s')]);
    expect(other.locks.map((l) => l.client)).toEqual([c, b, a]);
    const mixed = new MultiLock([
      new Mutex(b, '/t'),
      new Mutex(c, '/s'),
      new Mutex(a, '/r'),
      new Mutex(a, '/s'),
    ]);
    expect(
      mixed.locks.map((l) => `${l.path}:${[a, b, c].indexOf(l.client as ScriptedClient)}`),
    ).toEqual(['/r:0', '/s:2', '/s:0', '/t:1']);
  });

  it('a last part handed out already lost is given back and taken again', async () => {
    const client = new ScriptedServer().connect();
    const { lock, grants } = lockLostAtFirstGrant(client, '/z');
    const lease = await new MultiLock([new Mutex(client, '/a'), lock]).acquire();
    expect(grants).toHaveLength(2);
    expect(grants[0]!.released).toBe(true);
    expect(lease.signal.aborted).toBe(false);
    expect(lease.leases[1]).toBe(grants[1]);
    await lease.release();
  });

  it('tryAcquire hands out a part already lost as a lost multi lease', async () => {
    const client = new ScriptedServer().connect();
    const { lock } = lockLostAtFirstGrant(client, '/z');
    const lease = await new MultiLock([new Mutex(client, '/a'), lock]).tryAcquire();
    expect(lease!.signal.aborted).toBe(true);
    expect(lease!.signal.reason).toEqual(new Error('lost at once'));
    await lease!.release();
  });

  it('an already aborted acquire asks no part for its lock', async () => {
    vi.useFakeTimers();
    const client = new ScriptedServer().connect();
    const { lock, grants } = lockLostAtFirstGrant(client, '/z');
    await expect(
      new MultiLock([lock]).acquire({ signal: AbortSignal.abort(new Error('no')) }),
    ).rejects.toThrow('no');
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(grants).toEqual([]);
  });

  it.each(['closed', 'auth-failed'] as const)(
    'a part lost to a client that is %s: the acquire rejects with the loss, no retry',
    async (state) => {
      const [server, a, b] = scriptedSessions(2);
      const other = await new Mutex(b, '/b').acquire();
      const waiting = new MultiLock([new Mutex(a, '/a'), new Mutex(b, '/b')]).acquire({
        timeout: 2_000,
      });
      await until(() => server.children('/b').length === 2);
      a.setState(state);
      await expect(waiting).rejects.toBeInstanceOf(LockLostError);
      await other.release();
    },
  );

  it('a failed acquire has given back its parts by the time it rejects', async () => {
    const [server, a] = scriptedSessions(1);
    server.fail({ op: 'create2', path: /^\/b\//, code: 'NOAUTH' });
    const lock = new MultiLock([new Mutex(a, '/a'), new Mutex(a, '/b')]);
    const error = await lock.acquire().catch((e) => e);
    expect(error).toMatchObject({ code: 'NOAUTH' });
    expect(server.children('/a')).toEqual([]);
    // And tryAcquire, when a later part is taken.
    const holder = await new Mutex(server.connect(), '/b').acquire();
    expect(await lock.tryAcquire()).toBeNull();
    expect(server.children('/a')).toEqual([]);
    await holder.release();
  });

  it('release gives back every part and rejects with the first error met (last part first)', async () => {
    const [server, client] = scriptedSessions(1);
    const lock = new MultiLock([
      new Mutex(client, '/a'),
      new Mutex(client, '/b'),
      new Mutex(client, '/c'),
    ]);
    const lease = await lock.acquire();
    server.fail({ op: 'delete', path: /^\/c\//, code: 'NOAUTH' });
    server.fail({ op: 'delete', path: /^\/a\//, code: 'NOTEMPTY' });
    const error = await lease.release().catch((e) => e);
    expect(error).toBeInstanceOf(ZooKeeperError);
    expect(error.code).toBe('NOAUTH');
    // The part between the failures was given back.
    expect(server.children('/b')).toEqual([]);
  });

  it("its signal's reason at release names the whole set", async () => {
    const client = new ScriptedServer().connect();
    const lease = await new MultiLock([new Mutex(client, '/a'), new Mutex(client, '/b')]).acquire();
    await lease.release();
    expect(lease.signal.reason).toBeInstanceOf(LeaseReleasedError);
    expect(lease.signal.reason.message).toContain(lease.path);
    expect(lease.signal.reason.path).toBe(lease.path);
  });

  it('leaves no timer holding the process once granted, and none at all after its timeout', async () => {
    vi.useFakeTimers();
    const client = new ScriptedServer().connect();
    const lock = new MultiLock([new Mutex(client, '/a'), new Mutex(client, '/b')]);
    const lease = await lock.acquire({ timeout: 60_000 });
    // The shared timer stays armed, unref'd, for the next wait; nothing waits on it.
    expect(boundsWaiting()).toBe(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(vi.getTimerCount()).toBe(0);
    await lease.release();
  });
});
