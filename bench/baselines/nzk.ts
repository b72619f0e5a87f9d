// node-zookeeper-client sessions for the baselines: connected when returned, closed on demand.
import { type Client, createClient } from 'node-zookeeper-client';

export type { Client as NzkClient } from 'node-zookeeper-client';
export { CreateMode } from 'node-zookeeper-client';

/** A connected node-zookeeper-client session (rejects after 15 s without one). */
export function connectNzk(server: string): Promise<Client> {
  const client = createClient(server, { sessionTimeout: 30_000, retries: 0 });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.close();
      reject(new Error(`node-zookeeper-client: no session with ${server} within 15 s`));
    }, 15_000);
    client.once('connected', () => {
      clearTimeout(timer);
      resolve(client);
    });
    client.connect();
  });
}

/** Closes and waits for the socket to go (the library's close() returns nothing). */
export function closeNzk(client: Client): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 2000);
    client.once('disconnected', () => {
      clearTimeout(timer);
      resolve();
    });
    client.close();
  });
}

/** `mkdir -p`: creates `path` and its missing parents as persistent nodes. */
export function mkdirpNzk(client: Client, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    client.mkdirp(path, (error) => (error ? reject(error) : resolve()));
  });
}
