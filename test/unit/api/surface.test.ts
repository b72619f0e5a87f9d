// The public API contract (client, locks, transports), checked by the type checker and at run time: a change
// that breaks the contract breaks this file.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as client from '../../../src/index.js';
import {
  type Client,
  type ConnectOptions,
  CreateMode,
  connect,
  Ids,
  Op,
  type OpResult,
  Perms,
  type RecipeClient,
  type SessionState,
  type Stat,
  type WatchedEvent,
  ZooKeeperError,
} from '../../../src/index.js';
import * as locks from '../../../src/locks/index.js';
import {
  type ExclusiveLock,
  type Lease,
  LockTimeoutError,
  type MultiLock,
  type Mutex,
  type ReadWriteLock,
  type Semaphore,
  withLock,
} from '../../../src/locks/index.js';
import { CreateFlag } from '../../../src/protocol/ops.js';
import {
  createWithParents,
  deleteRecursive,
  ensurePath,
  guaranteedDelete,
} from '../../../src/recipes/index.js';

describe('zookeeper-ts (client entry point)', () => {
  it('exports what API.md promises', () => {
    expect(Object.keys(client).sort()).toEqual(
      expect.arrayContaining([
        'Client',
        'CreateMode',
        'ErrorCode',
        'Ids',
        'Op',
        'Perms',
        'ProtocolError',
        'ZooKeeperError',
        'connect',
      ]),
    );
    expectTypeOf(connect).parameters.toEqualTypeOf<[string, ConnectOptions?]>();
    expectTypeOf(connect).returns.toEqualTypeOf<Promise<Client>>();
  });

  it('Client members have the contract shapes', () => {
    expectTypeOf<Client['create']>().returns.toEqualTypeOf<Promise<string>>();
    expectTypeOf<Client['create2']>().returns.toEqualTypeOf<
      Promise<{ path: string; stat: Stat }>
    >();
    expectTypeOf<Client['delete']>().returns.toEqualTypeOf<Promise<void>>();
    expectTypeOf<Client['exists']>().returns.toEqualTypeOf<Promise<Stat | null>>();
    expectTypeOf<Client['getData']>().returns.toEqualTypeOf<
      Promise<{ data: Uint8Array; stat: Stat }>
    >();
    expectTypeOf<Client['setData']>().returns.toEqualTypeOf<Promise<Stat>>();
    expectTypeOf<Client['getChildren']>().returns.toEqualTypeOf<Promise<string[]>>();
    expectTypeOf<Client['getChildren2']>().returns.toEqualTypeOf<
      Promise<{ children: string[]; stat: Stat }>
    >();
    expectTypeOf<Client['sync']>().returns.toEqualTypeOf<Promise<void>>();
    expectTypeOf<Client['multi']>().returns.toEqualTypeOf<Promise<OpResult[]>>();
    expectTypeOf<Client['watch']>().returns.toMatchTypeOf<AsyncIterableIterator<WatchedEvent>>();
    expectTypeOf<Client['close']>().returns.toEqualTypeOf<Promise<void>>();
    expectTypeOf<Client['state']>().toEqualTypeOf<SessionState>();
    expectTypeOf<Client['sessionId']>().toEqualTypeOf<bigint>();
    expectTypeOf<Client['sessionTimeout']>().toEqualTypeOf<number>();
    expectTypeOf<Client['lastZxid']>().toEqualTypeOf<bigint>();
    expectTypeOf<Client>().toMatchTypeOf<AsyncDisposable>();
    expectTypeOf<Client['on']>().returns.toEqualTypeOf<() => void>();
  });

  it('data shapes and constants', () => {
    expectTypeOf<Stat>().toEqualTypeOf<{
      czxid: bigint;
      mzxid: bigint;
      ctime: number;
      mtime: number;
      version: number;
      cversion: number;
      aversion: number;
      ephemeralOwner: bigint;
      dataLength: number;
      numChildren: number;
      pzxid: bigint;
    }>();
    expectTypeOf<SessionState>().toEqualTypeOf<
      | 'connecting'
      | 'connected'
      | 'connected-readonly'
      | 'suspended'
      | 'expired'
      | 'auth-failed'
      | 'closed'
    >();
    // The protocol's own table, checked value by value in test/unit/protocol/opcodes.test.ts.
    expect(CreateMode).toBe(CreateFlag);
    expect(Perms).toEqual({ READ: 1, WRITE: 2, CREATE: 4, DELETE: 8, ADMIN: 16, ALL: 31 });
    expect(Ids.OPEN_ACL_UNSAFE).toEqual([{ perms: 31, id: { scheme: 'world', id: 'anyone' } }]);
    expect(Ids.CREATOR_ALL_ACL).toEqual([{ perms: 31, id: { scheme: 'auth', id: '' } }]);
    expect(Ids.READ_ACL_UNSAFE).toEqual([{ perms: 1, id: { scheme: 'world', id: 'anyone' } }]);
    expect(Op.check('/a', 3)).toEqual({ type: 'check', path: '/a', version: 3 });
    const error = new ZooKeeperError('NONODE', 'x', { path: '/a' });
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ code: 'NONODE', path: '/a' });
  });
});

