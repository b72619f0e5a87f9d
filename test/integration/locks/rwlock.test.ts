import { describe, expect, it } from 'vitest';
import type { Lease } from '../../../src/locks/index.js';
import { ReadWriteLock } from '../../../src/locks/index.js';
import { afterRoundTrips } from '../../support/request-log.js';
import {
  childrenOf,
  lockPath,
  newClients,
  until,
  untilChildren,
  watchesByPath,
} from './helpers.js';

describe('ReadWriteLock', () => {
  it('readers share; a writer excludes; readers behind a waiting writer wait', async () => {
    const [r1, r2, w, r3] = await newClients(4);
    const path = lockPath();
    const read1 = await new ReadWriteLock(r1!, path).read.acquire();
    const read2 = await new ReadWriteLock(r2!, path).read.acquire({ timeout: 1_000 });
    expect(await new ReadWriteLock(w!, path).write.tryAcquire()).toBeNull();

    let written: Lease | undefined;
    const writing = new ReadWriteLock(w!, path).write
      .acquire({ timeout: 10_000 })
      .then((l) => (written = l));
    await untilChildren(r1!, path, 3, 'writer queued');
    let lateRead: Lease | undefined;
    const reading = new ReadWriteLock(r3!, path).read
      .acquire({ timeout: 10_000 })
      .then((l) => (lateRead = l));
    await untilChildren(r1!, path, 4, 'late reader queued');
    // After two round trips on every client, any grant a wrong wake-up would make has shown.
    const clients = [r1!, r2!, w!, r3!];
    await afterRoundTrips(clients, path);
    expect(written).toBeUndefined();
    expect(lateRead).toBeUndefined();

    await read1.release();
    await afterRoundTrips(clients, path);
    expect(written).toBeUndefined();
    await read2.release();
    await writing;
    await afterRoundTrips(clients, path);
    expect(lateRead).toBeUndefined(); // the writer excludes readers
    await written!.release();
    await reading;
    await lateRead!.release();
    expect(await childrenOf(r1!, path)).toEqual([]);
  });

  it('a timed-out or aborted writer leaves no node, and readers are not held up by it', async () => {
    const [r, w, r2] = await newClients(3);
    const path = lockPath();
    const read = await new ReadWriteLock(r!, path).read.acquire();
    await expect(new ReadWriteLock(w!, path).write.acquire({ timeout: 150 })).rejects.toMatchObject(
      {
        code: 'TIMEOUT',
      },
    );
    // A timeout rejects on time and removes its node in the background: wait for that.
    const only = [read.path.slice(path.length + 1)];
    const readerOnly = async () =>
      JSON.stringify(await childrenOf(r!, path)) === JSON.stringify(only);
    await until(readerOnly, 'timed-out writer node removed');
    const controller = new AbortController();
    const writing = new ReadWriteLock(w!, path).write.acquire({ signal: controller.signal });
    await untilChildren(r!, path, 2, 'writer queued');
    controller.abort(new Error('never mind'));
    await expect(writing).rejects.toThrow('never mind');
    await until(readerOnly, 'aborted writer node removed');
    expect(await childrenOf(r!, path)).toEqual(only);
    const second = await new ReadWriteLock(r2!, path).read.tryAcquire();
    expect(second).not.toBeNull();
    await second!.release();
    await read.release();
  });

  it('reenters: read or write from a write lease, read from a read lease, never write from read', async () => {
    const [zk, other] = await newClients(2);
    const path = lockPath();
    const lock = new ReadWriteLock(zk!, path);
    const write = await lock.write.acquire();
    const readInWrite = await lock.read.acquire({ reentrantFrom: write });
    const writeAgain = await lock.write.tryAcquire({ reentrantFrom: write });
    expect(readInWrite.path).toBe(write.path);
    expect(writeAgain?.path).toBe(write.path);
    await write.release();
    await writeAgain!.release();
    // The read lease shares the write node: still exclusive.
    expect(await new ReadWriteLock(other!, path).read.tryAcquire()).toBeNull();
    await readInWrite.release();
    expect(await childrenOf(zk!, path)).toEqual([]);

    const read = await lock.read.acquire();
    const readAgain = await lock.read.acquire({ reentrantFrom: read });
    await expect(lock.write.acquire({ reentrantFrom: read })).rejects.toMatchObject({
      code: 'BADARGUMENTS',
    });
    await readAgain.release();
    await read.release();
    expect(await childrenOf(zk!, path)).toEqual([]);
  });

  it("uses Curator's node names", async () => {
    const [zk] = await newClients(1);
    const path = lockPath();
    const lock = new ReadWriteLock(zk!, path);
    const read = await lock.read.acquire();
    const write = await new ReadWriteLock(zk!, `${path}-w`).write.acquire();
    expect(read.path.slice(path.length + 1)).toMatch(/^_c_[0-9a-f-]{36}-__READ__\d{10}$/);
    expect(write.path.slice(path.length + 3)).toMatch(/^_c_[0-9a-f-]{36}-__WRIT__\d{10}$/);
    await read.release();
    await write.release();
  });

  it('no herd: waiting readers watch only the last writer ahead, writers their predecessor', async () => {
    const zks = await newClients(6);
    const path = lockPath();
    const queued = (n: number) => untilChildren(zks[0]!, path, n, `${n} queued`);
    // Queue: W0 R1 R2 W3 R4 (W0 holds)
    const w0 = await new ReadWriteLock(zks[0]!, path).write.acquire();
    const pending: Promise<Lease>[] = [];
    const kinds = ['read', 'read', 'write', 'read'] as const;
    for (const [i, kind] of kinds.entries()) {
      pending.push(new ReadWriteLock(zks[i + 1]!, path)[kind].acquire({ timeout: 20_000 }));
      await queued(i + 2);
    }
    const names = await childrenOf(zks[0]!, path);
    const bySeq = names
      .sort((a, b) => Number(a.slice(-10)) - Number(b.slice(-10)))
      .map((n) => `${path}/${n}`);
    let watches = new Map<string, bigint[]>();
    await until(async () => {
      watches = await watchesByPath(path);
      return [...watches.values()].flat().length === 4; // 4 waiters (W0 never read its signal)
    }, 'waiters watching');
    const sessions = (i: number) =>
      (watches.get(bySeq[i]!) ?? []).filter((s) => s !== zks[i]!.sessionId).sort();
    const ids = (...i: number[]) => i.map((n) => zks[n]!.sessionId).sort();
    expect(sessions(0)).toEqual(ids(1, 2)); // both readers get in when W0 goes: waking both is no herd
    expect(sessions(1)).toEqual([]);
    expect(sessions(2)).toEqual(ids(3)); // W3 watches its immediate predecessor
    expect(sessions(3)).toEqual(ids(4)); // R4 watches the last writer ahead of it, not W0
    expect(sessions(4)).toEqual([]);

    await w0.release();
    const [r1, r2] = await Promise.all([pending[0]!, pending[1]!]);
    await r1.release();
    await r2.release();
    const w3 = await pending[2]!;
    await w3.release();
    await (await pending[3]!).release();
    expect(await childrenOf(zks[0]!, path)).toEqual([]);
  });
});
