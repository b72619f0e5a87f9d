// LeaderObserver on elections run by Apache Curator (5.x, in a JVM): a Curator LeaderLatch and a
// Curator LeaderSelector lead, and the observer reports their participant id, then the change
// when they step down. Like curator.test.ts, a missing Curator or JDK fails (never skips).
import { afterEach, describe, expect, it } from 'vitest';
import { LeaderObserver, type ObservedLeader } from '../../src/locks/index.js';
import { curatorOnLock } from './helpers.js';
import { within } from './peer.js';

const observers: LeaderObserver[] = [];
afterEach(async () => {
  await Promise.all(observers.splice(0).map((observer) => observer.close()));
});

async function nextLeader(
  changes: AsyncIterator<ObservedLeader | null>,
): Promise<ObservedLeader | null> {
  const result = await within(changes.next(), 15_000, 'the next leader');
  if (result.done) throw new Error('the stream ended');
  return result.value;
}

describe('LeaderObserver on Curator elections', () => {
  for (const election of ['latch', 'selector'] as const) {
    it(`reports the id of a Curator ${election === 'latch' ? 'LeaderLatch' : 'LeaderSelector'} leader, and its stepping down`, async () => {
      const { path, peer: curator, zk } = await curatorOnLock(`${election}:java`);
      const held = await within(curator.acquire(), 10_000, 'curator leadership');
      const observer = new LeaderObserver(zk, path, { election });
      observers.push(observer);
      await observer.start({ timeout: 10_000 });
      expect(observer.leader).toEqual({ id: 'java', path: held });
      const changes = observer.events();
      await curator.release();
      expect(await nextLeader(changes)).toBeNull();
      // Curator joins again: it leads, and the observer says so.
      const again = await within(curator.acquire(), 10_000, 'curator leadership again');
      expect(await nextLeader(changes)).toEqual({ id: 'java', path: again });
      await curator.release();
      // Curator's selector deletes its node after it says it stepped down: the observer hearing
      // that no one leads is the node gone (the teardown then checks nothing was left behind).
      expect(await nextLeader(changes)).toBeNull();
    });
  }
});
