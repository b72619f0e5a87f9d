// What the checker knows of each recipe and lock class: its kind (kinds.ts), the options of the
// contract's form, an option it must refuse, and how to make each of its waits impossible to meet.
// The pieces the entries are built from are in catalog-support.ts.
import * as lockExports from '../../../../src/locks/index.js';
import * as recipeExports from '../../../../src/recipes/index.js';
import { call } from './bench.js';
import {
  contract,
  holdOther,
  leadUntilClosed,
  leaseOf,
  lockLike,
  onStart,
  startStalled,
} from './catalog-support.js';
import type { Bounds, Ctx, LongLived, Loose, SingleOperation } from './kinds.js';
import { eventually } from './outcome.js';

export { contract };

export const RECIPES: Record<string, LongLived | SingleOperation> = {
  LeaderLatch: {
    kind: 'long-lived',
    entry: 'zookeeper-ts/locks',
    options: () => ({ id: 'subject' }),
    badOptions: { lossPolicy: 'never' },
    start: true,
    events: [onStart('leader')],
    waits: [
      startStalled,
      {
        name: 'leadership',
        block: async (ctx) => {
          const ahead = contract('LeaderLatch', ctx.env.other, ctx.path, { id: 'ahead' });
          ctx.defer(() => call(ahead, 'close'));
          await call(ahead, 'start');
          await call(ctx.subject, 'start');
        },
        call: (subject, bounds) => call(subject, 'leadership', bounds),
      },
    ],
    held: async ({ subject }) => {
      await call(subject, 'start');
      return subject.ourPath as string;
    },
  },
  LeaderSelector: {
    kind: 'long-lived',
    entry: 'zookeeper-ts/locks',
    options: () => ({ id: 'subject', task: leadUntilClosed }),
    badOptions: { task: 'not a function' },
    start: true,
    events: [],
    // Its start() waits for nothing on the server (docs/contract.md): only abort and bad input.
    waits: [{ ...startStalled, rules: ['abort', 'bad-timeout'] }],
    held: async ({ subject }) => {
      await call(subject, 'start');
      // The task runs once the selector leads: its node is then first in line.
      if (!(await eventually(() => subject.hasLeadership === true))) {
        throw new Error('the selector never led a free election');
      }
      const line = (await call(subject, 'participants')) as { path: string }[];
      return line[0]!.path;
    },
  },
  LeaderObserver: {
    kind: 'long-lived',
    entry: 'zookeeper-ts/locks',
    options: () => ({}),
    badOptions: { election: 'nobody' },
    start: true,
    events: [onStart('change')],
    waits: [startStalled],
  },
  PersistentNode: {
    kind: 'long-lived',
    entry: 'zookeeper-ts/recipes',
    options: () => ({ data: 'kept' }),
    badOptions: { mode: 99 },
    start: true,
    events: [onStart('created')],
    waits: [startStalled],
    held: async ({ subject }) => {
      await call(subject, 'start');
      return subject.actualPath as string;
    },
  },
  ServiceDiscovery: {
    kind: 'long-lived',
    entry: 'zookeeper-ts/recipes',
    // start() registers this instance; it is what the discovery holds.
    options: () => ({ instance: { name: 'svc', id: 'subject' } }),
    badOptions: { instance: { name: 'a/b' } },
    start: true,
    events: [],
    waits: [
      startStalled,
      {
        name: 'register',
        block: async ({ control }) => control.stall(),
        call: (subject, bounds) => call(subject, 'register', { name: 'other' }, bounds),
      },
    ],
    held: async ({ subject, path }) => {
      await call(subject, 'start');
      return `${path}/svc/subject`;
    },
  },
  GroupMember: {
    kind: 'long-lived',
    entry: 'zookeeper-ts/recipes',
    options: () => ({ id: 'subject', data: 'member' }),
    badOptions: { id: 'a/b' },
    start: true,
    events: [onStart('change')],
    waits: [startStalled],
    held: async ({ subject }) => {
      await call(subject, 'start');
      return subject.memberPath as string;
    },
  },
  ServiceCache: {
    kind: 'long-lived',
    entry: 'zookeeper-ts/recipes',
    options: () => ({ name: 'svc' }),
    badOptions: { name: 'a/b' },
    start: true,
    events: [onStart('change')],
    waits: [startStalled],
  },
  ServiceProvider: {
    kind: 'long-lived',
    entry: 'zookeeper-ts/recipes',
    options: () => ({ name: 'svc' }),
    badOptions: { name: 'svc', strategy: 'fastest' },
    start: true,
    events: [onStart('change')],
    waits: [startStalled],
  },
  TreeCache: {
    kind: 'long-lived',
    entry: 'zookeeper-ts/recipes',
    options: () => ({}),
    badOptions: { maxDepth: -1 },
    start: true,
    events: [onStart('initialized')],
    waits: [
      startStalled,
      {
        name: 'sync',
        block: async ({ control, subject }) => {
          await call(subject, 'start');
          control.stall();
        },
        call: (subject, bounds) => call(subject, 'sync', bounds),
      },
    ],
  },
  SharedCount: {
    kind: 'long-lived',
    entry: 'zookeeper-ts/recipes',
    options: () => ({ seed: 0 }),
    badOptions: { seed: 0.5 },
    start: true,
    events: [
      {
        name: 'change',
        trigger: async ({ subject, env, path }) => {
          await call(subject, 'start');
          await env.other.setData(path, recipeExports.encodeCount(7));
        },
      },
    ],
    waits: [startStalled],
  },
  SharedValue: {
    kind: 'long-lived',
    entry: 'zookeeper-ts/recipes',
    options: () => ({ seed: new TextEncoder().encode('seed') }),
    badOptions: { seed: 'not bytes' },
    start: true,
    events: [
      {
        name: 'change',
        trigger: async ({ subject, env, path }) => {
          await call(subject, 'start');
          await env.other.setData(path, 'changed');
        },
      },
    ],
    waits: [startStalled],
  },
  DistributedDoubleBarrier: {
    kind: 'long-lived',
    entry: 'zookeeper-ts/recipes',
    options: () => ({ memberQty: 2 }),
    badOptions: { memberQty: 0 },
    start: false,
    events: [],
    waits: [
      // Alone, one member of two never gets in.
      { name: 'enter', block: async () => {}, call: (s, bounds) => call(s, 'enter', bounds) },
      {
        // Both in; the other member never leaves.
        name: 'leave',
        block: async (ctx) => {
          await bothEnter(ctx);
        },
        call: (s, bounds) => call(s, 'leave', bounds),
      },
    ],
    held: async (ctx) => {
      await bothEnter(ctx);
      return ctx.subject.memberPath as string;
    },
  },
  DistributedQueue: {
    kind: 'long-lived',
    entry: 'zookeeper-ts/recipes',
    options: () => ({ layout: 'kazoo' }),
    badOptions: { layout: 'java' },
    start: false,
    events: [],
    // Nothing in the queue: a take waits.
    waits: [{ name: 'take', block: async () => {}, call: (s, bounds) => call(s, 'take', bounds) }],
  },
  LockingQueue: {
    kind: 'long-lived',
    entry: 'zookeeper-ts/recipes',
    options: () => ({ id: 'subject' }),
    badOptions: { id: '' },
    start: false,
    events: [],
    waits: [{ name: 'take', block: async () => {}, call: (s, bounds) => call(s, 'take', bounds) }],
    // An entry taken and not consumed: closing gives it back (its lock node goes).
    held: async ({ subject }) => {
      await call(subject, 'put', 'item');
      const entry = (await call(subject, 'take')) as Loose;
      return entry.lockPath as string;
    },
  },
  SetPartitioner: {
    kind: 'long-lived',
    entry: 'zookeeper-ts/recipes',
    options: () => ({ items: ['a'], id: 'subject', settleTime: 0 }),
    badOptions: { items: ['a/b'] },
    start: true,
    events: [onStart('state')],
    waits: [
      startStalled,
      // Never started: no share is ever acquired.
      {
        name: 'acquired',
        block: async () => {},
        call: (s, bounds) => call(s, 'acquired', bounds),
      },
    ],
    // Its lock on the one item: closing gives it back.
    held: async ({ subject, env, path }) => {
      await call(subject, 'start');
      await call(subject, 'acquired');
      const [lock] = await env.other.getChildren(`${path}/locks/a`);
      return `${path}/locks/a/${lock}`;
    },
  },
  DistributedBarrier: {
    kind: 'single-operation',
    entry: 'zookeeper-ts/recipes',
    options: () => ({}),
    waits: [
      {
        name: 'wait',
        block: async (ctx) => {
          const raised = contract('DistributedBarrier', ctx.env.other, ctx.path);
          await call(raised, 'raise');
          ctx.defer(() => call(raised, 'lower'));
        },
        call: (subject, bounds) => call(subject, 'wait', bounds),
      },
    ],
  },
  DistributedAtomicLong: {
    kind: 'single-operation',
    entry: 'zookeeper-ts/recipes',
    options: () => ({}),
    badOptions: { retry: { maxAttempts: 0 } },
    // Every operation on a server that stopped answering (the promoted path: its unit test).
    waits: (
      [
        ['get', []],
        ['increment', []],
        ['add', [2]],
        ['trySet', [3]],
        ['compareAndSet', [0, 1]],
        ['forceSet', [4]],
      ] as const
    ).map(([name, args]) => ({
      name,
      block: async ({ control }: Ctx) => control.stall(),
      call: (subject: Loose, bounds: Bounds) => call(subject, name, ...args, bounds),
    })),
  },
  TimeLease: {
    kind: 'single-operation',
    entry: 'zookeeper-ts/recipes',
    options: () => ({ duration: 60_000, id: 'subject' }),
    badOptions: { duration: -1 },
    waits: [
      {
        // The short mutex a look-and-write holds (kazoo's lease lock), held by the other session.
        name: 'obtain',
        block: (ctx) =>
          holdOther(ctx, contract('Mutex', ctx.env.other, ctx.path, { naming: 'kazoo' })),
        call: (subject, bounds) => call(subject, 'obtain', bounds),
      },
    ],
  },
  Mutex: lockLike('zookeeper-ts/locks', 'Mutex', {}, { naming: 'java' }),
  ExclusiveLock: lockLike('zookeeper-ts/locks', 'ExclusiveLock', {}, { lossPolicy: 'never' }),
  Semaphore: lockLike('zookeeper-ts/locks', 'Semaphore', { maxLeases: 1 }, { maxLeases: 0 }),
  SemaphoreMutex: lockLike('zookeeper-ts/locks', 'SemaphoreMutex', {}, { lossPolicy: 'never' }),
  ReadWriteLock: {
    kind: 'single-operation',
    entry: 'zookeeper-ts/locks',
    options: () => ({}),
    badOptions: { lossPolicy: 'never' },
    waits: [
      {
        name: 'write.acquire',
        block: (ctx) => holdOther(ctx, contract('ReadWriteLock', ctx.env.other, ctx.path), 'read'),
        call: (subject, bounds) => call(subject.write as Loose, 'acquire', bounds),
      },
      {
        name: 'read.acquire',
        block: (ctx) => holdOther(ctx, contract('ReadWriteLock', ctx.env.other, ctx.path), 'write'),
        call: (subject, bounds) => call(subject.read as Loose, 'acquire', bounds),
      },
    ],
    hold: (ctx) => leaseOf(ctx, ctx.subject.write as Loose),
  },
  ReadWriteSide: {
    kind: 'single-operation',
    entry: 'zookeeper-ts/locks',
    options: () => ({}),
    madeOtherwise: {
      why: 'one side of a ReadWriteLock, made by it: lock.read and lock.write',
      build: (client, path) => contract('ReadWriteLock', client, path).write as Loose,
      refused: (client) => contract('ReadWriteLock', client, 'relative'),
    },
    waits: [
      {
        name: 'acquire',
        block: (ctx) => holdOther(ctx, contract('ReadWriteLock', ctx.env.other, ctx.path), 'read'),
        call: (subject, bounds) => call(subject, 'acquire', bounds),
      },
    ],
    hold: (ctx) => leaseOf(ctx),
  },
  MultiLock: {
    kind: 'single-operation',
    entry: 'zookeeper-ts/locks',
    options: () => ({}),
    madeOtherwise: {
      why: 'takes the locks it combines, each made the contract way: new MultiLock([a, b])',
      build: (client, path) =>
        new lockExports.MultiLock([
          contract('Mutex', client, `${path}/a`) as unknown as lockExports.Mutex,
          contract('Mutex', client, `${path}/b`) as unknown as lockExports.Mutex,
        ]),
      refused: () => new lockExports.MultiLock([]),
    },
    waits: [
      {
        name: 'acquire',
        block: (ctx) => holdOther(ctx, contract('Mutex', ctx.env.other, `${ctx.path}/b`)),
        call: (subject, bounds) => call(subject, 'acquire', bounds),
      },
    ],
    hold: async (ctx) => {
      const lease = (await call(ctx.subject, 'acquire')) as Loose & AsyncDisposable;
      const leases = lease.leases as { path: string }[];
      return { held: lease, nodes: leases.map((each) => each.path) };
    },
  },
};

/** Two members of a two-member double barrier enter: the subject and one of the other session. */
async function bothEnter(ctx: Ctx): Promise<void> {
  const member = contract('DistributedDoubleBarrier', ctx.env.other, ctx.path, { memberQty: 2 });
  ctx.defer(() => call(member, 'close'));
  await Promise.all([call(member, 'enter'), call(ctx.subject, 'enter')]);
}
