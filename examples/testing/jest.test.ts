// examples/testing/jest.test.ts (NODE_OPTIONS=--experimental-vm-modules npx jest, with
// jest.config.js and jest-esbuild.js beside it): the same test on Jest, as ESM TypeScript.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
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
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

test('a worker is listed while its session lives', async () => {
  const worker = await connect(server.connectString);
  const observer = await connect(server.connectString);
  try {
    await announce(worker, 'w1');
    let onChange!: () => void;
    const changed = new Promise<void>((resolve) => {
      onChange = resolve;
    });
    expect(await observer.getChildren('/workers', { watch: () => onChange() })).toEqual(['w1']);
    await server.expireSession(worker); // as when the worker stalls past its session timeout
    await changed;
    expect(await observer.getChildren('/workers')).toEqual([]);
  } finally {
    await worker.close();
    await observer.close();
  }
});
