// Our LeaderLatch and Curator's in one election while each loses its session in turn, on the real
// server: Curator's links go dark for longer than its session timeout (it expires, Curator opens
// a new session and its latch re-enters), ours is expired by the server (another client takes the
// session over and closes it; our client renews, our latch re-enters). After every expiry exactly
// one of the two leads, and at no instant did both: each side's leadership is sampled every
// millisecond (Curator's hasLeadership() in its JVM, ours here) and the terms must not overlap.
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from '../../src/index.js';
import { LeaderLatch } from '../../src/locks/index.js';
import { sharedServerProxy as proxy } from '../support/clients.js';
import { CuratorLatch, overlaps, type Term, termsOf } from './curator-renewal.js';
import { childrenOf, expireThroughLink as expireOurs, lockPath, newClient } from './helpers.js';
import { sleep } from './peer.js';

const SESSION_MS = 4_000;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c().catch(() => {})));
});

/** Samples `latch.hasLeadership` every ms; `stop()` returns its terms. */
function sampleOurs(latch: LeaderLatch): { stop(): Term[] } {
  const changes: { at: number; leading: boolean }[] = [];
  let last = false;
  const timer = setInterval(() => {
    const leading = latch.hasLeadership;
    if (leading !== last) changes.push({ at: Date.now(), leading });
    last = leading;
  }, 1);
  return {
    stop() {
      clearInterval(timer);
      return termsOf(changes, Date.now());
    },
  };
}

async function until(what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(25);
  }
}

describe('LeaderLatch and Curator LeaderLatch, each losing its session in turn', () => {
  it('exactly one leader after every expiry, and never two at once', async () => {
    const path = lockPath();
    const ourLink = await proxy();
    const curatorLink = await proxy();
    const observer = await newClient();
    const curator = await CuratorLatch.start(curatorLink.connectString, path, 'java', SESSION_MS);
    cleanups.push(() => curator.close());
    const zk = await connect(ourLink.connectString, { sessionTimeout: SESSION_MS });
    cleanups.push(() => zk.close());
    const latch = new LeaderLatch(zk, path, { id: 'ts' });
    cleanups.push(() => latch.close());
    const ours = sampleOurs(latch);
    latch.start();

    /** Both candidates in line (each side's current session) and exactly one of them leads. */
    const settled = async () => {
      const children = await childrenOf(observer, path);
      if (children.length !== 2) return false;
      const leaders = Number(latch.hasLeadership) + Number(await curator.leading());
      return leaders === 1;
    };
    await until('one leader of two candidates', settled);

    const rounds: string[] = [];
    for (const side of ['curator', 'ours', 'curator', 'ours'] as const) {
      if (side === 'curator') {
        const before = await curator.session();
        curatorLink.freeze('drop');
        await sleep(1.5 * SESSION_MS);
        curatorLink.thaw();
        await until('curator on a new session', async () => (await curator.session()) !== before);
      } else {
        const before = zk.sessionId;
        await expireOurs(zk, ourLink);
        await until(
          'our client renewed',
          async () => zk.state === 'connected' && zk.sessionId !== before,
        );
      }
      await until(`one leader after ${side} expired`, settled);
      // It stays that way: still exactly one a moment later.
      await sleep(300);
      expect(await settled()).toBe(true);
      rounds.push(`${side} expired; leader: ${latch.hasLeadership ? 'ours' : 'curator'}`);
    }

    const end = Date.now();
    const ourTerms = ours.stop();
    const curatorTerms = await curator.terms(end);
    expect(overlaps(ourTerms, curatorTerms), 'instants when both led').toEqual([]);
    // Leadership changed hands: each expiry of the leader passed it to the other side.
    expect(ourTerms.length).toBeGreaterThanOrEqual(2);
    expect(curatorTerms.length).toBeGreaterThanOrEqual(2);
    console.log(rounds.join('\n'));
  }, 120_000);
});
