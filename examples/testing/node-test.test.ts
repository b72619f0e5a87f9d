// examples/testing/node-test.test.ts (node --test, with tsx for TypeScript): the same test on
// Node's own runner.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Client, CreateMode, connect } from '../../src/index.js';
import { startServer, type TestServer } from '../../src/testing/index.js';

/** The code under test. */
async function announce(zk: Client, name: string): Promise<void> {
  await zk.create('/workers', '').catch((error: { code?: string }) => {
    if (error.code !== 'NODEEXISTS') throw error;
  });
  await zk.create(`/workers/${name}`, '', { mode: CreateMode.EPHEMERAL });
}

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

test('a worker is listed while its session lives', async () => {
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
  }
});
