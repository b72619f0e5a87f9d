import { describe, expect, it } from 'vitest';
import { type Codec, codecs } from '../../../src/protocol/codecs.js';
import {
  AddWatchModeCode,
  CreateFlag,
  EventTypeCode,
  OpCode,
  type OpName,
  opName,
  Perms,
  WatcherTypeCode,
  Xid,
} from '../../../src/protocol/ops.js';
import { Reader } from '../../../src/protocol/reader.js';
import { Writer } from '../../../src/protocol/writer.js';

// Ops that are never sent by a client (or are not requests at all).
const notClientOps = new Set<OpName>(['notification', 'error', 'createSession', 'deleteContainer']);

describe('opcode table', () => {
  it('has the ZooDefs.OpCode values from the reference', () => {
    expect(OpCode).toEqual({
      notification: 0,
      create: 1,
      delete: 2,
      exists: 3,
      getData: 4,
      setData: 5,
      getACL: 6,
      setACL: 7,
      getChildren: 8,
      sync: 9,
      ping: 11,
      getChildren2: 12,
      check: 13,
      multi: 14,
      create2: 15,
      reconfig: 16,
      checkWatches: 17,
      removeWatches: 18,
      createContainer: 19,
      deleteContainer: 20,
      createTTL: 21,
      multiRead: 22,
      auth: 100,
      setWatches: 101,
      sasl: 102,
      getEphemerals: 103,
      getAllChildrenNumber: 104,
      setWatches2: 105,
      addWatch: 106,
      whoAmI: 107,
      createSession: -10,
      closeSession: -11,
      error: -1,
    });
    expect(new Set(Object.values(OpCode)).size).toBe(Object.keys(OpCode).length);
    expect(opName(14)).toBe('multi');
    expect(opName(999)).toBeUndefined();
  });

  it('gives every client opcode a request and response codec with the matching code', () => {
    const table = codecs as unknown as Record<string, Codec<unknown, unknown>>;
    const clientOps = (Object.keys(OpCode) as OpName[]).filter((n) => !notClientOps.has(n));
    expect(clientOps.length).toBe(29);
    for (const name of clientOps) {
      const codec = table[name];
      expect(codec, `codec for ${name}`).toBeDefined();
      expect(codec?.code, name).toBe(OpCode[name]);
      expect(codec?.name).toBe(name);
      expect(typeof codec?.write).toBe('function');
      expect(typeof codec?.read).toBe('function');
    }
    // ...and the table holds nothing else.
    expect(Object.keys(codecs).sort()).toEqual([...clientOps].sort());
  });

  it('lets header-only ops write nothing and read nothing', () => {
    for (const codec of [codecs.ping, codecs.closeSession, codecs.whoAmI] as Codec<
      undefined,
      unknown
    >[]) {
      const w = new Writer();
      codec.write(w, undefined);
      expect(w.length).toBe(0);
    }
    expect(codecs.ping.read(new Reader(new Uint8Array(0)))).toBeUndefined();
    expect(codecs.delete.read(new Reader(new Uint8Array(0)))).toBeUndefined();
    expect(codecs.check.read(new Reader(new Uint8Array(0)))).toBeUndefined();
  });
});

describe('other constant tables', () => {
  it('match the reference', () => {
    expect(Xid).toEqual({ notification: -1, ping: -2, auth: -4, setWatches: -8 });
    expect(CreateFlag).toEqual({
      PERSISTENT: 0,
      EPHEMERAL: 1,
      PERSISTENT_SEQUENTIAL: 2,
      EPHEMERAL_SEQUENTIAL: 3,
      CONTAINER: 4,
      PERSISTENT_WITH_TTL: 5,
      PERSISTENT_SEQUENTIAL_WITH_TTL: 6,
    });
    expect(EventTypeCode).toEqual({
      None: -1,
      NodeCreated: 1,
      NodeDeleted: 2,
      NodeDataChanged: 3,
      NodeChildrenChanged: 4,
      DataWatchRemoved: 5,
      ChildWatchRemoved: 6,
      PersistentWatchRemoved: 7,
    });
    expect(WatcherTypeCode).toEqual({
      Children: 1,
      Data: 2,
      Any: 3,
      Persistent: 4,
      PersistentRecursive: 5,
    });
    expect(AddWatchModeCode).toEqual({ PERSISTENT: 0, PERSISTENT_RECURSIVE: 1 });
    expect(Perms).toEqual({ READ: 1, WRITE: 2, CREATE: 4, DELETE: 8, ADMIN: 16, ALL: 31 });
    expect(Perms.READ | Perms.WRITE | Perms.CREATE | Perms.DELETE | Perms.ADMIN).toBe(Perms.ALL);
  });
});
