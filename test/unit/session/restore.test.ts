// Restoring a session's state on a new connection (src/session/restore.ts): the credentials and
// the watches go out first, in batches the server accepts, in the record that keeps persistent
// watches when there are any; and the connection is announced only once every batch is answered
// on the connection that is still the session's.
import { describe, expect, it } from 'vitest';
import { codecs } from '../../../src/protocol/codecs.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { OpCode, Xid } from '../../../src/protocol/ops.js';
import { Reader } from '../../../src/protocol/reader.js';
import type { Outbox } from '../../../src/session/outbox.js';
import type { AuthEntry, Outbound } from '../../../src/session/requests.js';
import {
  type OpenRoute,
  openForRequests,
  SET_WATCHES_MAX_LENGTH,
  setWatchBatches,
  setWatchFrames,
} from '../../../src/session/restore.js';
import type { Connection } from '../../../src/session/transport.js';
import { type WatchPaths, WatchRegistry } from '../../../src/session/watches.js';

const none: WatchPaths = {
  data: [],
  exist: [],
  child: [],
  persistent: [],
  persistentRecursive: [],
};

/** A path of exactly `length` characters. */
function pathOf(length: number, mark: string): string {
  return `/${mark}${'x'.repeat(length - 1 - mark.length)}`;
}

/** The frame's xid and opcode (after its length prefix). */
function header(frame: Uint8Array): { xid: number; op: number } {
  const r = new Reader(frame);
  r.int(); // length
  return { xid: r.int(), op: r.int() };
}

/** The SetWatches2 record in `frame`, as the server reads it. */
function readSetWatches2(frame: Uint8Array) {
  return codecs.setWatches2.request.read(new Reader(frame.subarray(12)));
}

describe('setWatchBatches', () => {
  it('gives no batch for no watches, and one with only the paths given', () => {
    expect(setWatchBatches(none, '/app')).toEqual([]);
    expect(setWatchBatches({ ...none, exist: ['/a'] }, '/app')).toEqual([
      { data: [], exist: ['/app/a'], child: [], persistent: [], persistentRecursive: [] },
    ]);
  });

  it('ends a batch as soon as its paths reach the limit, not one path later', () => {
    // The Java client's limit: 128 K characters of paths per SetWatches packet.
    expect(SET_WATCHES_MAX_LENGTH).toBe(128 * 1024);
    const half = 64 * 1024;
    const [p1, p2, p3] = [pathOf(half, 'a'), pathOf(half, 'b'), pathOf(10, 'c')];
    const batches = setWatchBatches({ ...none, data: [p1, p2], child: [p3] }, '');
    expect(batches).toEqual([
      { ...none, data: [p1, p2] },
      { ...none, child: [p3] },
    ]);
    // One character short of the limit: the third path still fits.
    const short = pathOf(half - 1, 'b');
    expect(setWatchBatches({ ...none, data: [p1, short], child: [p3] }, '')).toEqual([
      { ...none, data: [p1, short], child: [p3] },
    ]);
  });
});

describe('setWatchFrames', () => {
  it('uses SetWatches without persistent watches, and SetWatches2 with either kind of them', () => {
    const plain = setWatchFrames({ ...none, data: ['/d'], child: ['/c'] }, '', 7n);
    expect(plain.map(header)).toEqual([{ xid: Xid.setWatches, op: OpCode.setWatches }]);
    const sent = codecs.setWatches.request.read(new Reader(plain[0]!.subarray(12)));
    expect(sent).toEqual({
      relativeZxid: 7n,
      dataWatches: ['/d'],
      existWatches: [],
      childWatches: ['/c'],
    });

    const persistent = setWatchFrames({ ...none, persistent: ['/p'] }, '/app', 9n);
    expect(persistent.map(header)).toEqual([{ xid: Xid.setWatches, op: OpCode.setWatches2 }]);
    expect(readSetWatches2(persistent[0]!)).toMatchObject({
      relativeZxid: 9n,
      persistentWatches: ['/app/p'],
      persistentRecursiveWatches: [],
    });

    const recursive = setWatchFrames({ ...none, persistentRecursive: ['/r'] }, '', 9n);
    expect(recursive.map(header)).toEqual([{ xid: Xid.setWatches, op: OpCode.setWatches2 }]);
    expect(readSetWatches2(recursive[0]!)).toMatchObject({
      persistentWatches: [],
      persistentRecursiveWatches: ['/r'],
    });
  });
});

