// findLocks against the scripted client (scripted-client.ts): every lock folder under a root, its
// layout and holder. Real-server and Curator/kazoo processes: test/integration/locks/inspect.test.ts.
import { describe, expect, it } from 'vitest';
import { CreateMode } from '../../../src/index.js';
import {
  findLocks,
  KAZOO_READ_NAME,
  LeaderLatch,
  Mutex,
  Semaphore,
} from '../../../src/locks/index.js';
import { scriptedSessions } from './scripted-client.js';

const PERSISTENT = { mode: CreateMode.PERSISTENT };
const EPHEMERAL_SEQ = { mode: CreateMode.EPHEMERAL_SEQUENTIAL };

describe('findLocks (scripted client)', () => {
  it('finds each layout under the root, sorted by path, with its holder', async () => {
    const [, a, b] = scriptedSessions(2);
    for (const dir of ['/r', '/r/app', '/r/app/deep', '/r/empty', '/r/kz', '/r/both']) {
      await a.create2(dir, undefined, PERSISTENT);
    }
    const mutex = await new Mutex(a, '/r/app/deep/m').acquire();
    const lease = await new Semaphore(b, '/r/sem', { maxLeases: 2 }).acquire();
    const latch = new LeaderLatch(b, '/r/el');
    latch.start();
    await latch.leadership();
    await a.create2(`/r/kz/aa${KAZOO_READ_NAME}`, undefined, EPHEMERAL_SEQ);
    await a.create2('/r/kz/bb__lock__', undefined, EPHEMERAL_SEQ);
    await a.create2('/r/both/_c_z-lock-', undefined, EPHEMERAL_SEQ);
    await a.create2('/r/both/cc__lock__', undefined, EPHEMERAL_SEQ);

    const found = await findLocks(a, '/r');
    expect(found.map((f) => [f.path, f.layout])).toEqual([
      ['/r/app/deep/m', 'curator'],
      ['/r/both', 'curator+kazoo'],
      ['/r/el', 'election'],
      ['/r/kz', 'kazoo'],
      ['/r/sem', 'semaphore'],
    ]);
    const byPath = new Map(found.map((f) => [f.path, f]));
    expect(byPath.get('/r/app/deep/m')!.holder!.path).toBe(mutex.path);
    expect(byPath.get('/r/app/deep/m')!.inspection.holders).toBe(1);
    expect(byPath.get('/r/sem')!.holder!.path).toBe(lease.path);
    expect(byPath.get('/r/el')!.holder!.owner).toBe(b.sessionId);
    expect(byPath.get('/r/kz')!.holder!.kind).toBe('read');
    expect(byPath.get('/r/both')!.inspection.waiting).toBe(1);
    // The same walk from the lock folder itself finds it; a missing root finds nothing.
    expect((await findLocks(a, '/r/app/deep/m')).map((f) => f.path)).toEqual(['/r/app/deep/m']);
    expect(await findLocks(a, '/nowhere')).toEqual([]);

    await mutex.release();
    await lease.release();
    await latch.close();
  });

  it("keeps Curator's and kazoo's queues apart with namingQueues: 'separate'", async () => {
    const [, a] = scriptedSessions(1);
    await a.create2('/n', undefined, PERSISTENT);
    await a.create2('/n/_c_z-lock-', undefined, EPHEMERAL_SEQ);
    await a.create2('/n/cc__lock__', undefined, EPHEMERAL_SEQ);
    const [shared] = await findLocks(a, '/n');
    expect(shared!.inspection.holders).toBe(1);
    const [separate] = await findLocks(a, '/n', { namingQueues: 'separate' });
    expect(separate!.inspection.holders).toBe(2);
  });

  it('a folder whose lock was released meanwhile is listed with no holder', async () => {
    const [server, a] = scriptedSessions(1);
    await a.create2('/q', undefined, PERSISTENT);
    const node = await a.create2('/q/_c_z-lock-', undefined, EPHEMERAL_SEQ);
    // The node goes between the walk's listing and the inspection's read.
    server.fail({ op: 'getData', path: node.path, code: 'NONODE' });
    const [folder] = await findLocks(a, '/q');
    expect(folder!.path).toBe('/q');
    expect(folder!.holder).toBeUndefined();
  });

  it('stops after maxNodes visited nodes', async () => {
    const [server, a] = scriptedSessions(1);
    for (const dir of ['/w', '/w/a', '/w/a/b']) await a.create2(dir, undefined, PERSISTENT);
    await a.create2('/w/a/b/_c_z-lock-', undefined, EPHEMERAL_SEQ);
    expect(await findLocks(a, '/w', { maxNodes: 2 })).toEqual([]);
    expect((await findLocks(a, '/w', { maxNodes: 3 })).map((f) => f.path)).toEqual(['/w/a/b']);
    // Lock nodes are not walked into.
    const listed = server.requests({ op: 'getChildren' }).map((r) => r.path);
    expect(listed.filter((path) => path.includes('-lock-'))).toEqual([]);
  });

  it('walks wide folders in batches and visits every child', async () => {
    const [, a] = scriptedSessions(1);
    await a.create2('/wide', undefined, PERSISTENT);
    for (let i = 0; i < 40; i++) {
      await a.create2(`/wide/d${String(i).padStart(2, '0')}`, undefined, PERSISTENT);
    }
    await a.create2('/wide/d39/_c_z-lock-', undefined, EPHEMERAL_SEQ);
    await a.create2('/wide/d00/_c_z-lock-', undefined, EPHEMERAL_SEQ);
    expect((await findLocks(a, '/wide')).map((f) => f.path)).toEqual(['/wide/d00', '/wide/d39']);
  });

  it('passes on an error other than NONODE', async () => {
    const [server, a] = scriptedSessions(1);
    await a.create2('/e', undefined, PERSISTENT);
    server.fail({ op: 'getChildren', path: '/e', code: 'NOAUTH' });
    await expect(findLocks(a, '/e')).rejects.toMatchObject({ code: 'NOAUTH' });
  });
});
