// Every exported class the contract checker knows, by name: the recipes and locks
// (catalog-recipes.ts), the client, the error classes and the value classes. A class exported by
// an entry point and missing here fails the conformance test: classify it, with the checks of its
// kind, before it ships.
import { Client } from '../../../../src/client/client.js';
import { ListenerError } from '../../../../src/client/listeners.js';
import {
  LeaseReleasedError,
  LockLostError,
  LockTimeoutError,
  RevocationRequestedError,
} from '../../../../src/locks/index.js';
import {
  ClientClosedError,
  ClosedError,
  errorClasses,
  InvalidArgumentError,
  ProtocolError,
  TimeoutError,
  ZooKeeperError,
} from '../../../../src/protocol/errors.js';
import { FrameSizeError } from '../../../../src/protocol/frame.js';
import { call } from './bench.js';
import { contract, RECIPES } from './catalog-recipes.js';
import type { ClassSpec, EntryName, ErrorKind, Loose } from './kinds.js';

const root: EntryName = 'zookeeper-ts';
const locks: EntryName = 'zookeeper-ts/locks';

function error(
  entry: EntryName,
  code: string | undefined,
  make: () => Error,
  clientSide = false,
): ErrorKind {
  return { kind: 'error', entry, code, clientSide, zooKeeperError: true, make };
}

/** One class per server code (the table's `errorClasses`), each with that code. */
const SERVER_ERRORS: Record<string, ErrorKind> = Object.fromEntries(
  Object.entries(errorClasses).map(([code, cls]) => [
    cls.name,
    error(root, code, () => new cls(`a ${code} from the server`)),
  ]),
);

export const CATALOG: Record<string, ClassSpec> = {
  ...RECIPES,
  Client: {
    kind: 'client',
    entry: root,
    connect: (env) => Client.connect(env.server.connectString, { transport: env.server.transport }),
    // A black hole holds the handshake of every link of this client name: no session comes.
    unreachable: (env, bounds) => {
      env.server.blackHole({ client: 'unreachable' }, 600_000);
      return Client.connect(env.server.connectString, {
        transport: env.server.transportFor('unreachable'),
        ...bounds,
      });
    },
  },
  TakenEntry: {
    kind: 'handle',
    entry: 'zookeeper-ts/recipes',
    why: 'LockingQueue.take()',
    take: async (_env, client, path, defer) => {
      const queue = contract('LockingQueue', client, path);
      defer(() => call(queue, 'close'));
      await call(queue, 'put', 'item');
      const handle = (await call(queue, 'take')) as Loose;
      return { handle, nodes: [handle.lockPath as string] };
    },
  },
  WebStreamConnection: {
    kind: 'value',
    entry: 'zookeeper-ts/transports',
    why: 'one connection of a transport adapter: its lifecycle is the transport interface',
  },
  ...SERVER_ERRORS,
  ZooKeeperError: error(root, 'NONODE', () => new ZooKeeperError('NONODE', 'the base class')),
  ProtocolError: error(root, 'MARSHALLINGERROR', () => new ProtocolError('short read')),
  FrameSizeError: error(root, 'MARSHALLINGERROR', () => new FrameSizeError(1 << 30, 1 << 20)),
  TimeoutError: error(root, 'TIMEOUT', () => new TimeoutError(5), true),
  // The client's refusal wears the server's code for the same fault (and is a BadArgumentsError).
  InvalidArgumentError: error(root, 'BADARGUMENTS', () => new InvalidArgumentError('bad')),
  ClientClosedError: error(root, 'CLIENTCLOSED', () => new ClientClosedError(), true),
  ClosedError: error(root, 'CLOSED', () => new ClosedError('the latch /l'), true),
  ListenerError: {
    kind: 'error',
    entry: root,
    code: undefined,
    clientSide: false,
    // What a listener threw, handed on; not a fault of the client.
    zooKeeperError: false,
    make: () => new ListenerError('state', new Error('thrown')),
  },
  LockTimeoutError: error(locks, 'TIMEOUT', () => new LockTimeoutError('/l', 5), true),
  LeaseReleasedError: error(locks, 'LEASERELEASED', () => new LeaseReleasedError('/l'), true),
  LockLostError: error(locks, 'SESSIONEXPIRED', () => new LockLostError('expired', '/l')),
  RevocationRequestedError: error(
    locks,
    'REVOCATIONREQUESTED',
    () => new RevocationRequestedError('/l'),
    true,
  ),
};
