// kazoo's Lock waiting across our renewal stays fair, on the real server. Fairness here means:
// - our waiter's node of the expired session is gone, and the acquire goes on with a new node at
//   the back of the line (a sequence above every node queued before the renewal);
// - nobody overtakes anyone except as that implies: kazoo's contenders that queued behind our
//   old node move up by one place and get the lock in their own queue order;
// - our waiter gets the lock right after the last of them (within its own deadline), never before.
import { describe, expect, it } from 'vitest';
import { connect } from '../../src/index.js';
import { Mutex } from '../../src/locks/index.js';
import { sharedServer } from '../harness/index.js';
import { sharedServerProxy } from '../support/clients.js';
import {
  childrenOf,
  expireThroughLink,
  inBackground,
  lockPath,
  nameOf,
  newClient,
  untilChildren,
} from './helpers.js';
import { startKazooPeer } from './kazoo.js';
import { sleep, stillPendingAfter, within } from './peer.js';

const BLOCKED_MS = 500;
const sequenceOf = (name: string) => Number(name.slice(-10));

describe("kazoo's Lock and our Mutex waiting across a renewal", () => {
  it('our new node goes to the back; kazoo contenders behind our old one get the lock in their order, then we do', async () => {
    const path = lockPath();
    const link = await sharedServerProxy();
    const observer = await newClient();
    const zk = await connect(link.connectString, { sessionTimeout: 4_000 });
    try {
      const [k1, k2, k3] = await Promise.all([
        startKazooPeer(sharedServer().connectString, path, 'mutex'),
        startKazooPeer(sharedServer().connectString, path, 'mutex'),
        startKazooPeer(sharedServer().connectString, path, 'mutex'),
      ]);
      const k1Node = nameOf(await within(k1.acquire(), 10_000, 'kazoo 1 acquire'));
      const ours = inBackground(
        new Mutex(zk, path, { naming: 'kazoo' }).acquire({ timeout: 40_000 }),
      );
      await untilChildren(observer, path, 2);
      const oldNode = (await childrenOf(observer, path))[1]!;
      const k2Holds = k2.acquire();
      await untilChildren(observer, path, 3);
      const k3Holds = k3.acquire();
      await untilChildren(observer, path, 4);
      const [, , k2Node, k3Node] = await childrenOf(observer, path);
      expect(sequenceOf(k2Node!)).toBeGreaterThan(sequenceOf(oldNode));

      const oldSession = zk.sessionId;
      await expireThroughLink(zk, link);
      // Renewed, and our acquire queued again: a node of the new session, at the back.
      let line: string[] = [];
      const deadline = Date.now() + 20_000;
      for (;;) {
        line = await childrenOf(observer, path);
        if (line.length === 4 && !line.includes(oldNode)) break;
        if (Date.now() > deadline) throw new Error(`no new node of ours: ${line.join(', ')}`);
        await sleep(20);
      }
      expect(zk.sessionId).not.toBe(oldSession);
      const newNode = line[3]!;
      expect(line).toEqual([k1Node, k2Node, k3Node, newNode]);
      expect((await observer.exists(`${path}/${newNode}`))?.ephemeralOwner).toBe(zk.sessionId);
      expect(sequenceOf(newNode)).toBeGreaterThan(sequenceOf(k3Node!));

      // The line as it stands is served in order: kazoo 2, kazoo 3, then us.
      expect(await stillPendingAfter(k2Holds, BLOCKED_MS)).toBe(true);
      await k1.release();
      expect(nameOf(await within(k2Holds, 10_000, 'kazoo 2 after kazoo 1'))).toBe(k2Node);
      expect(await stillPendingAfter(k3Holds, BLOCKED_MS)).toBe(true);
      expect(await stillPendingAfter(ours, 0)).toBe(true);
      await k2.release();
      expect(nameOf(await within(k3Holds, 10_000, 'kazoo 3 after kazoo 2'))).toBe(k3Node);
      expect(await stillPendingAfter(ours, BLOCKED_MS)).toBe(true);
      await k3.release();
      const lease = await within(ours, 10_000, 'our acquire after kazoo 3');
      expect(nameOf(lease.path)).toBe(newNode);
      expect(lease.signal.aborted).toBe(false);
      await lease.release();
    } finally {
      await zk.close();
    }
  }, 90_000);
});
