// `npm run bench -- --port N`: the server the benchmark starts listens where the user said, and a
// port that is taken is reported as such instead of being swapped for another one.
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { provideServer } from '../../bench/server.js';
import { connect } from '../../src/index.js';
import { freePort } from '../harness/index.js';

describe('the benchmark server on a chosen port', () => {
  it('listens on --port', async () => {
    const port = await freePort();
    const server = await provideServer({ server: undefined, fsync: false, port });
    try {
      expect(server.connectString).toBe(`127.0.0.1:${port}`);
      const client = await connect(`127.0.0.1:${port}`);
      await client.close();
    } finally {
      await server.close();
    }
  }, 60_000);

  it('reports a taken port', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as { port: number };
    try {
      await expect(provideServer({ server: undefined, fsync: false, port })).rejects.toThrow(
        `ZooKeeper could not listen on port ${port}: it is taken`,
      );
    } finally {
      holder.close();
    }
  }, 60_000);
});
