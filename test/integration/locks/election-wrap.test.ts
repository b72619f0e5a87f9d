// Elections at the limit of ZooKeeper's sequence counter, on a real server whose election node was
// crafted with a child counter just below 2^31 (see test/harness/crafted.ts). At the limit every
// candidate is numbered 2147483647; the line must stay the creation order, as the locks keep it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Client } from '../../../src/index.js';
import { LeaderLatch, LeaderSelector } from '../../../src/locks/index.js';
import { serverAtTheLimit } from './at-the-limit.js';
import { sleep, until } from './helpers.js';

const PARENT = '/election-wrap';
/** Owner prefixes that sort last and first: without the creation order, the newcomer leads. */
const LATE_SORTING = 'ffffffff-ffff-4fff-bfff-ffffffffffff';
const EARLY_SORTING = '00000000-0000-4000-8000-000000000000';

const latches: LeaderLatch[] = [];

const { client, reachLimit } = serverAtTheLimit(PARENT);

afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(latches.splice(0).map((latch) => latch.close().catch(() => {})));
});

type Uuid = `${string}-${string}-${string}-${string}-${string}`;

/** A started latch whose node name carries `uuid` (the owner prefix decides the text order). */
function latchWithPrefix(zk: Client, id: string, uuid: Uuid) {
  const spy = vi.spyOn(globalThis.crypto, 'randomUUID').mockReturnValue(uuid);
  const latch = new LeaderLatch(zk, PARENT, { id });
  latches.push(latch);
  latch.start();
  return {
    latch,
    created: until(() => latch.ourPath !== undefined, `${id} created`).finally(() =>
      spy.mockRestore(),
    ),
  };
}

describe('LeaderLatch at the limit of the sequence counter (2^31 - 1)', () => {
  it('two latches at cversion 2^31-3 never both lead; participants() names the actual leader', async () => {
    const [a, b] = await Promise.all([client(), client()]);
    // Candidates before the limit (2147483645, 2147483646) and at it, one after the other.
    for (let round = 0; round < 4; round++) {
      const first = latchWithPrefix(a, `first-${round}`, LATE_SORTING);
      await first.created;
      const leadership = await first.latch.leadership({ timeout: 5_000 });
      const second = latchWithPrefix(b, `second-${round}`, EARLY_SORTING);
      await second.created;
      // Give the newcomer every chance to (wrongly) lead.
      await sleep(300);
      expect(first.latch.hasLeadership).toBe(true);
      expect(leadership.signal.aborted).toBe(false);
      expect(second.latch.hasLeadership).toBe(false);
      const participants = await second.latch.participants();
      expect(participants.map((p) => [p.id, p.isLeader])).toEqual([
        [`first-${round}`, true],
        [`second-${round}`, false],
      ]);
      expect((await second.latch.leader())?.path).toBe(leadership.path);
      // The leader leaves: the newcomer leads.
      await first.latch.close();
      const next = await second.latch.leadership({ timeout: 5_000 });
      expect(next.fencingToken).toBeGreaterThan(leadership.fencingToken);
      await second.latch.close();
    }
    const names = await a.getChildren(PARENT);
    expect(names).toEqual([]);
  });

  it('leadership passes in creation order among candidates all numbered 2147483647', async () => {
    const [a, b] = await Promise.all([client(), client()]);
    await reachLimit(a);
    const order: string[] = [];
    const started: LeaderLatch[] = [];
    for (let i = 0; i < 5; i++) {
      // Alternate the prefixes: text order and creation order disagree on every other pair.
      const { latch, created } = latchWithPrefix(
        i % 2 ? b : a,
        `c${i}`,
        `${i % 2 ? '0000000' : 'fffffff'}${i}-0000-4000-8000-000000000000`,
      );
      await created;
      expect(latch.ourPath?.endsWith('2147483647')).toBe(true);
      started.push(latch);
    }
    for (const latch of started) {
      const leadership = await latch.leadership({ timeout: 5_000 });
      await sleep(100);
      expect(started.filter((l) => l.hasLeadership)).toEqual([latch]);
      order.push(leadership.id);
      expect((await latch.participants())[0]?.id).toBe(leadership.id);
      await latch.close();
    }
    expect(order).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
  });

  it('LeaderSelectors with requeue at the limit: terms never overlap, every node at or past the limit', async () => {
    const [a, b] = await Promise.all([client(), client()]);
    await reachLimit(a);
    let running = 0;
    let overlaps = 0;
    const nodes: string[] = [];
    const task = async (leadership: { path: string }) => {
      running++;
      if (running > 1) overlaps++;
      nodes.push(leadership.path);
      await sleep(15);
      running--;
    };
    const selectors = [a, b, a].map(
      (zk, i) => new LeaderSelector(zk, PARENT, { task, id: `s${i}`, requeue: true }),
    );
    for (const selector of selectors) selector.start();
    try {
      await until(() => nodes.length >= 30, '30 terms', 20_000);
    } finally {
      await Promise.all(selectors.map((selector) => selector.close()));
    }
    expect(overlaps).toBe(0);
    // At the limit, or past it: under this churn the server has been seen to number a node
    // -2147483648 too. Either way only the creation order tells the line.
    const sequences = nodes.map((path) => Number(path.slice(path.lastIndexOf('lock-') + 5)));
    expect(sequences.filter((n) => n !== 2 ** 31 - 1 && n >= 0)).toEqual([]);
  });
});
