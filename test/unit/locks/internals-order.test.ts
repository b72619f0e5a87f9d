// A Mutex queue at the limit of the sequence counter, through the public API: contenders are put
// in creation order (czxid), read with one exists per contender, each read once per acquire
// (a node's czxid never changes). Against the scripted client (scripted-client.ts).
import { describe, expect, it } from 'vitest';
import { CreateMode } from '../../../src/index.js';
import { Mutex } from '../../../src/locks/index.js';
import { until } from '../../support/wait.js';
import { scriptedSessions } from './scripted-client.js';

describe('Mutex at the sequence limit (scripted client)', () => {
  it('orders by creation, reads each other contender once, and never its own node', async () => {
    const [server, a, b, c] = scriptedSessions(3);
    await a.create2('/lim', undefined, { mode: CreateMode.PERSISTENT });
    // The next children get 2147483645, 2147483646 and 2147483647 (the limit).
    server.nodes.get('/lim')!.nextSeq = 2_147_483_645;
    const first = await new Mutex(a, '/lim').acquire();
    const second = new Mutex(b, '/lim').acquire();
    await until(() => server.children('/lim').length === 2, 'the second node');
    const third = new Mutex(c, '/lim').acquire();
    await until(() => server.children('/lim').length === 3, 'the third node');
    let thirdHeld = false;
    void third.then(() => {
      thirdHeld = true;
    });
    await first.release();
    const secondLease = await second;
    expect(thirdHeld).toBe(false);
    await secondLease.release();
    const thirdLease = await third;
    expect(thirdLease.path.endsWith('2147483647')).toBe(true);
    // The third read each other contender's czxid at most once, and never its own.
    const reads = c.requests({ op: 'exists' }).map((r) => r.path);
    expect(reads).not.toContain(thirdLease.path);
    expect(new Set(reads).size).toBe(reads.length);
    expect(reads.length).toBeGreaterThan(0);
    await thirdLease.release();
  });
});
