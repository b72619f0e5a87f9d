// Real Clients on the in-process server (zookeeper-ts/testing) over its in-memory transport, for
// lock tests that need a server and nothing scripted: every request goes through the wire
// protocol to the model the differential test checks against ZooKeeper. Closed after each test.
import { Client } from '../../../src/client/client.js';
import { startServer, type TestServer } from '../../../src/testing/index.js';
import { afterEachTest } from '../../support/after-each-test.js';

const open: { close(): Promise<void> }[] = [];
afterEachTest(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
});

/** A server that lives until the end of the test, and a way to connect clients to it. */
export async function inProcessServer(): Promise<{
  server: TestServer;
  connect(): Promise<Client>;
}> {
  const server = await startServer({ listen: false });
  open.push(server);
  return {
    server,
    async connect() {
      const client = await Client.connect(server.connectString, { transport: server.transport });
      open.push(client);
      return client;
    },
  };
}
