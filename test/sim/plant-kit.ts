// What the planted bugs and the aimed faults build their clients and leases from, written once:
// a client with some members replaced, a lock client that knows which nodes it created, and a
// lease or term that keeps everything of the real one but a signal or a release of its own.
import type { Client } from '../../src/client/client.js';
import type { Leadership, Lease, RecipeClient } from '../../src/locks/index.js';
import { forwardLockClient, type LockOperations } from '../support/forward-lock-client.js';

/** What a replacing function answers for a member the client is to lack (it reads undefined). */
export const ABSENT: unique symbol = Symbol('absent');

/** The members a wrapper replaces: by name, or asked member by member (undefined: forwarded). */
export type Replaced =
  | Partial<Record<keyof Client, unknown>>
  | ((prop: string | symbol, target: Client) => unknown);

/** `client` with the `replaced` members; every other member forwarded, bound to the client. */
export function clientWith(client: Client, replaced: Replaced): Client {
  return new Proxy(client, {
    get(target, prop) {
      if (typeof replaced === 'function') {
        const own = replaced(prop, target);
        if (own !== undefined) return own === ABSENT ? undefined : own;
      } else if (prop in replaced) return replaced[prop as keyof Client];
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * `client` as a lock recipe sees it, with `replace(own)` in place of some operations, where `own`
 * holds the paths of the nodes this client created (kept up to date by its create2).
 */
export function withOwnNodes(
  client: Client,
  replace: (own: ReadonlySet<string>) => Partial<LockOperations>,
): RecipeClient {
  const own = new Set<string>();
  return forwardLockClient(client, {
    create2: (async (...args: Parameters<Client['create2']>) => {
      const created = await client.create2(...args);
      own.add(created.path);
      return created;
    }) as Client['create2'],
    ...replace(own),
  });
}

/** `term` as a lease that is never released by its holder (a term ends by its latch closing). */
export function leaseOfTerm(term: Leadership): Lease {
  return {
    path: term.path,
    fencingToken: term.fencingToken,
    signal: term.signal,
    released: false,
    release: async () => {},
    multi: (ops, options) => term.multi(ops, options),
    [Symbol.asyncDispose]: async () => {},
  };
}

/** `term` told through `signal` instead of its own. */
export function termWithSignal(term: Leadership, signal: AbortSignal): Leadership {
  return {
    path: term.path,
    fencingToken: term.fencingToken,
    id: term.id,
    signal,
    multi: (ops, options) => term.multi(ops, options),
  };
}

/** `lease` told through `signal` instead of its own; `release` (its own by default) lets go. */
export function leaseWithSignal(
  lease: Lease,
  signal: AbortSignal,
  release: () => Promise<void> = () => lease.release(),
): Lease {
  return {
    path: lease.path,
    fencingToken: lease.fencingToken,
    signal,
    multi: (ops, options) => lease.multi(ops, options),
    get released() {
      return lease.released;
    },
    release,
    [Symbol.asyncDispose]: () => lease.release(),
  };
}

/** The world of a plant in how a holder hears of loss: long holds, the holder's link dark for
 * longer than the session timeout while it holds. */
export const longHoldsDark = {
  holds: 'long' as const,
  faultKinds: ['holeLong', 'holeLong', 'holeShort', 'reset'],
  faultGap: [1000, 4000] as [number, number],
};
