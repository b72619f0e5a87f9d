/**
 * `zookeeper-ts/testing`: an in-process ZooKeeper for tests. The model server the library's own
 * simulator runs (and checks against the real ZooKeeper), reached over TCP on loopback ports
 * (Node, Bun, Deno) or an in-memory transport (every runtime, workerd included), with fault
 * controls: expire a session, drop or black-hole connections, delay or lose replies, partition,
 * crash and restart members, make a follower lag. Not durable, not for production. The same
 * handle over a real ZooKeeper (`kind: 'real'`, or `ZKTS_TEST_SERVER=real`), so that one test runs
 * on either.
 *
 * @module
 */
import { makeError } from '../protocol/errors.js';
import { InProcessServer } from './server.js';
import type { TestServer, TestServerKind, TestServerOptions } from './types.js';

export { type ManualClock, manualClock } from './clock.js';
export type {
  ClientTarget,
  SessionHolder,
  SessionTarget,
  TestServer,
  TestServerKind,
  TestServerMember,
  TestServerOptions,
} from './types.js';

/**
 * Starts an in-process ZooKeeper (one member, or `members` of them) and resolves once it accepts
 * connections. Close it with `await server.close()` or `await using server = ...`. With
 * `kind: 'real'` (or `ZKTS_TEST_SERVER=real` in the environment) it starts a real ZooKeeper from
 * a local install instead, behind the same handle.
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
  if (kindOf(options) === 'real') {
    const { startRealServer } = await import('./real/server.js');
    return startRealServer(options);
  }
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

/** The kind asked for: the option, else `ZKTS_TEST_SERVER` where the runtime has an environment. */
function kindOf(options: TestServerOptions): TestServerKind {
  const kind = options.kind ?? (environmentKind() || 'model');
  if (kind !== 'model' && kind !== 'real')
    throw makeError(
      'BADARGUMENTS',
      `startServer: kind (or ZKTS_TEST_SERVER) must be 'model' or 'real', got '${kind}'`,
    );
  return kind;
}

function environmentKind(): string | undefined {
  try {
    const environment = (globalThis as { process?: { env?: Record<string, string | undefined> } })
      .process?.env;
    return environment?.ZKTS_TEST_SERVER?.trim();
  } catch {
    // Deno without --allow-env throws on reading the environment: no choice made there.
    return undefined;
  }
}