/** A session's side of opening a connection, recording what it is told. */
function opening(options: { watches?: WatchRegistry; auth?: AuthEntry[] } = {}) {
  const told: string[] = [];
  const pushed: Outbound[] = [];
  let current = true;
  const connection = {} as Connection;
  const outbox = {
    pushFront(items: readonly Outbound[]) {
      pushed.push(...items);
      told.push('queued');
    },
    attach(c: Connection) {
      expect(c).toBe(connection);
      told.push('attached');
    },
  } as unknown as Outbox;
  const route: OpenRoute = {
    auth: options.auth ?? [],
    watches: options.watches ?? new WatchRegistry(),
    chroot: '',
    outbox,
    lastZxid: () => 42n,
    isCurrent: (c) => current && c === connection,
    announce: (state) => told.push(state),
    resync: () => told.push('resync'),
  };
  return {
    told,
    pushed,
    connection,
    route,
    /** The connection broke: it is no longer the session's. */
    replaced() {
      current = false;
    },
  };
}

/** A registry whose watches take two SetWatches batches. */
function twoBatches(): WatchRegistry {
  const registry = new WatchRegistry();
  const half = SET_WATCHES_MAX_LENGTH / 2;
  for (const mark of ['a', 'b', 'c']) registry.add('data', pathOf(half, mark), () => {});
  return registry;
}

/** Answers the SetWatches item `item` as the server would: OK, or an error code. */
function answer(item: Outbound, err: number = ErrorCode.OK): void {
  if (item.kind !== 'control' || !item.request) throw new Error('not a SetWatches item');
  item.request.onReply?.(err);
  if (err === ErrorCode.OK) item.request.settle(null, undefined);
  else item.request.settle(new Error(`err ${err}`));
}

describe('openForRequests', () => {
  it('without watches: queues the credentials first and announces the connection at once', () => {
    const entry: AuthEntry = { scheme: 'digest', auth: new Uint8Array([1]), waiters: [] };
    const o = opening({ auth: [entry] });
    openForRequests(o.route, o.connection, false);
    expect(o.pushed.map((item) => item.kind)).toEqual(['auth']);
    expect(o.told).toEqual(['queued', 'resync', 'connected', 'attached']);
  });

  it('with watches: announces only once every batch is answered, errors included', () => {
    const entry: AuthEntry = { scheme: 'digest', auth: new Uint8Array([1]), waiters: [] };
    const o = opening({ watches: twoBatches(), auth: [entry] });
    openForRequests(o.route, o.connection, false);
    // The credentials, then the two batches, ahead of anything queued.
    expect(o.pushed.map((item) => item.kind)).toEqual(['auth', 'control', 'control']);
    expect(o.pushed.slice(1).map((item) => header(item.frame).op)).toEqual([
      OpCode.setWatches,
      OpCode.setWatches,
    ]);
    expect(o.told).toEqual(['queued', 'attached']);
    answer(o.pushed[1]!, ErrorCode.NONODE);
    expect(o.told).toEqual(['queued', 'attached']);
    answer(o.pushed[2]!);
    expect(o.told).toEqual(['queued', 'attached', 'resync', 'connected']);
  });

  it('announces a read-only connection as such', () => {
    const o = opening({ watches: twoBatches() });
    openForRequests(o.route, o.connection, true);
    answer(o.pushed[0]!);
    answer(o.pushed[1]!);
    expect(o.told.slice(-2)).toEqual(['resync', 'connected-readonly']);
  });

  it('announces nothing when the last batch is answered on a connection that is no longer the session’s', () => {
    const o = opening({ watches: twoBatches() });
    openForRequests(o.route, o.connection, false);
    answer(o.pushed[0]!);
    o.replaced();
    answer(o.pushed[1]!);
    expect(o.told).toEqual(['queued', 'attached']);
  });
});
