/**
 * The client: {@link connect} opens a session, {@link Client} runs ZooKeeper's operations on it.
 * @module zookeeper-ts
 */

export { Client, connect } from './client/client.js';
export type { ErrorEvents, Unsubscribe } from './client/listeners.js';
export { ListenerError } from './client/listeners.js';
export type { OpResult, ReadOp } from './client/multi.js';
export { Op } from './client/multi.js';
export type { PersistentWatchIterator } from './client/persistent-watch.js';
export type { RecipeClient } from './client/recipe-client.js';
export type {
  ACL,
  AuthInfo,
  CallOptions,
  ClientEvents,
  ClientInfo,
  ConnectOptions,
  CreateOptions,
  Data,
  EventType,
  Id,
  PersistentWatchOptions,
  ReconfigOptions,
  RemoveWatchesOptions,
  ResyncCause,
  ServerVersion,
  ServerVersionOptions,
  SessionRenewal,
  SessionState,
  Stat,
  StateChange,
  TlsOptions,
  WatchedEvent,
  Watcher,
  WatcherKind,
  WatchOptions,
} from './client/types.js';
export { CreateMode, Ids, Perms } from './client/types.js';
export type {
  ClientErrorCodeName,
  ClientErrorDetails,
  ErrorClass,
  ErrorCodeName,
  ErrorDetails,
  ZooKeeperErrorCode,
} from './protocol/errors.js';
export {
  ApiError,
  AuthFailedError,
  BadArgumentsError,
  BadVersionError,
  ClientClosedError,
  ClientErrorCode,
  ClosedError,
  ConnectionLossError,
  DataInconsistencyError,
  EphemeralOnLocalSessionError,
  ErrorCode,
  errorClasses,
  InvalidACLError,
  InvalidArgumentError,
  InvalidCallbackError,
  isRetriable,
  isSessionOver,
  MarshallingError,
  NewConfigNoQuorumError,
  NoAuthError,
  NoChildrenForEphemeralsError,
  NodeExistsError,
  NoNodeError,
  NotEmptyError,
  NotReadOnlyError,
  NoWatcherError,
  OperationTimeoutError,
  ProtocolError,
  QuotaExceededError,
  RETRIABLE_CODES,
  ReconfigDisabledError,
  ReconfigInProgressError,
  RequestTimeoutError,
  RuntimeInconsistencyError,
  SESSION_OVER_CODES,
  SessionClosedRequireSaslAuthError,
  SessionExpiredError,
  SessionMovedError,
  SystemError,
  ThrottledOpError,
  TimeoutError,
  UnimplementedError,
  UnknownSessionError,
  ZooKeeperError,
} from './protocol/errors.js';
export { FrameSizeError } from './protocol/frame.js';
export {
  joinPath,
  nodeName,
  normalizePath,
  parentPath,
  pathProblem,
  splitPath,
  validatePath,
} from './protocol/paths.js';
export type { HostAddress, ParsedConnectString } from './session/hosts.js';
export { parseConnectString } from './session/hosts.js';
export type { SaslMechanism, SaslOptions } from './session/sasl/options.js';
export type { Connection, Transport, TransportConnectOptions } from './session/transport.js';
export * from './telemetry/index.js';
