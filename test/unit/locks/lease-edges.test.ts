// A lease's edges through the public Mutex, against the scripted client (scripted-client.ts): the
// hold events it publishes on `zookeeper-ts:lock`, the node watch across a lost reply, a grant
// decided after close() began, the errors reentry answers with. Real-server behaviour:
// test/integration/locks/lease.test.ts and test/integration/telemetry/events.test.ts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Lease, LeaseReleasedError, LockLostError, Mutex } from '../../../src/locks/index.js';
import { expectLostToDelete, lockMessages, lossOf, watched } from '../../support/locks-unit.js';
import { scriptedSessions } from './scripted-client.js';

// The checks that something does NOT happen run on a faked clock: a second of it passes at once,
// with every follow-up of a step and any retry pause (100-200 ms) run, however loaded the machine.
const QUIET_MS = 1_000;

afterEach(() => {
  vi.useRealTimers();
});

/** The hold messages (`released`, `lost`) published while the test runs. */
const holdEvents = () =>
  lockMessages((event) => event.type === 'released' || event.type === 'lost');

/** The message a first release or loss of `lease` (on '/t') publishes. */
const holdMessage = (type: 'released' | 'lost', lease: Lease, reason?: string) => ({
  type,
  lockPath: '/t',
  node: lease.path,
  kind: 'lock-',
  holdTime: expect.any(Number),
  reason,
  afterLoss: false,
});

async function held(path = '/t', options: { lossPolicy?: 'suspended' | 'expired' } = {}) {
  const [server, client] = scriptedSessions(1);
  const lease = await new Mutex(client, path, options).acquire();
  return { server, client, lease, admin: server.connect() };
}

