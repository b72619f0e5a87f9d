// A lease's life through the public Mutex, against the scripted client (scripted-client.ts): what
// aborts its signal and with which reason, release, reentry. Real-server behaviour:
// test/integration/locks/lease.test.ts.
import { describe, expect, it } from 'vitest';
import { LeaseReleasedError, Mutex, ReadWriteLock } from '../../../src/locks/index.js';
import { expectLostToDelete, lossOf, watched } from '../../support/locks-unit.js';
import { until } from '../../support/wait.js';
import { scriptedSessions } from './scripted-client.js';

async function held(options: { lossPolicy?: 'suspended' | 'expired' } = {}) {
  const [server, client] = scriptedSessions(1);
  const lease = await new Mutex(client, '/l', options).acquire();
  return { server, client, lease, admin: server.connect() };
}

describe('lease signal and release (scripted client)', () => {
  it('is a Lease with its path and fencing token; release deletes the node once, aborting the signal', async () => {
    const { server, lease } = await held();
    expect(String(lease)).toBe('[object Lease]');
    expect(lease.fencingToken).toBe(server.nodes.get(lease.path)!.stat.czxid);
    const signal = lease.signal;
    expect(signal.aborted).toBe(false);
    const releasing = lease.release();
    expect(lease.released).toBe(true);
    expect(signal.reason).toBeInstanceOf(LeaseReleasedError);
    expect(lease.release()).toBe(releasing);
    await releasing;
    expect(server.children('/l')).toEqual([]);
    expect(server.requests({ op: 'delete' })).toHaveLength(1);
  });

  it('a signal first read after the release is already aborted with LeaseReleasedError', async () => {
    const { lease } = await held();
    await lease.release();
    expect(lease.signal.aborted).toBe(true);
    expect(lease.signal.reason).toBeInstanceOf(LeaseReleasedError);
  });

  it('a release that failed is tried again by the next release()', async () => {
    const { server, lease } = await held();
    server.fail({ op: 'delete', code: 'NOAUTH' });
    await expect(lease.release()).rejects.toMatchObject({ code: 'NOAUTH' });
    expect(server.children('/l')).toHaveLength(1);
    await lease.release();
    expect(server.children('/l')).toEqual([]);
    // Done: later calls hand back the same success.
    await lease.release();
    expect(server.requests({ op: 'delete' })).toHaveLength(2);
  });

  it('aborts at a suspension by default, with the reason', async () => {
    const { client, lease } = await held();
    const signal = lease.signal;
    client.setState('suspended');
    expect(signal.aborted).toBe(true);
    expect(lossOf(signal)).toBe('suspended');
    client.setState('connected');
    await lease.release();
  });

  it("with lossPolicy 'expired' a suspension is no loss, the expiry is", async () => {
    const { client, lease } = await held({ lossPolicy: 'expired' });
    const signal = lease.signal;
    client.setState('suspended');
    client.setState('connected');
    expect(signal.aborted).toBe(false);
    client.setState('expired');
    expect(lossOf(signal)).toBe('expired');
    await lease.release();
  });

  it.each(['closed', 'auth-failed'] as const)('aborts when the session is %s', async (state) => {
    const { client, lease } = await held({ lossPolicy: 'expired' });
    const signal = lease.signal;
    client.setState(state);
    expect(lossOf(signal)).toBe(state);
    await lease.release();
  });

  it('a loss before the signal is read is kept: the signal is born aborted and reentry refuses', async () => {
    const [, client] = scriptedSessions(1);
    const mutex = new Mutex(client, '/k');
    const lease = await mutex.acquire();
    client.setState('suspended');
    client.setState('connected');
    expect(lease.signal.aborted).toBe(true);
    expect(lossOf(lease.signal)).toBe('suspended');
    await expect(mutex.acquire({ reentrantFrom: lease })).rejects.toMatchObject({
      reason: 'suspended',
    });
    await lease.release();
  });

  it('aborts the moment close() begins', async () => {
    const { client, lease } = await held({ lossPolicy: 'expired' });
    const signal = lease.signal;
    client.beginClose();
    expect(lossOf(signal)).toBe('closed');
  });

  it('aborts when its node is deleted by someone else', async () => {
    const { client, admin, lease } = await held();
    const signal = lease.signal;
    await watched(client);
    await expectLostToDelete(admin, lease, signal);
  });

  it('a data change of its node is no loss, and the watch is set again', async () => {
    const { client, admin, lease } = await held();
    const signal = lease.signal;
    await watched(client);
    await admin.setData(lease.path, 'touched');
    await until(() => client.requests({ op: 'getData', watch: true }).length === 2, 'a new watch');
    expect(signal.aborted).toBe(false);
    await expectLostToDelete(admin, lease, signal);
  });

  it('a node already gone or replaced when the signal is first read is lost', async () => {
    const { server, client, admin, lease } = await held();
    await expectLostToDelete(admin, lease, lease.signal);
    // Replaced: another node at the same path (another czxid).
    const again = await new Mutex(client, '/r').acquire();
    await admin.delete(again.path);
    await admin.create2(again.path, undefined, {});
    const replaced = again.signal;
    await until(() => replaced.aborted, 'the loss of the replaced node');
    expect(server.nodes.has(again.path)).toBe(true);
    await again.release();
  });

  it("a watch event with no node ('None', the session's end) is a loss with the session's state", async () => {
    const [, client] = scriptedSessions(1);
    const options = { lossPolicy: 'expired' } as const;
    const lease = await new Mutex(client, '/n', options).acquire();
    // Capture the watcher the lease sets, then fire a session event at it.
    const watchers: ((event: { type: string; state?: string; path?: string }) => void)[] = [];
    const realGetData = client.getData.bind(client);
    client.getData = ((path: string, options: { watch?: (e: never) => void } = {}) => {
      if (options.watch) watchers.push(options.watch as never);
      return realGetData(path, options as never);
    }) as typeof client.getData;
    for (const [i, state] of (['auth-failed', 'expired', 'closed'] as const).entries()) {
      const held = i === 0 ? lease : await new Mutex(client, `/n${i + 1}`, options).acquire();
      const signal = held.signal;
      await until(() => watchers.length > i);
      for (const watcher of watchers.slice(i)) watcher({ type: 'None', state });
      expect(lossOf(signal)).toBe(state);
      await held.release();
    }
  });

  it('after a renewal the old session’s node is not deleted by the new session', async () => {
    const { server, client, lease } = await held({ lossPolicy: 'expired' });
    client.renew();
    expect(lossOf(lease.signal)).toBe('expired');
    await lease.release();
    expect(server.requests({ op: 'delete' })).toEqual([]);
  });
});

