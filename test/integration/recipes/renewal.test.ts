// The counters, barriers and the guaranteed delete across a session renewal (the server expired
// the session while the client was cut off, and the client opened a new one), on the real
// server: what docs/recipes.md promises at a renewal, and that no wait hangs.
import { describe, expect, it } from 'vitest';
import { TimeoutError } from '../../../src/index.js';
import {
  createWithParents,
  DistributedAtomicLong,
  DistributedBarrier,
  DistributedDoubleBarrier,
  encodeCount,
  guaranteedDelete,
  READY_NODE,
  SharedCount,
} from '../../../src/recipes/index.js';
import { type RequestLog, recordRequests } from '../../support/request-log.js';
import { cutAndPeer, expireSession, renewWhileOldSessionLives, until } from './helpers.js';

const SHORT_SESSION = { sessionTimeout: 4_000 };

/** Runs `during` with the requests of `client`'s current session recorded. */
async function withRequests<T>(
  client: { sessionId: bigint },
  during: (log: RequestLog) => Promise<T>,
): Promise<T> {
  const log = recordRequests(() => client.sessionId);
  try {
    return await during(log);
  } finally {
    log.stop();
  }
}

/**
 * Two members of a two-member double barrier, both entered: `mine` on a client behind a proxy the
 * test can cut, `theirs` on a direct peer.
 */
async function bothMembersEntered(name: string) {
  const { client, proxy, peer, path } = await cutAndPeer(name, SHORT_SESSION);
  const mine = new DistributedDoubleBarrier(client, path, { memberQty: 2 });
  const theirs = new DistributedDoubleBarrier(peer, path, { memberQty: 2 });
  await Promise.all([mine.enter({ timeout: 10_000 }), theirs.enter({ timeout: 10_000 })]);
  return { client, proxy, mine, theirs };
}

describe('SharedCount at a renewal', () => {
  it('hears the value changed while the session was gone, and every change after it', async () => {
    const { client, proxy, peer: writer, path } = await cutAndPeer('count', SHORT_SESSION);
    const count = new SharedCount(client, path, { seed: 0 });
    await count.start();
    const heard: number[] = [];
    count.on('change', ({ count: value }) => heard.push(value));
    await expireSession(client, proxy, () => writer.setData(path, encodeCount(5)).then(() => {}));
    await until(() => heard.includes(5), 'the value set while the session was gone');
    // The watch is armed on the new session: later changes keep coming.
    for (const value of [6, 7]) {
      await writer.setData(path, encodeCount(value));
      await until(() => count.count === value, `the change to ${value} after the renewal`);
    }
    expect(heard.slice(-3)).toEqual([5, 6, 7]);
    // Writes from the renewed client work too.
    expect(await count.trySet(8, count.versioned.version)).toBe(true);
    await until(() => heard.includes(8), 'our own set to be heard');
    await count.close();
  });
});

describe('DistributedAtomicLong at a renewal', () => {
  it('keeps counting from the value the node holds, its node untouched by the expiry', async () => {
    const { client, proxy, peer: writer, path } = await cutAndPeer('long', SHORT_SESSION);
    const counter = new DistributedAtomicLong(client, path);
    for (let i = 0; i < 3; i++) expect((await counter.increment()).succeeded).toBe(true);
    await expireSession(client, proxy, async () => {
      await new DistributedAtomicLong(writer, path).add(10);
    });
    expect(await counter.increment()).toMatchObject({
      succeeded: true,
      preValue: 13n,
      postValue: 14n,
    });
    expect(await new DistributedAtomicLong(writer, path).get()).toBe(14n);
  });
});