describe('lease hold events (zookeeper-ts:lock)', () => {
  it('a release publishes one released event naming the lock, node and kind', async () => {
    const events = holdEvents();
    const { lease } = await held();
    await lease.release();
    await lease.release();
    expect(events).toEqual([holdMessage('released', lease)]);
  });

  it('a loss publishes lost with its reason once; the release after it says afterLoss', async () => {
    const events = holdEvents();
    const { client, lease } = await held();
    client.setState('suspended');
    client.setState('expired');
    expect(lossOf(lease.signal)).toBe('suspended');
    await lease.release();
    expect(events).toEqual([
      holdMessage('lost', lease, 'suspended'),
      expect.objectContaining({ type: 'released', afterLoss: true, reason: undefined }),
    ]);
  });

  it('a session that ends after the release reports no loss, and the signal keeps its reason', async () => {
    const events = holdEvents();
    const { client, lease } = await held();
    const signal = lease.signal;
    await lease.release();
    client.setState('suspended');
    client.setState('expired');
    expect(events.map((event) => event.type)).toEqual(['released']);
    expect(signal.reason).toBeInstanceOf(LeaseReleasedError);
    expect((signal.reason as Error).message).toBe(`lease on ${lease.path} was released`);
  });

  it('a release tried again after a failed delete publishes no second released event', async () => {
    const events = holdEvents();
    const { server, lease } = await held();
    server.fail({ op: 'delete', code: 'NOAUTH' });
    await expect(lease.release()).rejects.toMatchObject({ code: 'NOAUTH' });
    await lease.release();
    expect(server.children('/t')).toEqual([]);
    expect(events.map((event) => event.type)).toEqual(['released']);
  });

  it('a release nobody awaits whose delete fails is no unhandled rejection; the next one deletes', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', onUnhandled);
    try {
      const { server, lease } = await held();
      server.fail({ op: 'delete', code: 'NOAUTH' });
      void lease.release(); // started and left, as a fire-and-forget cleanup does
      // The scripted server answers in microtasks: after them the process has looked for
      // rejections nobody handled (it does so before the next immediate runs).
      await new Promise((resolve) => setImmediate(resolve));
      expect(server.requests({ op: 'delete' }).map((request) => request.outcome)).toEqual([
        'NOAUTH',
      ]);
      expect(unhandled).toEqual([]);
      await lease.release();
      expect(server.children('/t')).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('a lease released after its loss keeps the loss as its signal reason', async () => {
    const { client, lease } = await held();
    const signal = lease.signal;
    client.setState('suspended');
    // The delete waits for the connection to come back.
    const releasing = lease.release();
    expect(signal.reason).toBeInstanceOf(LockLostError);
    expect(lossOf(signal)).toBe('suspended');
    client.setState('connected');
    await releasing;
    expect(lossOf(signal)).toBe('suspended');
  });
});

describe('lease node watch and grant edges (scripted client)', () => {
  it('a node watch whose reply was lost is set again, and still sees the deletion', async () => {
    const { server, client, admin, lease } = await held();
    server.fail({ op: 'getData', path: lease.path, code: 'CONNECTIONLOSS' });
    const signal = lease.signal;
    await watched(client, 2);
    expect(signal.aborted).toBe(false);
    await expectLostToDelete(admin, lease, signal);
  });

  it('a node watch refused for good leaves the lease held (the session state still counts)', async () => {
    vi.useFakeTimers();
    const { server, client, lease } = await held();
    server.fail({ op: 'getData', path: lease.path, code: 'NOAUTH' });
    const signal = lease.signal;
    await watched(client);
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(signal.aborted).toBe(false);
    client.setState('suspended');
    expect(lossOf(signal)).toBe('suspended');
    client.setState('connected');
    await lease.release();
  });

  it('a grant decided after close() began is refused with LockLostError closed', async () => {
    const [, client] = scriptedSessions(1);
    const list = client.getChildren.bind(client);
    client.getChildren = (async (path: string, options?: never) => {
      const children = await list(path, options);
      client.beginClose();
      return children;
    }) as typeof client.getChildren;
    const error = await new Mutex(client, '/c').acquire().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockLostError);
    expect(error).toMatchObject({ reason: 'closed', path: expect.stringMatching(/^\/c\//) });
  });

  it('await using releases the lease', async () => {
    const [server, client] = scriptedSessions(1);
    let signal: AbortSignal;
    {
      await using lease = await new Mutex(client, '/u').acquire();
      signal = lease.signal;
    }
    expect(signal.reason).toBeInstanceOf(LeaseReleasedError);
    expect(server.children('/u')).toEqual([]);
  });

  it("lossPolicy 'expired': no state short of the session's end is a loss", async () => {
    const { client, lease } = await held('/p', { lossPolicy: 'expired' });
    const signal = lease.signal;
    for (const state of ['suspended', 'connecting', 'connected-readonly', 'connected'] as const) {
      client.setState(state);
    }
    expect(signal.aborted).toBe(false);
    await lease.release();
  });

  it('the loss of one client’s session leaves another client’s lease held', async () => {
    const [, a, b] = scriptedSessions(2);
    const first = await new Mutex(a, '/x').acquire();
    const second = await new Mutex(b, '/y').acquire();
    a.setState('suspended');
    expect(first.signal.aborted).toBe(true);
    expect(second.signal.aborted).toBe(false);
    a.setState('connected');
    await first.release();
    await second.release();
  });
});

describe('reentry and release (scripted client)', () => {
  it('releasing one reentrant lease twice leaves the node to the other lease', async () => {
    const [server, client] = scriptedSessions(1);
    const mutex = new Mutex(client, '/twice');
    const first = await mutex.acquire();
    const second = await mutex.acquire({ reentrantFrom: first });
    const releasing = first.release();
    await releasing;
    expect(first.release()).toBe(releasing);
    await first.release();
    expect(server.children('/twice')).toHaveLength(1);
    expect(second.signal.aborted).toBe(false);
    await second.release();
    expect(server.children('/twice')).toEqual([]);
  });
});

describe('reentry errors (scripted client)', () => {
  it('names what is wrong with reentrantFrom', async () => {
    const [, client] = scriptedSessions(1);
    const mutex = new Mutex(client, '/re');
    const lease = await mutex.acquire();
    await expect(new Mutex(client, '/other').acquire({ reentrantFrom: lease })).rejects.toThrow(
      'reentrantFrom is not a lease of this lock',
    );
    for (const notALease of [null, 'lease', 7]) {
      await expect(
        mutex.acquire({ reentrantFrom: notALease as unknown as typeof lease }),
      ).rejects.toMatchObject({
        code: 'BADARGUMENTS',
        message: 'reentrantFrom is not a lease of this lock',
      });
    }
    await lease.release();
    await expect(mutex.acquire({ reentrantFrom: lease })).rejects.toThrow(
      'reentrantFrom lease was released',
    );
  });
});
