// Shared fixtures of the recipe tests: clients on the shared server (closed after each test),
// proxied clients whose link a test can cut, and a fresh root per test.
import { afterEach } from 'vitest';
import { type Client, type ConnectOptions, connect } from '../../../src/index.js';
import { sharedServer, TcpProxy, uniquePath } from '../../harness/index.js';

const open: Client[] = [];
const proxies: TcpProxy[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
});

/** A client on the shared server (closed after the test). */
export async function newClient(options: ConnectOptions = {}): Promise<Client> {
  const client = await connect(sharedServer().connectString, {
    sessionTimeout: 10_000,
    ...options,
  });
  open.push(client);
  return client;
}

/** A client that reaches the shared server through a proxy the test can cut or freeze. */
export async function proxiedClient(
  options: ConnectOptions = {},
): Promise<{ client: Client; proxy: TcpProxy }> {
  const [host, port] = sharedServer().connectString.split(',')[0]!.split(':') as [string, string];
  const proxy = await TcpProxy.start(host, Number(port));
  proxies.push(proxy);
  const client = await connect(proxy.connectString, { sessionTimeout: 10_000, ...options });
  open.push(client);
  return { client, proxy };
}

/** A fresh path for one test. */
export function recipePath(name: string): string {
  return `${uniquePath('recipes')}/${name}`;
}

// The lock tests' polling helpers, the same for the recipes.
export { sleep, until } from '../locks/helpers.js';
