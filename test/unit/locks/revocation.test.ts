// Revocation against the scripted client (scripted-client.ts): revoke() finds the holder and
// writes Curator's request; a revocable lease hears of it. Real-server and Curator interop:
// test/integration/locks/revocation.test.ts.
// Also: what the request and the refusal say, what is published, and a lease already lost when
// it is made revocable.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CreateMode } from '../../../src/index.js';
import {
  Mutex,
  REVOKE_MESSAGE,
  RevocationRequestedError,
  revoke,
  revokeNode,
  watchRevocation,
} from '../../../src/locks/index.js';
import { lockMessages } from '../../support/locks-unit.js';
import { until } from '../../support/wait.js';
import { ScriptedServer, scriptedSessions } from './scripted-client.js';

const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);

// The clock is faked in every test (until() advances it a millisecond at a time): the checks that
// something does NOT happen let a whole second pass at once, every follow-up of a step and any
// retry pause run by then, however loaded the machine.
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Lets every pending request, watch event and timer of the next faked second run. */
const settle = () => vi.advanceTimersByTimeAsync(1_000);

describe('revocation (scripted client)', () => {
  it("revoke() writes Curator's request into the holder's node, and a revocable holder is told", async () => {
    const [server, a, b, c] = scriptedSessions(3);
    const lease = await new Mutex(a, '/r').acquire({ revocable: true });
    const waiter = new Mutex(c, '/r').acquire();
    await until(() => server.children('/r').length === 2);
    await settle();
    expect(lease.revocation.aborted).toBe(false);
    expect(REVOKE_MESSAGE).toBe('__REVOKE__');
    expect(await revoke(b, '/r')).toBe(lease.path);
    expect(text(server.nodes.get(lease.path)!.data)).toBe('__REVOKE__');
    await until(() => lease.revocation.aborted, 'the request to reach the holder');
    const reason = lease.revocation.reason;
    expect(reason).toBeInstanceOf(RevocationRequestedError);
    expect(reason.name).toBe('RevocationRequestedError');
    expect(reason.message).toContain(lease.path);
    expect(reason.path).toBe(lease.path);
    // A request, not a loss: the lease still holds.
    expect(lease.signal.aborted).toBe(false);
    expect(lease.released).toBe(false);
    await lease.release();
    await (await waiter).release();
  });

  it('a holder that did not opt in is not told; other data written into the node is no request', async () => {
    const [, a, b] = scriptedSessions(2);
    const plain = await new Mutex(a, '/p').acquire();
    expect('revocation' in plain).toBe(false);
    await plain.release();
    const lease = await new Mutex(a, '/p').acquire({ revocable: true });
    await settle();
    await b.setData(lease.path, '__REVOKE_');
    await settle();
    await b.setData(lease.path, '__REVOKE__X');
    await settle();
    await b.setData(lease.path, '__REVOKEX_');
    await settle();
    expect(lease.revocation.aborted).toBe(false);
    // The watch is set again after each change: a real request still arrives.
    await b.setData(lease.path, REVOKE_MESSAGE);
    await until(() => lease.revocation.aborted);
    // Told once; later writes change nothing.
    const reason = lease.revocation.reason;
    await b.setData(lease.path, REVOKE_MESSAGE);
    await settle();
    expect(lease.revocation.reason).toBe(reason);
    await lease.release();
  });

  it('a request written before the grant is seen at once', async () => {
    const [server, a, b] = scriptedSessions(2);
    const held = await new Mutex(b, '/early').acquire();
    const waiting = new Mutex(a, '/early').acquire({ revocable: true });
    await until(() => server.children('/early').length === 2);
    const mine = server.children('/early').find((n) => !held.path.endsWith(n))!;
    await revokeNode(b, `/early/${mine}`);
    await held.release();
    const lease = await waiting;
    await until(() => lease.revocation.aborted, 'the earlier request');
    await lease.release();
  });

  it('a revocable lease stops watching once released (no request after the release reaches it)', async () => {
    const [, a, b] = scriptedSessions(2);
    const lease = await new Mutex(a, '/done').acquire({ revocable: true });
    await settle();
    const watchesBefore = a.requests({ op: 'getData', watch: true }).length;
    await lease.release();
    expect(lease.revocation.aborted).toBe(false);
    // The node is gone: nothing to revoke.
    expect(await revoke(b, '/done')).toBeNull();
    await settle();
    expect(a.requests({ op: 'getData', watch: true }).length).toBe(watchesBefore);
  });

  it('reentry keeps the same revocable lease object and watch', async () => {
    const [, a, b] = scriptedSessions(2);
    const mutex = new Mutex(a, '/re');
    const lease = await mutex.acquire({ revocable: true });
    const again = await mutex.acquire({ reentrantFrom: lease, revocable: true });
    expect(again.path).toBe(lease.path);
    await revoke(b, '/re');
    await until(() => lease.revocation.aborted && again.revocation.aborted);
    await again.release();
    await lease.release();
  });

  it('revoke() finds nobody on a missing or empty path, and names the first by creation order', async () => {
    const [server, a, b] = scriptedSessions(2);
    expect(await revoke(b, '/none')).toBeNull();
    await a.create2('/empty', undefined, { mode: CreateMode.PERSISTENT });
    expect(await revoke(b, '/empty')).toBeNull();
    // kazoo's name counts too; unrelated children do not.
    await a.create2('/empty/other', undefined, { mode: CreateMode.PERSISTENT });
    expect(await revoke(b, '/empty')).toBeNull();
    const kazoo = await a.create2('/empty/abcd__lock__', undefined, {
      mode: CreateMode.EPHEMERAL_SEQUENTIAL,
    });
    await a.create2('/empty/_c_x-lock-', undefined, { mode: CreateMode.EPHEMERAL_SEQUENTIAL });
    expect(await revoke(b, '/empty')).toBe(kazoo.path);
    expect(text(server.nodes.get(kazoo.path)!.data)).toBe(REVOKE_MESSAGE);
  });

  it('revoke() passes on a listing error other than NONODE, and a holder gone before the write is null', async () => {
    const [server, a, b] = scriptedSessions(2);
    const lease = await new Mutex(a, '/err').acquire();
    server.fail({ op: 'getChildren', path: '/err', code: 'NOAUTH' });
    await expect(revoke(b, '/err')).rejects.toMatchObject({ code: 'NOAUTH' });
    server.fail({ op: 'setData', path: lease.path, code: 'NONODE' });
    expect(await revoke(b, '/err')).toBeNull();
    server.fail({ op: 'setData', path: lease.path, code: 'NOAUTH' });
    await expect(revoke(b, '/err')).rejects.toMatchObject({ code: 'NOAUTH' });
    // A lost reply is retried.
    server.fail({ op: 'setData', path: lease.path, code: 'CONNECTIONLOSS' });
    expect(await revoke(b, '/err')).toBe(lease.path);
    await lease.release();
  });

  it('revokeNode refuses a path that is no lock node, and says false for a missing one', async () => {
    const [server, b] = scriptedSessions(1);
    await b.create2('/config', 'precious', { mode: CreateMode.PERSISTENT });
    await expect(revokeNode(b, '/config')).rejects.toMatchObject({ code: 'BADARGUMENTS' });
    expect(text(server.nodes.get('/config')!.data)).toBe('precious');
    expect(await revokeNode(b, '/x/_c_y-lock-0000000001')).toBe(false);
    expect(await revokeNode(b, '/x/abc__READ__0000000001')).toBe(false);
  });

  it('watchRevocation on a watched lease returns it as it is; the revocation signal is an own enumerable property', async () => {
    const [, a, b] = scriptedSessions(2);
    const lease = await new Mutex(a, '/twice').acquire();
    const watched = watchRevocation(a, lease);
    expect(watched).toBe(lease);
    const revocation = watched.revocation;
    expect(watchRevocation(a, watched)).toBe(lease);
    expect(watched.revocation).toBe(revocation);
    expect(Object.keys(watched)).toContain('revocation');
    await settle();
    await revoke(b, '/twice');
    await until(() => revocation.aborted);
    await lease.release();
  });

  it('at the sequence limit revoke() names the holder by creation order, as the Mutex does', async () => {
    const [, a, b] = scriptedSessions(2);
    await a.create2('/limit', undefined, { mode: CreateMode.PERSISTENT });
    // Both names carry the counter's last value; the one created first holds.
    const first = await a.create2('/limit/_c_b-lock-2147483647', undefined, {
      mode: CreateMode.EPHEMERAL,
    });
    await a.create2('/limit/_c_a-lock-2147483647', undefined, { mode: CreateMode.EPHEMERAL });
    expect(await revoke(b, '/limit')).toBe(first.path);
  });
});