describe('zookeeper-ts/locks', () => {
  it('exports what API.md promises', () => {
    for (const name of [
      'Mutex',
      'ReadWriteLock',
      'Semaphore',
      'MultiLock',
      'ExclusiveLock',
      'withLock',
      'LockTimeoutError',
    ]) {
      expect(locks).toHaveProperty(name);
    }
    expect(new LockTimeoutError('/l', 5)).toBeInstanceOf(ZooKeeperError);
  });

  it('every lock acquires leases with a fencing token and a signal', () => {
    type Acquire = (o?: { timeout?: number; signal?: AbortSignal }) => Promise<Lease>;
    expectTypeOf<Mutex['acquire']>().toMatchTypeOf<Acquire>();
    expectTypeOf<ExclusiveLock['acquire']>().toMatchTypeOf<Acquire>();
    expectTypeOf<Semaphore['acquire']>().toMatchTypeOf<Acquire>();
    expectTypeOf<ReadWriteLock['read']['acquire']>().toMatchTypeOf<Acquire>();
    expectTypeOf<ReadWriteLock['write']['tryAcquire']>().returns.toEqualTypeOf<
      Promise<Lease | null>
    >();
    expectTypeOf<MultiLock['tryAcquire']>().returns.toMatchTypeOf<Promise<Lease | null>>();
    expectTypeOf<Lease['fencingToken']>().toEqualTypeOf<bigint>();
    expectTypeOf<Lease['signal']>().toEqualTypeOf<AbortSignal>();
    expectTypeOf<Lease['path']>().toEqualTypeOf<string>();
    expectTypeOf<Lease['release']>().returns.toEqualTypeOf<Promise<void>>();
    expectTypeOf<Lease>().toMatchTypeOf<AsyncDisposable>();
    expectTypeOf(withLock<number>).returns.toEqualTypeOf<Promise<number>>();
  });
});

describe('what a recipe needs from a client: one type', () => {
  /** Source files of package.json's entry points (what a user can import types from). */
  const ENTRIES = [
    'index.ts',
    'locks/index.ts',
    'recipes/index.ts',
    'testing/index.ts',
    'otel/index.ts',
    'session/transports/index.ts',
    'telemetry/index.ts',
  ];
  const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));

  it('no entry point exports a Pick of Client other than RecipeClient', () => {
    const picks: string[] = [];
    for (const file of readdirSync(SRC, { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts')) continue;
      const text = readFileSync(`${SRC}${file}`, 'utf8');
      for (const m of text.matchAll(/export type (\w+)(?:<[^=]*>)? = Pick<\s*Client\b/g)) {
        picks.push(m[1]!);
      }
    }
    const exported = ENTRIES.map((entry) => readFileSync(`${SRC}${entry}`, 'utf8')).join('\n');
    expect(picks).toContain('RecipeClient');
    expect(picks.filter((name) => new RegExp(`\\b${name}\\b`).test(exported))).toEqual([
      'RecipeClient',
    ]);
  });

  it('the path helpers and guaranteedDelete take a RecipeClient, which has lastZxid', () => {
    expectTypeOf(guaranteedDelete).parameter(0).toEqualTypeOf<RecipeClient>();
    expectTypeOf(createWithParents).parameter(0).toEqualTypeOf<RecipeClient>();
    expectTypeOf(deleteRecursive).parameter(0).toEqualTypeOf<RecipeClient>();
    expectTypeOf(ensurePath).parameter(0).toEqualTypeOf<RecipeClient>();
    expectTypeOf<RecipeClient['lastZxid']>().toEqualTypeOf<bigint>();
  });
});
