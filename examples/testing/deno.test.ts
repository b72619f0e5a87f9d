// examples/testing/deno.test.ts (deno test --allow-net=127.0.0.1): the same test on Deno's
// runner, a server per test; Deno's sanitizers check that nothing is left open at its end.
import assert from 'node:assert/strict';
import { type Client, CreateMode, connect } from '../../src/index.js';
import { startServer } from '../../src/testing/index.js';

/** The code under test. */
async function announce(zk: Client, name: string): Promise<void> {
  await zk.create('/workers', '').catch((error: { code?: string }) => {
    if (error.code !== 'NODEEXISTS') throw error;
  });
  await zk.create(`/workers/${name}`, '', { mode: CreateMode.EPHEMERAL });
}

Deno.test('a worker is listed while its session lives', async () => {
  const server = await startServer();
  const worker = await connect(server.connectString);
  const observer = await connect(server.connectString);
  try {
    await announce(worker, 'w1');
    let onChange!: () => void;
    const changed = new Promise<void>((resolve) => {
      onChange = resolve;
    });
    assert.deepEqual(await observer.getChildren('/workers', { watch: () => onChange() }), ['w1']);
    await server.expireSession(worker); // as when the worker stalls past its session timeout
    await changed;
    assert.deepEqual(await observer.getChildren('/workers'), []);
  } finally {
    await worker.close();
    await observer.close();
    await server.close();
  }
});
