// Shared helpers for client tests: a fresh chroot per test on the shared server, and clients that
// are always closed afterwards.
import { afterEach } from 'vitest';
import {
  type Client,
  type ConnectOptions,
  connect,
  type SessionState,
} from '../../../src/index.js';
import { sharedServer, TcpProxy, uniquePath } from '../../harness/index.js';

/** What a promise rejected with (test/support/thrown.ts), for the client tests that import it here. */
export { rejection } from '../../support/thrown.js';

const open = new Set<Client>();
const proxies: TcpProxy[] = [];

// Clients first, while their proxies still carry the close to the server; then the proxies.
afterEach(async () => {
  await Promise.all([...open].map((c) => c.close()));
  open.clear();
  await Promise.all(proxies.splice(0).map((p) => p.close()));
});

/** A proxy to the shared server that the test can cut or freeze, stopped after the test. */
export async function proxied(): Promise<TcpProxy> {
  const [host, port] = sharedServer().connectString.split(':') as [string, string];
  const proxy = await TcpProxy.start(host, Number(port));
  proxies.push(proxy);
  return proxy;
}

/** A client on `connectString` that the test's teardown closes. */
export async function client(connectString: string, options: ConnectOptions = {}): Promise<Client> {
  const zk = await connect(connectString, { sessionTimeout: 4_000, ...options });
  open.add(zk);
  return zk;
}

/** A client chrooted into a fresh, empty node of the shared server. */
export async function chrooted(
  options: ConnectOptions = {},
): Promise<{ zk: Client; chroot: string; root: Client }> {
  const { connectString } = sharedServer();
  const root = await client(connectString);
  const chroot = uniquePath('client');
  await root.create(chroot);
  const zk = await client(connectString + chroot, options);
  return { zk, chroot, root };
}

export const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** Resolves with the next value pushed, or rejects after `ms`. */
export function nextEvent<T>(register: (push: (value: T) => void) => void, ms = 5_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no event within ${ms} ms`)), ms);
    register((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}

/** Resolves when `zk` reaches `wanted` (at once if it is there), rejects after `ms`. */
export function until(zk: Client, wanted: SessionState, ms = 10_000): Promise<void> {
  if (zk.state === wanted) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`state ${wanted} not reached within ${ms} ms (now ${zk.state})`));
    }, ms);
    const off = zk.on('state', (s) => {
      if (s !== wanted) return;
      clearTimeout(timer);
      off();
      resolve();
    });
  });
}
