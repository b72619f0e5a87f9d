// zookeeper-ts: the client entry point.
export { Client, connect } from './session/client.js';
export type { CallOptions, ReconfigOptions } from './session/client.js';
export { Op } from './session/multi.js';
export type { OpResult, ReadOp } from './session/multi.js';
export { CreateMode, Ids, Perms } from './session/types.js';
export type {
  ACL,
  AuthInfo,
  ClientInfo,
  ConnectOptions,
  CreateOptions,
  Data,
  EventType,
  Id,
  PersistentWatchOptions,
  RemoveWatchesOptions,
  SessionState,
  Stat,
  TlsOptions,
  WatchOptions,
  WatchedEvent,
  Watcher,
  WatcherKind,
} from './session/types.js';
export type { Connection, Transport, TransportConnectOptions } from './session/transport.js';
export { ZooKeeperError, ProtocolError, ErrorCode } from './protocol/errors.js';
export type { ErrorCodeName } from './protocol/errors.js';
