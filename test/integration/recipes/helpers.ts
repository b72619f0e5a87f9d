// Shared fixtures of the recipe tests: clients on the shared server (closed after each test),
// proxied clients whose link a test can cut, and a fresh root per test.

import type { Client, ConnectOptions, RecipeClient } from '../../../src/index.js';
import { makeError } from '../../../src/protocol/errors.js';
import { type TcpProxy, uniquePath } from '../../harness/index.js';
import { closeAfterTest, newClient, proxiedClient } from '../../support/clients.js';
import { stateReached, takeSessionAway } from '../../support/integration.js';

export { newClient, proxiedClient } from '../../support/clients.js';
// The lock tests' polling helpers, the same for the recipes.
export { sleep, until } from '../locks/helpers.js';

/** Resolves at the client's next session renewal; rejects after `timeoutMs`. */
function nextRenewal(client: Client, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no renewal within ${timeoutMs} ms`));
    }, timeoutMs);
    const off = client.on('renewed', () => {
      clearTimeout(timer);
      off();
      resolve();
    });
  });
}

/**
 * Has the server expire `client`'s session while the client is cut off: the proxy refuses and
 * cuts it, another connection resumes the session and closes it. `whileAway` runs before the
 * client may reconnect (changes made then are ones its watches cannot have seen). Resolves once
 * the client has renewed its session.
 */
export async function expireSession(
  client: Client,
  proxy: TcpProxy,
  whileAway: () => Promise<void> = async () => {},
): Promise<void> {
  const renewed = nextRenewal(client, 20_000);
  const thief = await takeSessionAway(client, proxy, { keepAlive: true });
  await thief.close();
  await whileAway();
  proxy.refuse(false);
  await renewed;
  await stateReached(client, 'connected', 15_000);
}

/**
 * The client's session ends for the client but lives on on the server: the client is cut off,
 * another connection takes the session over and keeps it alive, the client gives up on it after
 * its session timeout and renews once the proxy lets it in again. The old session's ephemeral
 * nodes stay until the returned keeper is closed. Resolves once the client is on a new session.
 */
export async function renewWhileOldSessionLives(client: Client, proxy: TcpProxy): Promise<Client> {
  const renewed = nextRenewal(client, 30_000);
  const expired = stateReached(client, 'expired', 30_000);
  const keeper = closeAfterTest(await takeSessionAway(client, proxy, { keepAlive: true }));
  await expired;
  proxy.refuse(false);
  await renewed;
  await stateReached(client, 'connected', 15_000);
  return keeper;
}

/**
 * The usual cast of a link-loss test: a client behind a proxy the test can cut (with `options`),
 * a peer client on the shared server that is never cut, and a fresh path `name`.
 */
export async function cutAndPeer(
  name: string,
  options: ConnectOptions = {},
): Promise<{ client: Client; proxy: TcpProxy; peer: Client; path: string }> {
  const { client, proxy } = await proxiedClient(options);
  return { client, proxy, peer: await newClient(), path: recipePath(name) };
}

/** A fresh path for one test. */
export function recipePath(name: string): string {
  return `${uniquePath('recipes')}/${name}`;
}

/**
 * `client`, but each create's reply is held until `release()`; a create whose signal aborted
 * meanwhile then rejects with its reason, as the client gives up a call whose signal aborts,
 * although the server applied it.
 */
export function holdingCreateReplies(client: Client): {
  client: RecipeClient;
  release: () => void;
} {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const wrapped = new Proxy(client, {
    get(target, property) {
      if (property === 'create2') {
        return async (...args: Parameters<Client['create2']>) => {
          const [path, data, options = {}] = args;
          const reply = target.create2(path, data, { ...options, signal: undefined });
          reply.catch(() => {});
          await released;
          const created = await reply;
          if (options.signal?.aborted) throw options.signal.reason;
          return created;
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { client: wrapped, release };
}

/** `client`, but the first create's reply is lost after the server applied it. */
export function losingFirstCreateReply(client: Client): RecipeClient {
  let lost = false;
  return new Proxy(client, {
    get(target, property) {
      if (property === 'create2') {
        return async (...args: Parameters<Client['create2']>) => {
          const created = await target.create2(...args);
          if (lost) return created;
          lost = true;
          throw makeError('CONNECTIONLOSS', 'the reply was lost (test)');
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
