// The guide's worked example (docs/testing-your-code.md): a service whose leader election
// survives a session expiry, tested on the in-process server with no JVM. The leader's session is
// expired as the server would expire it; its term must end, the other service must take over,
// and the expired one must take part again on its new session, behind the new leader.
import { afterEach, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { LeaderLatch } from '../../../src/locks/index.js';
import { startServer, type TestServer } from '../../../src/testing/index.js';
import { waitFor } from '../../harness/wait.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
});

async function service(server: TestServer, id: string) {
  const client = await Client.connect(server.connectString, { transport: server.transport });
  open.push(client);
  const latch = new LeaderLatch(client, '/services/billing/leader', { id });
  open.push(latch);
  latch.start();
  return { client, latch };
}

it('an expired leader loses its term, the other service leads, and the first rejoins behind it', async () => {
  const server = await startServer({ listen: false });
  open.push(server);
  const a = await service(server, 'a');
  const termOfA = await a.latch.leadership();
  const b = await service(server, 'b');
  expect((await a.latch.leader())?.id).toBe('a');

  const ended = new Promise((resolve) => termOfA.signal.addEventListener('abort', resolve));
  expect(await server.expireSession(a.client)).toBe(true);
  await ended;

  await b.latch.leadership();
  expect((await b.latch.leader())?.id).toBe('b');
  // a renews its session and takes part again, second in line.
  await new Promise<void>((resolve) => {
    const off = a.client.on('renewed', () => {
      off();
      resolve();
    });
  });
  const line = await waitFor(
    async () => {
      const ids = (await b.latch.participants()).map((p) => p.id);
      return ids.length === 2 ? ids : undefined;
    },
    { what: 'a back in line', timeoutMs: 10_000 },
  );
  expect(line).toEqual(['b', 'a']);
});
