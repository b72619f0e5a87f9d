/**
 * Numeric constants of the protocol (ZooDefs.OpCode, special xids, CreateMode,
 * Watcher.Event.EventType, WatcherType, AddWatchMode, Perms). Each lives in one table;
 * code elsewhere names the entry rather than repeating the number.
 */

/** ZooDefs.OpCode: the `type` of a RequestHeader. */
export const OpCode = {
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
} as const;

export type OpName = keyof typeof OpCode;

const opNamesByCode = new Map<number, OpName>(
  (Object.entries(OpCode) as [OpName, number][]).map(([name, code]) => [code, name]),
);

/** The op name for a code, or undefined when the code is not in the table. */
export function opName(code: number): OpName | undefined {
  return opNamesByCode.get(code);
}

/**
 * Reserved xids; normal requests use 1..2^31-1. We send SetWatches with -8 so its
 * reply is known by xid (the server echoes any xid); the 3.8 Java NIO client was
 * captured using an ordinary xid instead. See docs/protocol.md.
 */
export const Xid = {
  notification: -1,
  ping: -2,
  auth: -4,
  setWatches: -8,
} as const;

/** CreateMode flags: enumerated values, not a bit set. */
export const CreateFlag = {
  /** A regular node; stays until deleted. */
  PERSISTENT: 0,
  /** Deleted when the session that created it ends. */
  EPHEMERAL: 1,
  /** Persistent, with a 10-digit increasing counter appended to the name. */
  PERSISTENT_SEQUENTIAL: 2,
  /** Ephemeral, with a 10-digit increasing counter appended to the name. */
  EPHEMERAL_SEQUENTIAL: 3,
  /** Deleted by the server some time after its last child is gone (ZooKeeper 3.5.3+). */
  CONTAINER: 4,
  /** Persistent; deleted once unmodified and childless for `ttl` ms (the server needs `extendedTypesEnabled`). */
  PERSISTENT_WITH_TTL: 5,
  /** Sequential, with a `ttl` as in PERSISTENT_WITH_TTL. */
  PERSISTENT_SEQUENTIAL_WITH_TTL: 6,
} as const;

export type CreateFlagName = keyof typeof CreateFlag;

/** Watcher.Event.EventType. Values 5..7 are raised client-side only. */
export const EventTypeCode = {
  None: -1,
  NodeCreated: 1,
  NodeDeleted: 2,
  NodeDataChanged: 3,
  NodeChildrenChanged: 4,
  DataWatchRemoved: 5,
  ChildWatchRemoved: 6,
  PersistentWatchRemoved: 7,
} as const;

export type EventTypeName = keyof typeof EventTypeCode;

/** Watcher.WatcherType, the `type` of checkWatches/removeWatches. 4 and 5 need a 3.9 server. */
export const WatcherTypeCode = {
  Children: 1,
  Data: 2,
  Any: 3,
  Persistent: 4,
  PersistentRecursive: 5,
} as const;

export type WatcherTypeName = keyof typeof WatcherTypeCode;

/** ZooDefs.AddWatchModes, the `mode` of addWatch. */
export const AddWatchModeCode = {
  PERSISTENT: 0,
  PERSISTENT_RECURSIVE: 1,
} as const;

export type AddWatchModeName = keyof typeof AddWatchModeCode;

/** ZooDefs.Perms: ACL permission bits. */
export const Perms = {
  /** Read the node's data and list its children. */
  READ: 1,
  /** Set the node's data. */
  WRITE: 2,
  /** Create children. */
  CREATE: 4,
  /** Delete children. */
  DELETE: 8,
  /** Set the node's ACL. */
  ADMIN: 16,
  /** Every permission above. */
  ALL: 31,
} as const;
