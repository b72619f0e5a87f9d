// PersistentNode on the real server: a node that exists whenever the client has a session,
// created again after a deletion and after a session renewal, its data updated in place, removed
// on close.
import { afterEach, describe, expect, it } from 'vitest';
import { type Client, CreateMode, connect } from '../../../src/index.js';
import { PersistentNode } from '../../../src/recipes/index.js';
import { uniquePath } from '../../harness/index.js';
import { privateServer, startReapingServer, takeSessionAway } from '../../support/integration.js';
import { newClient, proxiedClient, sleep, until, untilChildren } from '../locks/helpers.js';

const nodes: PersistentNode[] = [];
afterEach(async () => {
  await Promise.all(nodes.splice(0).map((node) => node.close()));
});

function kept(...args: ConstructorParameters<typeof PersistentNode>): PersistentNode {
  const node = new PersistentNode(...args);
  nodes.push(node);
  void node.start();
  return node;
}

/** Waits for `start()` (the node's first creation) and answers the node's actual path. */
async function createdPath(node: PersistentNode, options?: { timeout?: number }): Promise<string> {
  await node.start(options);
  return node.actualPath!;
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe('PersistentNode', () => {
  it('creates the node (and its parents), recreates it after a deletion, updates data in place, removes it on close', async () => {
    const zk = await newClient();
    const admin = await newClient();
    const path = `${uniquePath('registry')}/services/api`;
    const node = kept(zk, path, { data: 'v1' });
    expect(await createdPath(node, { timeout: 5_000 })).toBe(path);
    const first = await admin.getData(path);
    expect(text(first.data)).toBe('v1');
    expect(first.stat.ephemeralOwner).toBe(zk.sessionId);

    await node.setData('v2');
    const updated = await admin.getData(path);
    expect(text(updated.data)).toBe('v2');
    expect(updated.stat.czxid).toBe(first.stat.czxid);

    await admin.delete(path);
    await until(async () => {
      const stat = await admin.exists(path);
      return stat !== null && stat.czxid !== first.stat.czxid;
    }, 'recreated after a deletion');
    expect(text((await admin.getData(path)).data)).toBe('v2');

    await node.close();
    expect(await admin.exists(path)).toBeNull();
    await expect(node.start()).rejects.toMatchObject({ name: 'ClosedError', code: 'CLOSED' });
  });

  it('is created again on the new session after an expiry', async () => {
    const { client: zk, proxy } = await proxiedClient({ sessionTimeout: 4_000 });
    const admin = await newClient();
    const path = `${uniquePath('registry')}/worker`;
    const node = kept(zk, path, { data: 'me' });
    await createdPath(node, { timeout: 5_000 });
    const oldSession = zk.sessionId;
    await takeSessionAway(zk, proxy);
    await until(
      async () => {
        const stat = await admin.exists(path);
        return stat !== null && stat.ephemeralOwner === zk.sessionId && zk.sessionId !== oldSession;
      },
      'registered again by the new session',
      15_000,
    );
    expect(text((await admin.getData(path)).data)).toBe('me');
  });

  it("waits out the old session's node at the same path instead of adopting it", async () => {
    const { client: zk, proxy } = await proxiedClient({ sessionTimeout: 4_000 });
    const admin = await newClient();
    const path = `${uniquePath('registry')}/worker`;
    const node = kept(zk, path);
    await createdPath(node, { timeout: 5_000 });
    const oldSession = zk.sessionId;
    // Another client keeps the old session alive; ours declares it expired and renews.
    const keeper = await takeSessionAway(zk, proxy, { keepAlive: true });
    await until(() => zk.state === 'connecting' || zk.sessionId === 0n, 'expired', 15_000);
    proxy.refuse(false);
    await until(() => zk.state === 'connected', 'renewed', 15_000);
    await sleep(500);
    // The node at the path is still the old session's: not ours, not adopted.
    expect((await admin.exists(path))?.ephemeralOwner).toBe(oldSession);
    await keeper.close();
    await until(
      async () => (await admin.exists(path))?.ephemeralOwner === zk.sessionId,
      'created by the new session once the old node went',
      15_000,
    );
  });

  it('with protection and a sequential mode, names the node as Curator does and tracks the new name', async () => {
    const { client: zk, proxy } = await proxiedClient({ sessionTimeout: 4_000 });
    const admin = await newClient();
    const dir = uniquePath('registry');
    const node = kept(zk, `${dir}/member-`, {
      mode: CreateMode.EPHEMERAL_SEQUENTIAL,
      protection: true,
    });
    const first = await createdPath(node, { timeout: 5_000 });
    expect(first).toMatch(/\/_c_[0-9a-f-]{36}-member-\d{10}$/);
    await takeSessionAway(zk, proxy);
    await until(
      async () => node.actualPath !== undefined && node.actualPath !== first,
      'a new node on the new session',
      15_000,
    );
    await untilChildren(admin, dir, 1, 'only the new node');
    expect((await admin.exists(node.actualPath!))?.ephemeralOwner).toBe(zk.sessionId);
  });

  it('refuses bad arguments at construction', () => {
    expect(() => new PersistentNode({} as Client, 'rel')).toThrow(/invalid node path/);
    expect(
      () => new PersistentNode({} as Client, '/x', { mode: CreateMode.PERSISTENT_WITH_TTL }),
    ).toThrow(/ttl/);
    expect(() => new PersistentNode({} as Client, '/x', { mode: CreateMode.CONTAINER })).toThrow(
      /cannot be kept/,
    );
  });
});

describe('PersistentNode with a TTL', () => {
  const reaping = privateServer(startReapingServer);

  it('is kept alive past its TTL while running, and reaped by the server once abandoned', async () => {
    const zk = await reaping.client({ sessionTimeout: 4_000 });
    const node = new PersistentNode(zk, '/ttl-registration', {
      mode: CreateMode.PERSISTENT_WITH_TTL,
      ttl: 600,
      data: 'alive',
    });
    await node.start({ timeout: 5_000 });
    const { stat } = await zk.getData('/ttl-registration');
    await sleep(2_000); // more than three TTLs
    expect((await zk.exists('/ttl-registration'))?.czxid).toBe(stat.czxid);
    // Abandoned without close (a crashed process): nobody touches it any more.
    const other = await connect(reaping.server().connectString, { sessionTimeout: 4_000 });
    try {
      const abandoned = new PersistentNode(other, '/ttl-abandoned', {
        mode: CreateMode.PERSISTENT_WITH_TTL,
        ttl: 300,
      });
      await abandoned.start({ timeout: 5_000 });
      await other.close(); // the touching stops with the client
      await until(async () => (await zk.exists('/ttl-abandoned')) === null, 'TTL node reaped');
    } finally {
      await other.close();
    }
    await node.close();
    expect(await zk.exists('/ttl-registration')).toBeNull();
  });
});
