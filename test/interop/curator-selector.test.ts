// Each of our election recipes in one election with its Curator counterpart (5.x, in a JVM), on
// a real server, while leadership moves back and forth between Java and TypeScript: our
// LeaderSelector with Curator's LeaderSelector (an InterProcessMutex on the path), our LeaderLatch
// with Curator's LeaderLatch. At every observation exactly one process leads, and both libraries
// name the same leader.
import { afterEach, describe, expect, it } from 'vitest';
import { LeaderLatch, LeaderSelector, type Leadership } from '../../src/locks/index.js';
import { curatorOnLock, nameOf, protectedName, untilChildren } from './helpers.js';
import type { LockPeer } from './peer.js';
import { stillPendingAfter, within } from './peer.js';

const ROUNDS = 3;
const BLOCKED_MS = 400;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup().catch(() => {});
});

/** Who leads, by each process's own account: 'java', 'ts', both or neither. */
async function leaders(curator: LockPeer, ours: () => boolean): Promise<string[]> {
  const java = await curator.ask('leading');
  return [...(java ? ['java'] : []), ...(ours() ? ['ts'] : [])];
}

/** Exactly `who` leads, and both libraries list the same line with `who` first. */
async function observe(
  curator: LockPeer,
  ours: () => boolean,
  participants: () => Promise<{ id: string; isLeader: boolean }[]>,
  who: string,
): Promise<void> {
  expect(await leaders(curator, ours)).toEqual([who]);
  const line = await participants();
  expect(line[0]).toMatchObject({ id: who, isLeader: true });
  expect(await curator.participants()).toEqual(line.map((p) => p.id));
  // A second look after a while: nobody else took over meanwhile.
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(await leaders(curator, ours)).toEqual([who]);
}

describe('LeaderSelector and Curator LeaderSelector in one election', () => {
  it('leadership moves between Java and TypeScript; exactly one leads at every observation', async () => {
    const { path, peer: curator, zk } = await curatorOnLock('selector:java');
    let stepDown: (() => void) | undefined;
    const terms: Leadership[] = [];
    const selector = new LeaderSelector(zk, path, {
      task: (leadership) =>
        new Promise<void>((resolve) => {
          terms.push(leadership);
          stepDown = resolve;
          leadership.signal.addEventListener('abort', () => resolve(), { once: true });
        }),
      id: 'ts',
      requeue: true,
    });
    cleanups.push(() => selector.close());
    const ours = () => selector.hasLeadership;
    const line = () => selector.participants();

    let held = await within(curator.acquire(), 10_000, 'curator leadership');
    selector.start();
    await untilChildren(zk, path, 2);
    await observe(curator, ours, line, 'java');
    expect(terms).toHaveLength(0);
    // Our node is a Curator InterProcessMutex node: Curator's selector counts it.
    const [, ourNode] = (await zk.getChildren(path)).sort(
      (a, b) => Number(a.slice(-10)) - Number(b.slice(-10)),
    );
    expect(ourNode).toMatch(protectedName('lock-'));
    expect(nameOf(held)).toMatch(protectedName('lock-'));

    for (let round = 0; round < ROUNDS; round++) {
      // Java steps down: we lead.
      await curator.release();
      await within(
        (async () => {
          while (!selector.hasLeadership) await new Promise((r) => setTimeout(r, 10));
        })(),
        10_000,
        'our leadership',
      );
      expect(terms).toHaveLength(round + 1);
      // Java joins again, behind us, and waits.
      const javaLeads = curator.acquire();
      await untilChildren(zk, path, 2);
      expect(await stillPendingAfter(javaLeads, BLOCKED_MS)).toBe(true);
      await observe(curator, ours, line, 'ts');
      // We step down (the task returns) and requeue behind Java: Java leads.
      const token = terms.at(-1)!.fencingToken;
      stepDown!();
      held = await within(javaLeads, 10_000, 'curator leadership after our term');
      await untilChildren(zk, path, 2);
      await observe(curator, ours, line, 'java');
      // Fencing tokens (czxids) keep growing across both libraries' terms.
      expect((await zk.exists(held))!.czxid).toBeGreaterThan(token);
    }
    await curator.release();
  });
});

describe('LeaderLatch and Curator LeaderLatch in one election', () => {
  it('leadership moves between Java and TypeScript; exactly one leads at every observation', async () => {
    const { path, peer: curator, zk } = await curatorOnLock('latch:java');
    let latch: LeaderLatch | undefined;
    cleanups.push(async () => latch?.close());
    const ours = () => latch?.hasLeadership ?? false;
    const line = () => new LeaderLatch(zk, path).participants();

    await within(curator.acquire(), 10_000, 'curator leadership');
    for (let round = 0; round < ROUNDS; round++) {
      latch = new LeaderLatch(zk, path, { id: 'ts' });
      latch.start();
      await untilChildren(zk, path, 2);
      expect(nameOf(latch.ourPath!)).toMatch(protectedName('latch-'));
      await observe(curator, ours, line, 'java');
      // Java closes its latch: we lead.
      await curator.release();
      const leadership = await latch.leadership({ timeout: 10_000 });
      // Java starts a new latch, behind us.
      const javaLeads = curator.acquire();
      await untilChildren(zk, path, 2);
      expect(await stillPendingAfter(javaLeads, BLOCKED_MS)).toBe(true);
      await observe(curator, ours, line, 'ts');
      // We close ours: Java leads.
      await latch.close();
      expect(leadership.signal.aborted).toBe(true);
      await within(javaLeads, 10_000, 'curator leadership after our close');
    }
    expect(await leaders(curator, ours)).toEqual(['java']);
    await curator.release();
  });
});
