// ensurePath, createWithParents, deleteRecursive and guaranteedDelete against the real server.
import { describe, expect, it } from 'vitest';
import { CreateMode } from '../../../src/index.js';
import {
  createWithParents,
  deleteRecursive,
  ensurePath,
  guaranteedDelete,
} from '../../../src/recipes/index.js';
import { recordRequests } from '../../support/request-log.js';
import { cutAndPeer, newClient, recipePath, until } from './helpers.js';

describe('ensurePath', () => {
  it('creates every missing ancestor as a container, and leaves existing nodes alone', async () => {
    const zk = await newClient();
    const root = recipePath('ensure');
    await zk.create(root.slice(0, root.lastIndexOf('/')), 'keep');
    await ensurePath(zk, `${root}/a/b/c`);
    await ensurePath(zk, `${root}/a/b/c`); // twice is fine
    const { data } = await zk.getData(root.slice(0, root.lastIndexOf('/')));
    expect(new TextDecoder().decode(data)).toBe('keep');
    // A container's stat has no ephemeral owner; the server reports the mode only through
    // getEphemerals and the container reaper: check that an emptied container goes away.
    await zk.create(`${root}/a/b/c/leaf`);
    await zk.delete(`${root}/a/b/c/leaf`);
    expect(await zk.exists(`${root}/a/b/c`)).not.toBeNull();
  });

  it('creates persistent nodes with containers: false', async () => {
    const zk = await newClient();
    const root = recipePath('persistent');
    await ensurePath(zk, `${root}/x`, { containers: false });
    expect(await zk.exists(`${root}/x`)).not.toBeNull();
  });

  it('rejects with the signal reason when aborted', async () => {
    const zk = await newClient();
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(
      ensurePath(zk, `${recipePath('abort')}/x`, { signal: controller.signal }),
    ).rejects.toThrow();
  });
});

describe('createWithParents', () => {
  it('creates a sequential node under missing parents and returns its actual path', async () => {
    const zk = await newClient();
    const dir = `${recipePath('cwp')}/p/q`;
    const { path, stat } = await createWithParents(zk, `${dir}/n-`, 'v', {
      mode: CreateMode.PERSISTENT_SEQUENTIAL,
    });
    expect(path).toMatch(/\/n-\d{10}$/);
    expect(stat.dataLength).toBe(1);
    await expect(createWithParents(zk, path)).rejects.toMatchObject({ code: 'NODEEXISTS' });
  });
});

describe('deleteRecursive', () => {
  it("deletes a subtree, and reports a missing node as 'gone'", async () => {
    const zk = await newClient();
    const root = recipePath('tree');
    for (const p of ['a/b/c', 'a/d', 'e'])
      await ensurePath(zk, `${root}/${p}`, { containers: false });
    expect(await deleteRecursive(zk, root)).toBe('deleted');
    expect(await zk.exists(root)).toBeNull();
    expect(await deleteRecursive(zk, root)).toBe('gone');
  });

  it('deletes children added concurrently by another client', async () => {
    const [zk, writer] = [await newClient(), await newClient()];
    const root = recipePath('race');
    await ensurePath(zk, `${root}/seed`, { containers: false });
    for (let i = 0; i < 50; i++) await zk.create(`${root}/seed/n${i}`);
    // The writer adds 200 more children while the delete runs (a writer that never stops would
    // keep the delete going: that is what its signal is for).
    const adding = (async () => {
      for (let i = 0; i < 200; i++) {
        try {
          await writer.create(`${root}/seed/w${i}`);
        } catch (error) {
          if ((error as { code?: string }).code !== 'NONODE') throw error;
          return; // the parent is gone: the delete won
        }
      }
    })();
    const result = await deleteRecursive(zk, root);
    await adding;
    expect(result).toBe('deleted');
    expect(await zk.exists(root)).toBeNull();
  });

  it('checks the version of the top node only', async () => {
    const zk = await newClient();
    const root = recipePath('ver');
    await ensurePath(zk, `${root}/child`, { containers: false });
    await zk.setData(root, 'x');
    await expect(deleteRecursive(zk, root, { version: 0 })).rejects.toMatchObject({
      code: 'BADVERSION',
    });
    expect(await deleteRecursive(zk, root, { version: 1 })).toBe('deleted');
  });
});

describe('guaranteedDelete', () => {
  it('deletes at once when connected, and reports an absent node as gone', async () => {
    const zk = await newClient();
    const path = recipePath('g');
    await ensurePath(zk, path, { containers: false });
    const settled: string[] = [];
    const outcome = await guaranteedDelete(zk, path, { onSettled: (o) => settled.push(o.status) });
    expect(outcome).toMatchObject({ status: 'deleted', attempts: 1 });
    expect(settled).toEqual(['deleted']);
    expect(await guaranteedDelete(zk, path)).toMatchObject({ status: 'gone' });
  });

  /**
   * A node made by an observer, then guaranteedDelete on a client whose link drops everything:
   * the delete keeps retrying (every `maxDelay` ms at most) until the test thaws or closes.
   */
  async function deleteOnFrozenLink(name: string, maxDelay: number) {
    const { client, proxy, peer: observer, path } = await cutAndPeer(name, { requestTimeout: 300 });
    await ensurePath(observer, path, { containers: false });
    proxy.freeze('drop');
    const outcome = guaranteedDelete(client, path, { retry: { baseDelay: 50, maxDelay } });
    return { client, proxy, observer, path, outcome };
  }

  it('keeps trying across a cut link and deletes once the session is back', async () => {
    const { client, proxy, observer, path, outcome } = await deleteOnFrozenLink('g-cut', 200);
    const log = recordRequests(() => client.sessionId);
    try {
      // Two tries have timed out on the frozen link (each one 300 ms request timeout).
      await until(() => log.failedOn(path) >= 2, 'two failed tries of the delete');
    } finally {
      log.stop();
    }
    expect(await observer.exists(path)).not.toBeNull();
    proxy.thaw();
    proxy.cut();
    const result = await outcome;
    expect(result.status).toBe('deleted');
    expect(result.attempts).toBeGreaterThan(1);
    expect(await observer.exists(path)).toBeNull();
  });

  it('stops with "closed" when the client is closed while it waits, without rejecting', async () => {
    const { client, observer, path, outcome } = await deleteOnFrozenLink('g-close', 100);
    const log = recordRequests(() => client.sessionId);
    try {
      await until(() => log.failedOn(path) >= 1, 'a failed try of the delete');
    } finally {
      log.stop();
    }
    void client.close().catch(() => {});
    const result = await outcome;
    expect(result.status).toBe('closed');
    expect(await observer.exists(path)).not.toBeNull();
  });

  it('deletes a subtree with recursive, and fails without it on NOTEMPTY', async () => {
    const zk = await newClient();
    const path = recipePath('g-tree');
    await ensurePath(zk, `${path}/a/b`, { containers: false });
    expect(await guaranteedDelete(zk, path)).toMatchObject({
      status: 'failed',
      error: expect.objectContaining({ code: 'NOTEMPTY' }),
    });
    expect(await guaranteedDelete(zk, path, { recursive: true })).toMatchObject({
      status: 'deleted',
    });
    await until(async () => (await zk.exists(path)) === null, 'the subtree gone');
  });
});
