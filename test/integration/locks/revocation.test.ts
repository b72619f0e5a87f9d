// Revocation between our own processes: opt-in holders are told, others are not, the lease's loss
// signal is untouched, and revoke() targets the holder.
import { describe, expect, it } from 'vitest';
import {
  Mutex,
  REVOKE_MESSAGE,
  RevocationRequestedError,
  revoke,
  revokeNode,
} from '../../../src/locks/index.js';
import { abortReason } from '../../support/integration.js';
import { afterRoundTrips } from '../../support/request-log.js';
import {
  childrenOf,
  lockPath,
  newClients,
  registeredWatchers,
  sleep,
  until,
  untilChildren,
} from './helpers.js';

describe('revocation', () => {
  it('a revocable holder is asked, releases, and the revoker gets the lock', async () => {
    const [holderZk, otherZk] = await newClients(2);
    const path = lockPath();
    const lease = await new Mutex(holderZk!, path).acquire({ revocable: true });
    lease.revocation.addEventListener('abort', () => void lease.release(), { once: true });
    const waiting = new Mutex(otherZk!, path).acquire({ timeout: 10_000 });
    await untilChildren(otherZk!, path, 2, 'queued');

    expect(await revoke(otherZk!, path)).toBe(lease.path);
    expect(await abortReason(lease.revocation)).toBeInstanceOf(RevocationRequestedError);
    // A request, not a loss: the lease's signal says released, not lost.
    const next = await waiting;
    expect(lease.signal.reason).toMatchObject({ name: 'LeaseReleasedError' });
    expect(next.fencingToken > lease.fencingToken).toBe(true);
    await next.release();
  });

  it('the loss signal is unaffected; a holder that did not opt in is never told', async () => {
    const [zk, revoker] = await newClients(2);
    const path = lockPath();
    const revocable = await new Mutex(zk!, path).acquire({ revocable: true });
    expect(await revokeNode(revoker!, revocable.path)).toBe(true);
    await abortReason(revocable.revocation);
    expect(revocable.signal.aborted).toBe(false);
    expect(revocable.released).toBe(false);
    // The holder keeps the lock until it chooses to release: deletion is still noticed.
    await revoker!.delete(revocable.path);
    expect(await abortReason(revocable.signal)).toMatchObject({ reason: 'deleted' });

    const plain = await new Mutex(zk!, path).acquire();
    expect('revocation' in plain).toBe(false);
    expect(await revoke(revoker!, path)).toBe(plain.path);
    const { data } = await revoker!.getData(plain.path);
    expect(new TextDecoder().decode(data)).toBe(REVOKE_MESSAGE);
    // Any event the write set off on the holder's session has been handled by then.
    await afterRoundTrips([zk!], path);
    expect(plain.signal.aborted).toBe(false);
    await plain.release();
  });

  it('a request written while the node was still waiting is seen when the lease is granted', async () => {
    const [a, b] = await newClients(2);
    const path = lockPath();
    const first = await new Mutex(a!, path).acquire();
    const waiting = new Mutex(b!, path).acquire({ revocable: true, timeout: 10_000 });
    await untilChildren(a!, path, 2, 'queued');
    const [, waiter] = await childrenOf(a!, path).then((names) =>
      names.sort((x, y) => x.slice(-10).localeCompare(y.slice(-10))),
    );
    expect(await revokeNode(a!, `${path}/${waiter}`)).toBe(true);
    await first.release();
    const lease = await waiting;
    expect(await abortReason(lease.revocation)).toBeInstanceOf(RevocationRequestedError);
    await lease.release();
  });

  it('revoke on a free lock, a missing node, and a path that is no lock node', async () => {
    const [zk] = await newClients(1);
    const path = lockPath();
    expect(await revoke(zk!, path)).toBeNull();
    expect(
      await revokeNode(zk!, `${path}/_c_00000000-0000-0000-0000-000000000000-lock-0000000001`),
    ).toBe(false);
    await zk!.create2(path.slice(0, path.lastIndexOf('/')));
    await zk!.create2(`${path}-data`, 'precious');
    await expect(revokeNode(zk!, `${path}-data`)).rejects.toMatchObject({ code: 'BADARGUMENTS' });
    expect(new TextDecoder().decode((await zk!.getData(`${path}-data`)).data)).toBe('precious');
  });

  it('reentrant revocable leases share one watcher on the held node, and a revocation still reaches each', async () => {
    const [zk, revoker] = await newClients(2);
    const path = lockPath();
    const mutex = new Mutex(zk!, path);
    const outer = await mutex.acquire({ revocable: true });
    await until(() => registeredWatchers(zk!, outer.path) > 0, 'the outer watch set');
    const baseline = registeredWatchers(zk!, outer.path);
    for (let i = 0; i < 1_000; i++) {
      const inner = await mutex.acquire({ revocable: true, reentrantFrom: outer });
      await sleep(0);
      await inner.release();
    }
    await afterRoundTrips([zk!], outer.path); // every watch request of the pairs is answered
    // Before: one closure per reentrant lease stayed registered (1,002 after 1,000 pairs).
    expect(registeredWatchers(zk!, outer.path)).toBeLessThanOrEqual(baseline);
    const inner = await mutex.acquire({ revocable: true, reentrantFrom: outer });
    await until(() => registeredWatchers(zk!, outer.path) > 0, 'the inner watch set');
    expect(await revokeNode(revoker!, outer.path)).toBe(true);
    expect(await abortReason(inner.revocation)).toBeInstanceOf(RevocationRequestedError);
    expect(await abortReason(outer.revocation)).toBeInstanceOf(RevocationRequestedError);
    await inner.release();
    await outer.release();
  });
});
