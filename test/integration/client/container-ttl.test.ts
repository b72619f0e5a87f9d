// Container and TTL nodes are reaped by the server's container manager; a server that checks
// every 100 ms shows that our create modes really produce them.
import { describe, expect, it } from 'vitest';
import { CreateMode } from '../../../src/index.js';
import { waitFor } from '../../harness/index.js';
import { privateServer, startReapingServer } from '../../support/integration.js';

describe('container and TTL nodes', () => {
  const reaping = privateServer(startReapingServer);

  it('a container disappears once its last child is gone, a persistent node does not', async () => {
    const zk = await reaping.client({ sessionTimeout: 4_000 });
    await zk.create('/box', '', { mode: CreateMode.CONTAINER });
    await zk.create('/plain');
    await zk.create('/box/child');
    await zk.create('/plain/child');
    await zk.delete('/box/child');
    await zk.delete('/plain/child');
    await waitFor(async () => ((await zk.exists('/box')) === null ? true : undefined), {
      timeoutMs: 10_000,
      what: 'container /box reaped',
    });
    expect(await zk.exists('/plain')).not.toBeNull();
  });

  it('a TTL node with no children disappears after its TTL', async () => {
    const zk = await reaping.client({ sessionTimeout: 4_000 });
    await zk.create('/short', '', { mode: CreateMode.PERSISTENT_WITH_TTL, ttl: 200 });
    const seq = await zk.create('/seq-', '', {
      mode: CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL,
      ttl: 200,
    });
    await zk.create('/long', '', { mode: CreateMode.PERSISTENT_WITH_TTL, ttl: 600_000 });
    const gone = async (path: string) => (await zk.exists(path)) === null;
    await waitFor(async () => ((await gone('/short')) && (await gone(seq)) ? true : undefined), {
      timeoutMs: 10_000,
      what: 'TTL nodes reaped',
    });
    expect(await zk.exists('/long')).not.toBeNull();
  });
});