describe('DistributedBarrier at a renewal', () => {
  it('releases a waiter when the barrier was removed while its session was gone', async () => {
    const { client, proxy, peer: other, path } = await cutAndPeer('barrier', SHORT_SESSION);
    await new DistributedBarrier(other, path).raise();
    const { waiting } = await withRequests(client, async (log) => {
      const wait = new DistributedBarrier(client, path).wait({ timeout: 30_000 });
      await until(() => log.answeredOn(path) > 0, 'the waiter to look at the barrier');
      return { waiting: wait };
    });
    await expireSession(client, proxy, () => new DistributedBarrier(other, path).lower());
    await waiting;
  });

  it('keeps a waiter waiting while the barrier stands, then releases it on the new session', async () => {
    const { client, proxy, peer: other, path } = await cutAndPeer('barrier-stands', SHORT_SESSION);
    await new DistributedBarrier(other, path).raise();
    let released = false;
    const { waiting } = await withRequests(client, async (log) => {
      const wait = new DistributedBarrier(client, path).wait({ timeout: 30_000 }).then(() => {
        released = true;
      });
      await until(() => log.answeredOn(path) > 0, 'the waiter to look at the barrier');
      log.mark();
      await expireSession(client, proxy);
      // The waiter's look on the new session is answered (the barrier stands); a request after
      // it is answered after it (a session's replies come in order), by when a wrong release
      // would have shown.
      await until(() => log.answeredOn(path) > 0, 'the waiter to look again on the new session');
      await client.exists(path);
      return { waiting: wait };
    });
    expect(released).toBe(false);
    expect(await other.exists(path)).not.toBeNull();
    await new DistributedBarrier(other, path).lower();
    await waiting;
  });

  it('a wait started while the client is cut off goes on on the new session', async () => {
    // Its first look is queued for the old session and fails with SESSIONEXPIRED at the renewal.
    const { client, proxy, peer: other, path } = await cutAndPeer('barrier-queued', SHORT_SESSION);
    await new DistributedBarrier(other, path).raise();
    let waiting: Promise<void> | undefined;
    let released = false;
    await withRequests(client, async (log) => {
      await expireSession(client, proxy, async () => {
        waiting = new DistributedBarrier(client, path).wait({ timeout: 20_000 });
        void waiting.then(
          () => {
            released = true;
          },
          () => {},
        );
      });
      // As above: the look on the new session answered, then one round trip after it.
      await until(() => log.answeredOn(path) > 0, 'the waiter to look on the new session');
      await client.exists(path);
    });
    expect(released).toBe(false);
    await new DistributedBarrier(other, path).lower();
    await waiting;
  });

  it('a waiter on a standing barrier still times out in time across the renewal', async () => {
    const { client, proxy, peer: other, path } = await cutAndPeer('barrier-timeout', SHORT_SESSION);
    await new DistributedBarrier(other, path).raise();
    const started = Date.now();
    let waiting: Promise<void> | undefined;
    await expireSession(client, proxy, async () => {
      waiting = new DistributedBarrier(client, path).wait({ timeout: 6_000 });
      waiting.catch(() => {});
    });
    await expect(waiting).rejects.toBeInstanceOf(TimeoutError);
    expect(Date.now() - started).toBeLessThan(8_000);
  });
});