describe('revocation edges (scripted client)', () => {
  it('the request says who asked what of whom, and is published on the lock channel', async () => {
    const seen = lockMessages((message) => message.type === 'revocation-requested');
    const [, a, b] = scriptedSessions(2);
    const lease = await new Mutex(a, '/r').acquire({ revocable: true });
    await revoke(b, '/r');
    await until(() => lease.revocation.aborted);
    const reason = lease.revocation.reason as RevocationRequestedError;
    expect(reason.message).toBe(`another process asked the holder of ${lease.path} to release it`);
    expect(reason.op).toBe('revoke');
    expect(reason.code).toBe('REVOCATIONREQUESTED');
    expect(reason.errno).toBe(-1005);
    expect(seen).toEqual([
      { type: 'revocation-requested', lockPath: '/r', node: lease.path, reason: undefined },
    ]);
    await lease.release();
  });

  it('revokeNode names the path it refuses', async () => {
    const b = new ScriptedServer().connect();
    await expect(revokeNode(b, '/config')).rejects.toMatchObject({
      code: 'BADARGUMENTS',
      message: '/config is not a lock node',
    });
  });

  it('a lease already lost is not watched, and not told of a request in its node', async () => {
    const [, a, b] = scriptedSessions(2);
    const lease = await new Mutex(a, '/lost').acquire();
    void lease.signal;
    await b.setData(lease.path, REVOKE_MESSAGE);
    a.setState('suspended');
    a.setState('connected');
    expect(lease.signal.aborted).toBe(true);
    const watchedBefore = a.requests({ op: 'getData', watch: true }).length;
    const revocable = watchRevocation(a, lease);
    await settle();
    expect(revocable.revocation.aborted).toBe(false);
    expect(a.requests({ op: 'getData', watch: true })).toHaveLength(watchedBefore);
    await lease.release();
  });

  it('the watch is kept through any number of retriable failures (no retry limit): a request written after twelve failed reads is heard', async () => {
    // Suspected gap: after some number of failed reads the holder stops watching. The read of
    // the node retries retriable errors until it succeeds or the lease ends, however many.
    const [server, a, b] = scriptedSessions(2);
    const mutex = new Mutex(a, '/many');
    // Every read of the held node fails twelve times: the first watch, then the re-read that a
    // data change starts.
    server.fail({
      op: 'getData',
      path: /^\/many\//,
      session: a.sessionId,
      code: 'CONNECTIONLOSS',
      times: 12,
    });
    const lease = await mutex.acquire({ revocable: true });
    const reads = () => server.requests({ op: 'getData', session: a.sessionId, path: lease.path });
    const answered = () => reads().filter((r) => r.outcome === 'ok').length;
    // Two watches on the node: the lease's own (its signal, read by the revocation check) and
    // the revocation's.
    await until(() => answered() >= 2, 'the watches to be set');
    const before = answered();
    server.fail({
      op: 'getData',
      path: lease.path,
      session: a.sessionId,
      code: 'REQUESTTIMEOUT',
      times: 12,
    });
    await b.setData(lease.path, 'not a request');
    await until(
      () =>
        reads().filter((r) => r.outcome === 'REQUESTTIMEOUT').length === 12 && answered() > before,
      'the re-read after the change to succeed',
    );
    expect(lease.revocation.aborted).toBe(false);
    await revoke(b, '/many');
    await until(() => lease.revocation.aborted, 'the request to reach the holder');
    expect(reads().filter((r) => r.outcome !== 'ok')).toHaveLength(24);
    expect(lease.signal.aborted).toBe(false);
    await lease.release();
  });
});
