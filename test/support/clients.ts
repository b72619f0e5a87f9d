// Clients for tests against a real server, in one place: on the shared server or through a proxy
// the test can cut or freeze, each closed (and each proxy stopped) after the test that opened it.
import { type Client, type ConnectOptions, connect } from '../../src/index.js';
import { sharedServer, TcpProxy } from '../harness/index.js';
import { afterEachTest } from './after-each-test.js';

const open: Client[] = [];
const proxies: TcpProxy[] = [];

afterEachTest(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
});

/** Closes `client` after the running test (with the clients made here). */
export function closeAfterTest(client: Client): Client {
  open.push(client);
  return client;
}

/** A client on the shared server, or on `connectString` (closed after the test). */
export async function newClient(
  options: ConnectOptions = {},
  connectString = sharedServer().connectString,
): Promise<Client> {
  const client = await connect(connectString, { sessionTimeout: 10_000, ...options });
  return closeAfterTest(client);
}

/** `n` clients on the shared server (closed after the test). */
export function newClients(n: number, options: ConnectOptions = {}): Promise<Client[]> {
  return Promise.all(Array.from({ length: n }, () => newClient(options)));
}

/** A proxy to the shared server that the test can cut or freeze (stopped after the test). */
export async function sharedServerProxy(): Promise<TcpProxy> {
  const [host, port] = sharedServer().connectString.split(',')[0]!.split(':') as [string, string];
  const proxy = await TcpProxy.start(host, Number(port));
  proxies.push(proxy);
  return proxy;
}

/** A client that reaches the shared server through a proxy the test can cut or freeze. */
export async function proxiedClient(
  options: ConnectOptions = {},
): Promise<{ client: Client; proxy: TcpProxy }> {
  const proxy = await sharedServerProxy();
  const client = closeAfterTest(
    await connect(proxy.connectString, { sessionTimeout: 10_000, ...options }),
  );
  return { client, proxy };
}
