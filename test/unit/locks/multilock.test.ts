// MultiLock against the scripted client (scripted-client.ts): all or nothing, one canonical order,
// the parts given back on every failure. Real-server behaviour: test/integration/locks/multilock.test.ts.
import { describe, expect, it } from 'vitest';
import {
  LeaseReleasedError,
  LockLostError,
  LockTimeoutError,
  MultiLock,
  Mutex,
  Semaphore,
} from '../../../src/locks/index.js';
import { until } from '../../support/wait.js';
import { type ScriptedClient, ScriptedServer, scriptedSessions } from './scripted-client.js';

const both = (client: ScriptedClient) =>
  new MultiLock([new Mutex(client, '/b'), new Mutex(client, '/a')]);

describe('MultiLock (scripted client)', () => {
  it('refuses what is not a non-empty list of distinct locks, and flattens nested ones', () => {
    const client = new ScriptedServer().connect();
    const badArgs = expect.objectContaining({ code: 'BADARGUMENTS' });
    expect(() => new MultiLock('x' as unknown as [])).toThrow(badArgs);
    expect(() => new MultiLock([])).toThrow(badArgs);
    expect(() => new MultiLock([null as unknown as Mutex])).toThrow(
      expect.objectContaining({ message: expect.stringContaining('null') }),
    );
    expect(() => new MultiLock([5 as unknown as Mutex])).toThrow(
      expect.objectContaining({ message: expect.stringContaining('number') }),
    );
    expect(() => new MultiLock([{ acquire: 1 } as unknown as Mutex])).toThrow(badArgs);
    expect(() => new MultiLock([new Mutex(client, '/a'), new Mutex(client, '/a')])).toThrow(
      expect.objectContaining({ message: expect.stringContaining('/a') }),
    );
    // The same path on two clients is two locks.
    const other = new ScriptedServer().connect();
    expect(() => new MultiLock([new Mutex(client, '/a'), new Mutex(other, '/a')])).not.toThrow();
    const nested = new MultiLock([both(client), new Mutex(client, '/c')]);
    expect(nested.locks).toHaveLength(3);
    expect(nested.path).toBe('/a,/b,/c');
    expect(nested.client).toBe(client);
    expect(() => new MultiLock([both(client), new Mutex(client, '/b')])).toThrow(badArgs);
  });

  it('takes the locks in the order of their full server paths (chroot included)', () => {
    const [server, plain] = scriptedSessions(1);
    const chrooted = server.connect();
    Object.defineProperty(chrooted, 'chroot', { value: '/0' });
    const lock = new MultiLock([
      new Mutex(plain, '/b'),
      new Mutex(chrooted, '/z'),
      new Mutex(plain, '/'),
      new Mutex(plain, '/a'),
    ]);
    expect(lock.locks.map((l) => l.path)).toEqual(['/', '/z', '/a', '/b']);
    expect(lock.client).toBe(plain);
  });

  it('holds all the locks; its token is the highest, its signal ends at release, which gives back all', async () => {
    const [server, client] = scriptedSessions(1);
    const lease = await both(client).acquire();
    expect(lease.leases.map((l) => l.path.slice(0, 2))).toEqual(['/a', '/b']);
    expect(lease.path).toBe(lease.leases.map((l) => l.path).join(','));
    const tokens = lease.leases.map((l) => l.fencingToken);
    expect(lease.fencingToken).toBe(tokens[1]);
    expect(tokens[1]! > tokens[0]!).toBe(true);
    expect(lease.released).toBe(false);
    expect(lease.signal.aborted).toBe(false);
    const releasing = lease.release();
    expect(lease.released).toBe(true);
    expect(lease.signal.reason).toBeInstanceOf(LeaseReleasedError);
    await releasing;
    expect(lease.release()).toBe(releasing);
    expect([...server.children('/a'), ...server.children('/b')]).toEqual([]);
    // Given back last-taken first.
    const deletes = server.requests({ op: 'delete' }).map((r) => r.path.slice(0, 2));
    expect(deletes).toEqual(['/b', '/a']);
  });

  it('its token is the highest of the parts, also when that is the part taken first', async () => {
    // Two ensembles: their zxids are unrelated, so the first part's token can be the higher one.
    const [busy, quiet] = [new ScriptedServer(), new ScriptedServer()];
    const [a, b] = [busy.connect(), quiet.connect()];
    for (let i = 0; i < 20; i++) await a.create2(`/n${i}`);
    const lease = await new MultiLock([new Mutex(a, '/a'), new Mutex(b, '/b')]).acquire();
    const [first, second] = lease.leases;
    expect(first!.fencingToken > second!.fencingToken).toBe(true);
    expect(lease.fencingToken).toBe(first!.fencingToken);
    await lease.release();
  });

  it('its signal aborts as soon as one part is lost', async () => {
    const [server, client, admin] = scriptedSessions(2);
    const lease = await both(client).acquire();
    const signal = lease.signal;
    void lease.leases[1]!.signal; // start watching the node
    await until(() => server.requests({ op: 'getData', watch: true }).length > 0);
    await admin.delete(lease.leases[1]!.path);
    await until(() => signal.aborted, 'the multi lease to be lost');
    expect(signal.reason).toBeInstanceOf(LockLostError);
    await lease.release();
  });

  it('a part already lost when the lease is made aborts its signal at once', async () => {
    const [, client] = scriptedSessions(1);
    const lease = await both(client).acquire();
    client.setState('suspended');
    client.setState('connected');
    expect(lease.signal.aborted).toBe(true);
    await lease.release();
  });

  it('waits for a taken part, gives back the parts it holds at its timeout', async () => {
    const [server, a, b] = scriptedSessions(2);
    const other = await new Mutex(b, '/b').acquire();
    const error = await both(a)
      .acquire({ timeout: 30 })
      .catch((e) => e);
    expect(error).toBeInstanceOf(LockTimeoutError);
    await until(() => server.children('/a').length === 0, '/a to be given back');
    await expect(both(a).acquire({ timeout: 0 })).rejects.toBeInstanceOf(LockTimeoutError);
    await until(() => server.children('/a').length === 0, '/a to be given back');
    const waiting = both(a).acquire();
    await until(() => server.children('/b').length === 2);
    await other.release();
    const lease = await waiting;
    expect(lease.leases).toHaveLength(2);
    await lease.release();
  });

  it('an already-aborted signal takes nothing', async () => {
    const [server, client] = scriptedSessions(1);
    await expect(
      both(client).acquire({ signal: AbortSignal.abort(new Error('no')) }),
    ).rejects.toThrow('no');
    expect(server.requests({ op: 'create2' })).toEqual([]);
  });

  it('tryAcquire: all free gives all, one taken gives back the rest and null', async () => {
    const [server, a, b] = scriptedSessions(2);
    const lease = await both(a).tryAcquire();
    expect(lease!.leases).toHaveLength(2);
    await lease!.release();
    const other = await new Mutex(b, '/b').acquire();
    expect(await both(a).tryAcquire()).toBeNull();
    expect(server.children('/a')).toEqual([]);
    await other.release();
  });

  it('tryAcquire: an error on a later part gives back the earlier ones and rejects', async () => {
    const [server, a] = scriptedSessions(1);
    server.fail({ op: 'create2', path: /^\/b\//, code: 'NOAUTH' });
    await expect(both(a).tryAcquire()).rejects.toMatchObject({ code: 'NOAUTH' });
    expect(server.children('/a')).toEqual([]);
  });

  it('an error on a later part of acquire gives back the earlier ones and rejects with it', async () => {
    const [server, a] = scriptedSessions(1);
    server.fail({ op: 'create2', path: /^\/b\//, code: 'NOAUTH' });
    await expect(both(a).acquire()).rejects.toMatchObject({ code: 'NOAUTH' });
    expect(server.children('/a')).toEqual([]);
  });

  it('a part lost while waiting for the rest: all given back, taken again from the first', async () => {
    const [server, a, b, admin] = scriptedSessions(3);
    const other = await new Semaphore(b, '/s', { maxLeases: 1 }).acquire();
    const lock = new MultiLock([new Mutex(a, '/a'), new Semaphore(a, '/s', { maxLeases: 1 })]);
    const waiting = lock.acquire();
    await until(() => server.children('/s/leases').length === 2, 'a to wait for the semaphore');
    const firstNode = server.children('/a')[0]!;
    // A's first part is taken away by an operator while it waits for the second.
    await admin.delete(`/a/${firstNode}`);
    await until(
      () => server.children('/s/leases').length === 1,
      'the waiting part to be given back',
    );
    await until(() => server.children('/a').length === 1, 'the first part to be taken again');
    expect(server.children('/a')[0]).not.toBe(firstNode);
    await other.release();
    const lease = await waiting;
    expect(lease.signal.aborted).toBe(false);
    await lease.release();
  });

  it('a part lost to a session that is over: the acquire rejects with the loss', async () => {
    const [server, a, b] = scriptedSessions(2);
    const lockB = new Mutex(b, '/b');
    const other = await lockB.acquire();
    const lock = new MultiLock([new Mutex(a, '/a'), new Mutex(b, '/b')]);
    const waiting = lock.acquire();
    await until(() => server.children('/b').length === 2);
    a.setState('expired');
    await expect(waiting).rejects.toBeInstanceOf(LockLostError);
    await other.release();
  });

  it('await using releases every part', async () => {
    const [server, client] = scriptedSessions(1);
    {
      await using lease = await both(client).acquire();
      expect(lease.leases).toHaveLength(2);
    }
    expect([...server.children('/a'), ...server.children('/b')]).toEqual([]);
  });
});