describe('reentry (scripted client)', () => {
  it('shares the node; the node goes with the last release', async () => {
    const [server, client] = scriptedSessions(1);
    const mutex = new Mutex(client, '/re');
    const first = await mutex.acquire();
    const second = await mutex.acquire({ reentrantFrom: first });
    expect(second.path).toBe(first.path);
    expect(second.fencingToken).toBe(first.fencingToken);
    expect(second).not.toBe(first);
    await first.release();
    expect(server.children('/re')).toHaveLength(1);
    expect(second.signal.aborted).toBe(false);
    // A released lease is no ticket for reentry, even while another lease holds the node.
    await expect(mutex.acquire({ reentrantFrom: first })).rejects.toMatchObject({
      code: 'BADARGUMENTS',
    });
    await second.release();
    expect(server.children('/re')).toEqual([]);
    // Reentry from a released lease is refused.
    await expect(mutex.acquire({ reentrantFrom: second })).rejects.toMatchObject({
      code: 'BADARGUMENTS',
    });
  });

  it('refuses a lease of another lock, another client, another kind, or no lease', async () => {
    const [, a, b] = scriptedSessions(2);
    const lease = await new Mutex(a, '/one').acquire();
    const badArgs = { code: 'BADARGUMENTS' };
    await expect(new Mutex(a, '/two').acquire({ reentrantFrom: lease })).rejects.toMatchObject(
      badArgs,
    );
    await expect(new Mutex(b, '/one').acquire({ reentrantFrom: lease })).rejects.toMatchObject(
      badArgs,
    );
    await expect(
      new Mutex(a, '/one').acquire({ reentrantFrom: { ...lease } as never }),
    ).rejects.toMatchObject(badArgs);
    const rw = new ReadWriteLock(a, '/rw');
    const read = await rw.read.acquire();
    await expect(rw.write.acquire({ reentrantFrom: read })).rejects.toMatchObject(badArgs);
    const write = await rw.write.acquire({ reentrantFrom: read }).catch(() => undefined);
    expect(write).toBeUndefined();
    await read.release();
    await lease.release();
  });

  it('a lease whose holding ended (its last release under way) cannot be reentered', async () => {
    const [, client] = scriptedSessions(1);
    const mutex = new Mutex(client, '/end');
    const first = await mutex.acquire();
    const second = await mutex.acquire({ reentrantFrom: first });
    await first.release();
    await second.release();
    await expect(mutex.acquire({ reentrantFrom: first })).rejects.toMatchObject({
      code: 'BADARGUMENTS',
    });
  });
});
