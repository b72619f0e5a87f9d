// inspectLock / findLocks on a semaphore whose empty `locks/` container the server has removed
// (its reaper does so within a minute of the last waiter leaving; deleted here by hand, as the
// reaper would): the lease holders must still be seen. Real server.
import { describe, expect, it } from 'vitest';
import { findLocks, inspectLock, Semaphore } from '../../../src/locks/index.js';
import { uniquePath } from '../../harness/index.js';
import { newClient } from '../../support/clients.js';

describe('a semaphore without its locks/ container (real server)', () => {
  it('inspectLock and findLocks still show its lease holders', async () => {
    const root = uniquePath('inspect-reaped');
    const sem = `${root}/sem`;
    const [a, observer] = await Promise.all([newClient(), newClient()]);
    const lease = await new Semaphore(a, sem, { maxLeases: 2 }).acquire();
    expect(await observer.getChildren(`${sem}/locks`)).toEqual([]);
    await observer.delete(`${sem}/locks`);
    expect(await observer.getChildren(sem)).toEqual(['leases']);

    const view = await inspectLock(observer, sem);
    expect(view.contenders.map((c) => [c.path, c.state, c.kind, c.owner])).toEqual([
      [lease.path, 'holder', 'lease', a.sessionId],
    ]);
    const found = await findLocks(observer, root);
    expect(found.map((f) => [f.path, f.layout, f.holder?.path])).toEqual([
      [sem, 'semaphore', lease.path],
    ]);
    await lease.release();
  });
});
