// Planted bugs in the recipes beyond the mutex (semaphore, read-write lock, exclusive lock,
// latch, selector) and in the leases and terms they hand out. Like the others, they reach the
// recipes only through public seams: the client a recipe is given, or the lease it returns.
import type { Client } from '../../src/client/client.js';
import type { Leadership, Lease } from '../../src/locks/index.js';
import { ZooKeeperError } from '../../src/protocol/errors.js';
import { forwardLockClient } from '../support/forward-lock-client.js';
import { leaseOfTerm, leaseWithSignal, longHoldsDark, termWithSignal } from './plant-kit.js';
import type { Plant } from './plants.js';
import { ignoresSuspension } from './plants-leases.js';

/** The sequence number at the end of a node name (signed past the wrap). */
function sequenceOf(name: string): number {
  const match = /(-?\d+)$/.exec(name);
  return match ? Number(match[1]) : Number.NaN;
}

/** A client whose listings of directories that `hides` matches leave out the nodes it picks. */
function hidingListings(
  client: Client,
  hides: (dir: string) => boolean,
  pick: (children: string[]) => string[],
) {
  return forwardLockClient(client, {
    getChildren: (async (path: string, options?: Parameters<Client['getChildren']>[1]) => {
      const children = await client.getChildren(path, options);
      return hides(path) ? pick(children) : children;
    }) as Client['getChildren'],
  });
}

/** Leaves out the first contender in line (the lowest sequence number). */
const withoutFirst = (children: string[]) => {
  if (children.length < 2) return children;
  const first = children.reduce((a, b) => (sequenceOf(b) < sequenceOf(a) ? b : a));
  return children.filter((c) => c !== first);
};

/** A lease whose `release()` does not abort its signal: the holder is never told it let go. */
function releaseKeepsSignal(lease: Lease): Lease {
  const own = new AbortController();
  const forward = () => {
    if ((lease.signal.reason as Error | undefined)?.name !== 'LeaseReleasedError')
      own.abort(lease.signal.reason);
  };
  if (lease.signal.aborted) forward();
  else lease.signal.addEventListener('abort', forward, { once: true });
  return leaseWithSignal(lease, own.signal);
}

/** A lease whose fencing token is its node's sequence number instead of its czxid. */
function tokenFromSequence(lease: Lease): Lease {
  return {
    path: lease.path,
    fencingToken: BigInt(sequenceOf(lease.path)),
    get signal() {
      return lease.signal;
    },
    get released() {
      return lease.released;
    },
    release: () => lease.release(),
    multi: (ops, options) => lease.multi(ops, options),
    [Symbol.asyncDispose]: () => lease.release(),
  };
}

/** The same term, told only when the session is over (not when the connection drops). */
function termIgnoresSuspension(term: Leadership, client: Client): Leadership {
  return termWithSignal(term, ignoresSuspension(leaseOfTerm(term), client).signal);
}

export const recipePlants: Record<string, Plant> = {
  'latch-close-keeps-term': {
    name: 'latch-close-keeps-term',
    description: "closing a latch does not end its leader's term (the signal stays quiet)",
    workload: 'latch',
    term(term) {
      return termWithSignal(term, releaseKeepsSignal(leaseOfTerm(term)).signal);
    },
  },
  'release-keeps-signal': {
    name: 'release-keeps-signal',
    description: "release() does not abort the lease's signal: the holder acts on after letting go",
    workload: 'mutex',
    lease: (lease) => releaseKeepsSignal(lease),
  },
  'token-from-sequence': {
    name: 'token-from-sequence',
    description: "a lease's fencing token is its node's sequence number, not its czxid",
    workload: 'mutex',
    nearWrap: true,
    lease: (lease) => tokenFromSequence(lease),
  },
  'semaphore-ignores-suspension': {
    name: 'semaphore-ignores-suspension',
    description: "a semaphore lease's signal does not abort when the connection is suspended",
    workload: 'semaphore',
    ...longHoldsDark,
    lease: (lease, client) => ignoresSuspension(lease, client),
  },
  'rwlock-ignores-suspension': {
    name: 'rwlock-ignores-suspension',
    description: "a read or write lease's signal does not abort when the connection is suspended",
    workload: 'rwlock',
    ...longHoldsDark,
    lease: (lease, client) => ignoresSuspension(lease, client),
  },
  'exclusive-ignores-suspension': {
    name: 'exclusive-ignores-suspension',
    description: "an ExclusiveLock lease's signal does not abort when the connection is suspended",
    workload: 'exclusive',
    ...longHoldsDark,
    lease: (lease, client) => ignoresSuspension(lease, client),
  },
  'multilock-ignores-suspension': {
    name: 'multilock-ignores-suspension',
    description: "a multi lease's signal does not abort when the connection is suspended",
    workload: 'multilock',
    ...longHoldsDark,
    lease: (lease, client) => ignoresSuspension(lease, client),
  },
  'latch-ignores-suspension': {
    name: 'latch-ignores-suspension',
    description: "a leader's term does not end when the connection is suspended",
    workload: 'latch',
    ...longHoldsDark,
    term: (term, client) => termIgnoresSuspension(term, client),
  },
  'selector-ignores-suspension': {
    name: 'selector-ignores-suspension',
    description: "a selector task's term does not end when the connection is suspended",
    workload: 'selector',
    ...longHoldsDark,
    term: (term, client) => termIgnoresSuspension(term, client),
  },
  'semaphore-misses-a-lease': {
    name: 'semaphore-misses-a-lease',
    description: 'the semaphore counts the lease nodes from a listing that misses the oldest one',
    workload: 'semaphore',
    wrap: (client) => hidingListings(client, (dir) => dir.endsWith('/leases'), withoutFirst),
  },
  'exclusive-node-exists-is-mine': {
    name: 'exclusive-node-exists-is-mine',
    description:
      'ExclusiveLock takes a NODEEXISTS on create for its own node (someone else holds it)',
    workload: 'exclusive',
    wrap(client) {
      return forwardLockClient(client, {
        create2: (async (...args: Parameters<Client['create2']>) => {
          try {
            return await client.create2(...args);
          } catch (error) {
            if (!(error instanceof ZooKeeperError) || error.code !== 'NODEEXISTS') throw error;
            const stat = await client.exists(args[0]);
            if (!stat) throw error;
            return { path: args[0], stat };
          }
        }) as Client['create2'],
      });
    },
  },
  'multilock-misses-a-holder': {
    name: 'multilock-misses-a-holder',
    description: 'the mutexes under a multi lock list their queue without its first contender',
    workload: 'multilock',
    wrap: (client) => hidingListings(client, (dir) => dir.includes('/multi-'), withoutFirst),
  },
};