describe('DistributedDoubleBarrier at a renewal', () => {
  it('a waiting enter re-creates its node on the new session and enters with the others', async () => {
    const { client, proxy, peer: other, path } = await cutAndPeer('double', SHORT_SESSION);
    const mine = new DistributedDoubleBarrier(client, path, { memberQty: 2 });
    const entering = mine.enter({ timeout: 30_000 });
    await until(async () => (await other.exists(mine.memberPath)) !== null, 'our member node');
    await expireSession(client, proxy, async () => {
      // The old session's member node went with it.
      expect(await other.exists(mine.memberPath)).toBeNull();
    });
    await until(async () => (await other.exists(mine.memberPath)) !== null, 'our node again');
    const theirs = new DistributedDoubleBarrier(other, path, { memberQty: 2 });
    await theirs.enter({ timeout: 10_000 });
    await entering;
    const members = (await other.getChildren(path)).filter((n) => n !== READY_NODE);
    expect(members.sort()).toEqual(
      [mine.memberPath, theirs.memberPath].map((p) => p.slice(path.length + 1)).sort(),
    );
    // Both leave; the barrier ends empty.
    const leaving = mine.leave({ timeout: 10_000 });
    await theirs.leave({ timeout: 10_000 });
    await leaving;
    expect(await other.getChildren(path)).toEqual([]);
  });

  it('a waiting enter whose barrier node went while the session was gone makes it again and enters', async () => {
    // The barrier node is a container: once the old session's member node went with it, the
    // server may remove the empty barrier node before the client is back (here another client
    // deletes it, as the server's container sweep does on its own schedule). The enter's
    // listing on the new session then finds no barrier node at all.
    const { client, proxy, peer: other, path } = await cutAndPeer('double-gone', SHORT_SESSION);
    const mine = new DistributedDoubleBarrier(client, path, { memberQty: 2 });
    const entering = mine.enter({ timeout: 30_000 });
    entering.catch(() => {});
    await until(async () => (await other.exists(mine.memberPath)) !== null, 'our member node');
    await expireSession(client, proxy, async () => {
      expect(await other.exists(mine.memberPath)).toBeNull();
      await other.delete(path);
    });
    await until(async () => (await other.exists(mine.memberPath)) !== null, 'our node again');
    const theirs = new DistributedDoubleBarrier(other, path, { memberQty: 2 });
    await theirs.enter({ timeout: 10_000 });
    await entering;
  });

  it("an enter does not count its old session's node, still on the server, as its own", async () => {
    // The client gave its session up while the server kept it (another connection kept it
    // alive): the old member node is still there after the renewal, and vanishes later.
    const { client, proxy, peer: other, path } = await cutAndPeer('double-old-node', SHORT_SESSION);
    const mine = new DistributedDoubleBarrier(client, path, { memberQty: 2 });
    const entering = mine.enter({ timeout: 20_000 });
    await until(async () => (await other.exists(mine.memberPath)) !== null, 'our member node');
    const keeper = await renewWhileOldSessionLives(client, proxy);
    await until(
      async () => (await other.exists(mine.memberPath))?.ephemeralOwner === client.sessionId,
      'our member node on the new session',
    );
    await keeper.close();
    const theirs = new DistributedDoubleBarrier(other, path, { memberQty: 2 });
    await theirs.enter({ timeout: 5_000 });
    await entering;
  });

  it('an enter started while the client is cut off enters on the new session', async () => {
    const { client, proxy, peer: other, path } = await cutAndPeer('double-queued', SHORT_SESSION);
    const mine = new DistributedDoubleBarrier(client, path, { memberQty: 2 });
    let entering: Promise<void> | undefined;
    await expireSession(client, proxy, async () => {
      entering = mine.enter({ timeout: 20_000 });
      entering.catch(() => {});
    });
    const theirs = new DistributedDoubleBarrier(other, path, { memberQty: 2 });
    await theirs.enter({ timeout: 10_000 });
    await entering;
    const leaving = mine.leave({ timeout: 10_000 });
    await theirs.leave({ timeout: 10_000 });
    await leaving;
  });

  it('a leave started while the client is cut off rejects with NONODE on the new session', async () => {
    const { client, proxy, mine, theirs } = await bothMembersEntered('double-leave-queued');
    let leaving: Promise<void> | undefined;
    await expireSession(client, proxy, async () => {
      leaving = mine.leave({ timeout: 10_000 });
      leaving.catch(() => {});
    });
    await expect(leaving).rejects.toMatchObject({ code: 'NONODE' });
    await theirs.leave({ timeout: 10_000 });
  });

  it('a member whose node went with the old session gets NONODE from leave, at once', async () => {
    const { client, proxy, mine, theirs } = await bothMembersEntered('double-leave');
    await expireSession(client, proxy);
    const started = Date.now();
    await expect(mine.leave({ timeout: 10_000 })).rejects.toMatchObject({ code: 'NONODE' });
    expect(Date.now() - started).toBeLessThan(2_000);
    // The other member is not held up by the vanished one: it leaves alone.
    await theirs.leave({ timeout: 10_000 });
  });

  it('a leave waiting on the vanished member ends when the expiry takes its node', async () => {
    // The lowest-named member waits for the others to go; here the other member is ours, and its
    // session expires: its node vanishes, which counts as leaving, and the lowest one finishes.
    const { client, proxy, theirs } = await bothMembersEntered('double-gone');
    const leaving = theirs.leave({ timeout: 20_000 });
    await expireSession(client, proxy);
    await leaving;
  });
});

describe('guaranteedDelete across faults', () => {
  it('deletes once the cut link is back', async () => {
    const { client, proxy, peer: other, path } = await cutAndPeer('gd-cut', SHORT_SESSION);
    await createWithParents(other, path);
    proxy.freeze('drop');
    const { outcome } = await withRequests(client, async (log) => {
      const deleting = guaranteedDelete(client, path, { retry: { baseDelay: 50, maxDelay: 200 } });
      // Its first try is on the frozen link, whose bytes are dropped.
      await until(() => log.startedOn(path) > 0, 'the delete to try');
      return { outcome: deleting };
    });
    expect(await other.exists(path)).not.toBeNull();
    proxy.thaw();
    proxy.cut();
    expect((await outcome).status).toMatch(/^(deleted|gone|deleted-or-gone)$/);
    expect(await other.exists(path)).toBeNull();
  });

  it('goes on after the session expired and deletes on the new session', async () => {
    const { client, proxy, peer: other, path } = await cutAndPeer('gd-expiry', SHORT_SESSION);
    await createWithParents(other, `${path}/child`);
    let outcome: unknown;
    let removed = false;
    await expireSession(client, proxy, async () => {
      await withRequests(client, async (log) => {
        void guaranteedDelete(client, path, {
          recursive: true,
          retry: { baseDelay: 50, maxDelay: 500 },
          onSettled: (result) => {
            outcome = result;
          },
        });
        // Its first try is queued while the client is cut off.
        await until(() => log.startedOn(path) > 0, 'the delete to try');
      });
      removed = (await other.exists(path)) === null;
    });
    expect(removed).toBe(false);
    await until(() => outcome !== undefined, 'the guaranteed delete to settle', 15_000);
    expect(outcome).toMatchObject({ status: 'deleted' });
    expect(await other.exists(path)).toBeNull();
  });
});
