// The client against a real 3-node ensemble: failover keeping the session, and following a
// reconfig. One ensemble for the file; tests run in order and leave it whole.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, CreateMode, connect, type WatchedEvent } from '../../../src/index.js';
import { startEnsemble, type ZkEnsemble } from '../../harness/index.js';
import { until } from './setup.js';

let ensemble: ZkEnsemble;
const clients: Client[] = [];

beforeAll(async () => {
  ensemble = await startEnsemble({ size: 3, reconfigEnabled: true });
}, 90_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await ensemble?.close();
});

async function open(
  connectString: string,
  options: Parameters<typeof connect>[1] = {},
): Promise<Client> {
  const zk = await connect(connectString, {
    sessionTimeout: 6_000,
    connectTimeout: 15_000,
    ...options,
  });
  clients.push(zk);
  return zk;
}

async function retryOnLoss<T>(call: () => Promise<T>, attempts = 10): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await call();
    } catch (error) {
      if ((error as { code?: string }).code !== 'CONNECTIONLOSS' || i >= attempts) throw error;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

function memberIndex(server: string | null): number {
  return ensemble.members.findIndex((m) => m.connectString === server);
}

describe('3-node ensemble', () => {
  it('fails over when its server dies, keeping the session, an ephemeral and a watch', async () => {
    const zk = await open(ensemble.connectString);
    const observer = await open(ensemble.connectString);
    const sessionId = zk.sessionId;
    await zk.create('/failover', 'v');
    await zk.create('/failover/mine', '', { mode: CreateMode.EPHEMERAL });
    const events: WatchedEvent[] = [];
    await zk.getData('/failover', { watch: (e) => events.push(e) });

    const victim = memberIndex(zk.server);
    expect(victim).toBeGreaterThanOrEqual(0);
    await ensemble.kill(victim);
    await until(zk, 'suspended');
    await until(zk, 'connected');
    expect(memberIndex(zk.server)).not.toBe(victim);
    expect(zk.sessionId).toBe(sessionId);

    // The ephemeral survived (same owner), and the watch registered before still fires.
    expect((await observer.exists('/failover/mine'))?.ephemeralOwner).toBe(sessionId);
    await observer.setData('/failover', 'changed');
    const deadline = Date.now() + 5_000;
    while (events.length === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(events).toEqual([{ type: 'NodeDataChanged', path: '/failover' }]);

    await ensemble.start(victim);
    await ensemble.waitForQuorum();
  });

  it('keeps the session when the leader dies and a new one is elected', async () => {
    const zk = await open(ensemble.connectString);
    const sessionId = zk.sessionId;
    await zk.create('/leader-test', '', { mode: CreateMode.EPHEMERAL });
    const leader = await ensemble.leader();
    await ensemble.kill(leader);
    // Writes succeed once a new leader serves, on the same session.
    const deadline = Date.now() + 20_000;
    for (;;) {
      try {
        await zk.setData('/leader-test', 'after election');
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    expect(zk.sessionId).toBe(sessionId);
    expect(zk.state).toBe('connected');
    await ensemble.start(leader);
    await ensemble.waitForQuorum();
  });

  it('reconfig removes a member and the client follows the new member list', async () => {
    const zk = await open(ensemble.connectString);
    await zk.addAuth('digest', ensemble.superAuth!);
    // A member that just rejoined re-syncs with the leader and drops its clients once: calls
    // fail with CONNECTIONLOSS and a user retries them, as here.
    const before = await retryOnLoss(() => zk.getConfig());
    expect(before.config).toMatch(/server\.3=/);
    // Remove a member other than the one we are on.
    const ours = memberIndex(zk.server);
    const leaving = [0, 1, 2].find((i) => i !== ours)!;
    const leavingId = ensemble.members[leaving]!.id;
    // fromConfig makes a retry safe: a reconfig already applied fails with BADVERSION.
    const version = BigInt(`0x${/version=([0-9a-f]+)/.exec(before.config)![1]}`);
    const after = await retryOnLoss(() =>
      zk.reconfig({ leaving: String(leavingId), fromConfig: version }),
    ).catch(async (error: { code?: string }) => {
      // A retried reconfig whose first attempt was applied (its reply lost) meets BADVERSION.
      if (error.code !== 'BADVERSION') throw error;
      return zk.getConfig({ follow: true });
    });
    expect(after.config).not.toMatch(new RegExp(`server\\.${leavingId}=`));
    expect((await retryOnLoss(() => zk.getConfig())).config).toBe(after.config);
    // Following the new list: the removed member is never used again, even after failovers.
    const removed = ensemble.members[leaving]!.connectString;
    for (let i = 0; i < 3; i++) {
      // The drop is noticed asynchronously: wait for the suspension first, or `until` would see
      // the old connection still 'connected' (and the removed member, if retries had moved us
      // there before the reconfig).
      const down = until(zk, 'suspended');
      zk.dropConnection('test: move on');
      await down;
      await until(zk, 'connected');
      expect(zk.server).not.toBe(removed);
    }
  }, 60_000);
});

describe('getConfig watch with a chroot', () => {
  it('gets no false NodeDeleted after a reconnect, and still fires on a real reconfig', async () => {
    const root = await open(ensemble.connectString);
    await root.addAuth('digest', ensemble.superAuth!);
    await retryOnLoss(() => root.create('/app').catch(ignoreExists));
    const zk = await open(`${ensemble.connectString}/app`);
    const events: WatchedEvent[] = [];
    const before = await retryOnLoss(() => zk.getConfig({ watch: (e) => events.push(e) }));
    for (let i = 0; i < 2; i++) {
      zk.dropConnection('test: reconnect');
      await until(zk, 'connected');
      // A round trip after the watch restore: any notification it caused has arrived by now.
      await retryOnLoss(() => zk.sync('/'));
    }
    expect(events).toEqual([]);
    // A real reconfig: add back a member the config lacks (the test above removed one), or
    // remove one when all are there.
    const missing = ensemble.members.find(
      (m) => !new RegExp(`server\\.${m.id}=`).test(before.config),
    );
    const version = BigInt(`0x${/version=([0-9a-f]+)/.exec(before.config)![1]}`);
    const change = missing
      ? {
          joining: `server.${missing.id}=127.0.0.1:${missing.quorumPort}:${missing.electionPort}:participant;${missing.connectString}`,
        }
      : { leaving: String(ensemble.members[2]!.id) };
    await retryOnLoss(() => root.reconfig({ ...change, fromConfig: version })).catch(
      (error: { code?: string }) => {
        if (error.code !== 'BADVERSION') throw error;
      },
    );
    await waitUntil(() => events.length > 0, 15_000);
    expect(events).toEqual([{ type: 'NodeDataChanged', path: '/zookeeper/config' }]);
  }, 60_000);
});

function ignoreExists(error: { code?: string }): void {
  if (error.code !== 'NODEEXISTS') throw error;
}

async function waitUntil(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
