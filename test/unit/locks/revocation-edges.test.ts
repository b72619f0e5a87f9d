// Revocation edges against the scripted client (scripted-client.ts): what the request and the
// refusal say, what is published, and a lease already lost when it is made revocable.
import diagnostics from 'node:diagnostics_channel';
import { describe, expect, it } from 'vitest';
import {
  Mutex,
  REVOKE_MESSAGE,
  type RevocationRequestedError,
  revoke,
  revokeNode,
  watchRevocation,
} from '../../../src/locks/index.js';
import { until } from '../../support/wait.js';
import { ScriptedServer } from './scripted-client.js';

describe('revocation edges (scripted client)', () => {
  it('the request says who asked what of whom, and is published on the lock channel', async () => {
    const seen: { type: string; lockPath?: string; node?: string }[] = [];
    const listener = (message: unknown) => seen.push(message as (typeof seen)[number]);
    diagnostics.subscribe('zookeeper-ts:lock', listener);
    try {
      const server = new ScriptedServer();
      const [a, b] = [server.connect(), server.connect()];
      const lease = await new Mutex(a, '/r').acquire({ revocable: true });
      await revoke(b, '/r');
      await until(() => lease.revocation.aborted);
      const reason = lease.revocation.reason as RevocationRequestedError;
      expect(reason.message).toBe(
        `another process asked the holder of ${lease.path} to release it`,
      );
      expect(reason.op).toBe('revoke');
      expect(reason.code).toBe('OK');
      expect(seen.filter((m) => m.type === 'revocation-requested')).toEqual([
        { type: 'revocation-requested', lockPath: '/r', node: lease.path, reason: undefined },
      ]);
      await lease.release();
    } finally {
      diagnostics.unsubscribe('zookeeper-ts:lock', listener);
    }
  });

  it('revokeNode names the path it refuses', async () => {
    const b = new ScriptedServer().connect();
    await expect(revokeNode(b, '/config')).rejects.toMatchObject({
      code: 'BADARGUMENTS',
      message: '/config is not a lock node',
    });
  });

  it('a lease already lost is not watched, and not told of a request in its node', async () => {
    const server = new ScriptedServer();
    const [a, b] = [server.connect(), server.connect()];
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
});
