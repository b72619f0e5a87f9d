// A waiting acquire whose lock directory disappears (its session expired and the server swept the
// empty container, or an operator removed it) queues again on a new node: NONODE from its
// wake-up listing never reaches the caller. The real-server case is in
// test/integration/locks/lock-path-gone.test.ts.
import { describe, expect, it } from 'vitest';
import { Mutex, Semaphore } from '../../../src/locks/index.js';
import { until } from '../../support/wait.js';
import { scriptedSessions } from './scripted-client.js';

describe('a waiter whose lock directory was removed (scripted client)', () => {
  it('queues again, making the path, and gets the lock', async () => {
    const [server, a, b] = scriptedSessions(2);
    const held = await new Mutex(a, '/gone/lock').acquire();
    const waiting = new Mutex(b, '/gone/lock').acquire({ timeout: 5_000 });
    waiting.catch(() => {});
    // b's watch on a's node is set (its getData answered).
    await until(() => b.requests({ op: 'getData', watch: true }).length > 0, "b's watch");
    const bySequence = (x: string, y: string) => (x.slice(-10) < y.slice(-10) ? -1 : 1);
    const [first, second] = server.children('/gone/lock').sort(bySequence);
    expect(held.path).toBe(`/gone/lock/${first}`);
    // In one step, before b hears of it: its own node, a's node (b's wake-up), the directory.
    server.delete(`/gone/lock/${second}`, -1);
    server.delete(`/gone/lock/${first}`, -1);
    server.delete('/gone/lock', -1);
    const lease = await waiting;
    expect(server.children('/gone/lock')).toEqual([lease.path.slice('/gone/lock/'.length)]);
    expect(server.requests({ op: 'getChildren', path: '/gone/lock' }).at(-2)?.outcome).toBe(
      'NONODE',
    );
    await lease.release();
    await held.release();
  });

  it('a Semaphore waiter takes a new lease node when the lease directory is gone', async () => {
    const [server, a, b] = scriptedSessions(2);
    const held = await new Semaphore(a, '/gone/sem', { maxLeases: 1 }).acquire();
    const waiting = new Semaphore(b, '/gone/sem', { maxLeases: 1 }).acquire({ timeout: 5_000 });
    waiting.catch(() => {});
    // b's watch on the lease list is set (its listing answered).
    await until(
      () => b.requests({ op: 'getChildren', path: '/gone/sem/leases', watch: true }).length > 0,
      "b's watch",
    );
    for (const node of server.children('/gone/sem/leases'))
      server.delete(`/gone/sem/leases/${node}`, -1);
    server.delete('/gone/sem/leases', -1);
    const lease = await waiting;
    expect(server.children('/gone/sem/leases')).toEqual([
      lease.path.slice('/gone/sem/leases/'.length),
    ]);
    await lease.release();
    await held.release();
  });
});
