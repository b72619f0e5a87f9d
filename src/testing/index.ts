/**
 * `zookeeper-ts/testing`: an in-process ZooKeeper for tests. The model server the library's own
 * simulator runs (and checks against the real ZooKeeper), reached over TCP on loopback ports
 * (Node, Bun, Deno) or an in-memory transport (every runtime, workerd included), with fault
 * controls: expire a session, drop or black-hole connections, delay or lose replies, partition,
 * crash and restart members, make a follower lag. Not durable, not for production.
 *
 * @module
 */
import { InProcessServer } from './server.js';
import type { TestServer, TestServerOptions } from './types.js';

export { type ManualClock, manualClock } from './clock.js';
export type {
  ClientTarget,
  SessionHolder,
  SessionTarget,
  TestServer,
  TestServerMember,
  TestServerOptions,
} from './types.js';

/**
 * Starts an in-process ZooKeeper (one member, or `members` of them) and resolves once it accepts
 * connections. Close it with `await server.close()` or `await using server = ...`.
 *
 * @example
 * ```ts
 * import { Client } from 'zookeeper-ts';
 * import { startServer } from 'zookeeper-ts/testing';
 *
 * await using server = await startServer();
 * await using client = await Client.connect(server.connectString);
 * await client.create('/app', 'hello');
 * ```
 */
export async function startServer(options: TestServerOptions = {}): Promise<TestServer> {
  const server = new InProcessServer(options);
  const host = options.host ?? '127.0.0.1';
  if (options.listen === true || options.port !== undefined) {
    await server.listen(host, options.port);
  } else if (options.listen === undefined) {
    // Where sockets cannot be served (workerd), the in-memory transport is the way in.
    await server.listen(host, undefined).catch(() => server.unlisten());
  }
  return server;
}
