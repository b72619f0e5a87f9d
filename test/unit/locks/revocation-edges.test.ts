// Revocation edges against the scripted client (scripted-client.ts): what the request and the
// refusal say, what is published, and a lease already lost when it is made revocable.
import { describe, expect, it } from 'vitest';
import {
  Mutex,
  REVOKE_MESSAGE,
  type RevocationRequestedError,
  revoke,
  revokeNode,
  watchRevocation,
} from '../../../src/locks/index.js';
import { lockMessages } from '../../support/locks-unit.js';
import { until } from '../../support/wait.js';
import { ScriptedServer, scriptedSessions } from './scripted-client.js';

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
    await new Promise((r) => setTimeout(r, 10));
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
