import { describe, expect, it } from 'vitest';
import { ExclusiveLock, MultiLock, Mutex } from '../../../src/locks/index.js';
import { sharedServer, uniquePath } from '../../harness/index.js';
import { childrenOf, newClient } from './helpers.js';

describe('locks under a chroot', () => {
  it('work relative to the chroot, and order MultiLocks by full server path', async () => {
    const root = uniquePath('chroot');
    const plain = await newClient();
    await plain.create2(root);
    await plain.create2(`${root}/b`);
    const inB = await newClient({}, `${sharedServer().connectString}${root}/b`);
    const inRoot = await newClient({}, `${sharedServer().connectString}${root}`);
    const lease = await new Mutex(inB, '/lock').acquire();
    expect(lease.path.startsWith('/lock/_c_')).toBe(true);
    expect(await childrenOf(plain, `${root}/b/lock`)).toHaveLength(1);
    // The same lock seen through another chroot.
    expect(await new Mutex(inRoot, '/b/lock').tryAcquire()).toBeNull();
    await lease.release();

    // '/z' under `${root}/b` is `${root}/b/z`, after `${root}/a`, whatever the relative names say.
    const multi = new MultiLock([new Mutex(inB, '/z'), new Mutex(inRoot, '/a')]);
    expect(multi.locks.map((l) => `${l.client.chroot}${l.path}`)).toEqual([
      `${root}/a`,
      `${root}/b/z`,
    ]);
  });

  it('rejects (does not spin) when the chroot does not exist', async () => {
    const zk = await newClient({}, `${sharedServer().connectString}${uniquePath('missing')}`);
    await expect(new Mutex(zk, '/lock').acquire({ timeout: 5_000 })).rejects.toMatchObject({
      code: 'NONODE',
    });
    await expect(new Mutex(zk, '/').acquire({ timeout: 5_000 })).rejects.toMatchObject({
      code: 'NONODE',
    });
    await expect(new ExclusiveLock(zk, '/lock').acquire({ timeout: 5_000 })).rejects.toMatchObject({
      code: 'NONODE',
    });
  });
});
