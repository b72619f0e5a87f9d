// examples/testing/worker.ts: the same test in a Cloudflare Worker (workerd), where nothing can
// listen on a socket: the server runs inside the Worker and the client reaches it through the
// in-memory transport. Bundle it (npx esbuild examples/testing/worker.ts --bundle --format=esm)
// and request any path: it answers "ok", or the failure with status 500.
import { type Client, CreateMode, connect } from '../../src/index.js';
import { startServer } from '../../src/testing/index.js';

/** The code under test. */
async function announce(zk: Client, name: string): Promise<void> {
  await zk.create('/workers', '').catch((error: { code?: string }) => {
    if (error.code !== 'NODEEXISTS') throw error;
  });
  await zk.create(`/workers/${name}`, '', { mode: CreateMode.EPHEMERAL });
}

function same(actual: string[], expected: string[]): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected))
    throw new Error(`expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

export default {
  async fetch(): Promise<Response> {
    const server = await startServer({ listen: false });
    const options = { transport: server.transport };
    const worker = await connect(server.connectString, options);
    const observer = await connect(server.connectString, options);
    try {
      await announce(worker, 'w1');
      let onChange!: () => void;
      const changed = new Promise<void>((resolve) => {
        onChange = resolve;
      });
      same(await observer.getChildren('/workers', { watch: () => onChange() }), ['w1']);
      await server.expireSession(worker); // as when the worker stalls past its session timeout
      await changed;
      same(await observer.getChildren('/workers'), []);
      return new Response('ok');
    } catch (error) {
      return new Response(String(error), { status: 500 });
    } finally {
      await worker.close();
      await observer.close();
      await server.close();
    }
  },
};
