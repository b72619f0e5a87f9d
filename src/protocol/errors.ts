// The ZooKeeper error-code table (KeeperException.Code) and the error classes
// built from it. One table: names, numbers and classes all derive from it.

/**
 * ZooKeeper's error codes (Java's `KeeperException.Code`): name to number. A
 * {@link ZooKeeperError} carries both, as `code` (the name) and `errno` (the number).
 */
export const ErrorCode = {
  /** Success; never raised. */
  OK: 0,
  /** Range marker only; the server does not send it. */
  SYSTEMERROR: -1,
  /** A runtime inconsistency was found. */
  RUNTIMEINCONSISTENCY: -2,
  /** A data inconsistency was found. */
  DATAINCONSISTENCY: -3,
  /** Raised client-side when the connection drops with requests outstanding. */
  CONNECTIONLOSS: -4,
  /** Bytes could not be encoded or decoded (see {@link ProtocolError}). */
  MARSHALLINGERROR: -5,
  /** The server does not implement the operation. */
  UNIMPLEMENTED: -6,
  /** The operation timed out on the server. */
  OPERATIONTIMEOUT: -7,
  /** Invalid arguments: raised client-side for bad input before anything is sent, or by the server. */
  BADARGUMENTS: -8,
  /** Server-internal. */
  UNKNOWNSESSION: -12,
  /** reconfig: no quorum of the new configuration is connected and up to date with the leader. */
  NEWCONFIGNOQUORUM: -13,
  /** reconfig: another reconfiguration is in progress. */
  RECONFIGINPROGRESS: -14,
  /** Range marker only. */
  APIERROR: -100,
  /** The node does not exist. */
  NONODE: -101,
  /** The session is not authorized for the operation (ACL). */
  NOAUTH: -102,
  /** The expected version does not match the node's. */
  BADVERSION: -103,
  /** Ephemeral nodes may not have children. */
  NOCHILDRENFOREPHEMERALS: -108,
  /** The node already exists. */
  NODEEXISTS: -110,
  /** The node has children. */
  NOTEMPTY: -111,
  /** The session expired: its ephemeral nodes and watches are gone; connect again. */
  SESSIONEXPIRED: -112,
  /** Invalid callback (Java client only). */
  INVALIDCALLBACK: -113,
  /** The ACL is invalid (empty, or an unknown scheme or id). */
  INVALIDACL: -114,
  /** Authentication failed; the session is over. */
  AUTHFAILED: -115,
  /** The session moved to another server. */
  SESSIONMOVED: -118,
  /** A write was sent to a read-only server. */
  NOTREADONLY: -119,
  /** An ephemeral node cannot be created on a local session. */
  EPHEMERALONLOCALSESSION: -120,
  /** removeWatches found no such watcher. */
  NOWATCHER: -121,
  /** Raised client-side when a request outlives its timeout. */
  REQUESTTIMEOUT: -122,
  /** reconfig is disabled on the server. */
  RECONFIGDISABLED: -123,
  /** The server closed the session because the client did not authenticate with SASL. */
  SESSIONCLOSEDREQUIRESASLAUTH: -124,
  /** The node's quota was exceeded (hard quota). */
  QUOTAEXCEEDED: -125,
  /** The server is shedding load: retry with backoff. */
  THROTTLEDOP: -127,
} as const;

/** The name of an error code, as in {@link ZooKeeperError.code} (`'NONODE'`, `'BADVERSION'`, ...). */
export type ErrorCodeName = keyof typeof ErrorCode;

const namesByNumber = new Map<number, ErrorCodeName>(
  (Object.entries(ErrorCode) as [ErrorCodeName, number][]).map(([name, errno]) => [errno, name]),
);

/** Human descriptions, close to KeeperException.getCodeMessage. */
const descriptions: Record<ErrorCodeName, string> = {
  OK: 'ok',
  SYSTEMERROR: 'system error',
  RUNTIMEINCONSISTENCY: 'runtime inconsistency',
  DATAINCONSISTENCY: 'data inconsistency',
  CONNECTIONLOSS: 'connection loss',
  MARSHALLINGERROR: 'error marshalling data',
  UNIMPLEMENTED: 'unimplemented',
  OPERATIONTIMEOUT: 'operation timeout',
  BADARGUMENTS: 'bad arguments',
  UNKNOWNSESSION: 'unknown session',
  NEWCONFIGNOQUORUM: 'no quorum of new config is connected and up-to-date with the leader',
  RECONFIGINPROGRESS: 'another reconfiguration is in progress',
  APIERROR: 'API error',
  NONODE: 'no node',
  NOAUTH: 'not authenticated',
  BADVERSION: 'bad version',
  NOCHILDRENFOREPHEMERALS: 'ephemeral nodes may not have children',
  NODEEXISTS: 'node exists',
  NOTEMPTY: 'directory not empty',
  SESSIONEXPIRED: 'session expired',
  INVALIDCALLBACK: 'invalid callback',
  INVALIDACL: 'invalid ACL',
  AUTHFAILED: 'authentication failed',
  SESSIONMOVED: 'session moved',
  NOTREADONLY: 'not a read-only call',
  EPHEMERALONLOCALSESSION: 'ephemeral node on local session',
  NOWATCHER: 'no watcher',
  REQUESTTIMEOUT: 'request timeout',
  RECONFIGDISABLED: 'reconfig is disabled',
  SESSIONCLOSEDREQUIRESASLAUTH: 'session closed because client failed to authenticate',
  QUOTAEXCEEDED: 'quota has exceeded',
  THROTTLEDOP: 'op throttled due to high load',
};

/** The Java name of a code (`NONODE`), or `UNKNOWN(<n>)` for a code not in the table. */
export function errorCodeName(errno: number): string {
  return namesByNumber.get(errno) ?? `UNKNOWN(${errno})`;
}

function isKnownName(code: string): code is ErrorCodeName {
  return Object.hasOwn(ErrorCode, code);
}

function parseUnknown(code: string): number | undefined {
  const m = /^UNKNOWN\((-?\d+)\)$/.exec(code);
  return m ? Number(m[1]) : undefined;
}

/** What an error knows beyond its code and message. */
export interface ErrorDetails {
  /** The numeric code; derived from the code name when left out. */
  errno?: number;
  /** The path of the failed operation, as the caller gave it. */
  path?: string;
  /** The failed operation (`'create'`, `'getData'`, ...). */
  op?: string;
  /** The underlying error, as the standard `Error.cause`. */
  cause?: unknown;
}

/** Every error raised by the client: carries the Java code name, its number, and the path/op. */
export class ZooKeeperError extends Error {
  /** The class name, for logs. */
  override name = 'ZooKeeperError';
  /** The Java code name (`'NONODE'`; see {@link ErrorCode}), or `UNKNOWN(<n>)` for a number not in the table. */
  readonly code: string;
  /** The numeric code ({@link ErrorCode}). */
  readonly errno: number;
  /** The path of the failed operation, when it had one. */
  readonly path?: string;
  /** The failed operation (`'create'`, `'getData'`, ...), when known. */
  readonly op?: string;
  /** For a failed multi: the per-op results (set by the session layer). */
  results?: readonly unknown[];

  constructor(code: string, message: string, details: ErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.errno =
      details.errno ??
      (isKnownName(code) ? ErrorCode[code] : (parseUnknown(code) ?? ErrorCode.SYSTEMERROR));
    if (details.path !== undefined) this.path = details.path;
    if (details.op !== undefined) this.op = details.op;
  }
}

/** Malformed bytes from the wire (short read, bad length, bad count). */
export class ProtocolError extends ZooKeeperError {
  /** The class name, for logs. */
  override name = 'ProtocolError';

  constructor(message: string, details: Omit<ErrorDetails, 'errno'> = {}) {
    super('MARSHALLINGERROR', message, { ...details, errno: ErrorCode.MARSHALLINGERROR });
  }
}

function describe(code: string, errno: number, path?: string, op?: string): string {
  const base = isKnownName(code) ? descriptions[code] : `unknown error code ${errno}`;
  let text = `${code}: ${base}`;
  if (path !== undefined) text += ` at ${path}`;
  if (op !== undefined) text += ` (${op})`;
  return text;
}

type ErrorClass = new (message: string, details?: Omit<ErrorDetails, 'errno'>) => ZooKeeperError;

/**
 * One subclass per server code (kazoo style), generated from the table, so callers
 * can write `err instanceof NoNodeError` as well as `err.code === 'NONODE'`.
 * The class names are the PascalCase of the code (NONODE -> NoNodeError).
 */
function makeClass(code: ErrorCodeName, className: string): ErrorClass {
  const cls = class extends ZooKeeperError {
    constructor(message: string, details: Omit<ErrorDetails, 'errno'> = {}) {
      super(code, message, { ...details, errno: ErrorCode[code] });
      this.name = className;
    }
  };
  Object.defineProperty(cls, 'name', { value: className });
  return cls;
}

export const SystemError = makeClass('SYSTEMERROR', 'SystemError');
export const RuntimeInconsistencyError = makeClass(
  'RUNTIMEINCONSISTENCY',
  'RuntimeInconsistencyError',
);
export const DataInconsistencyError = makeClass('DATAINCONSISTENCY', 'DataInconsistencyError');
export const ConnectionLossError = makeClass('CONNECTIONLOSS', 'ConnectionLossError');
export const MarshallingError = makeClass('MARSHALLINGERROR', 'MarshallingError');
export const UnimplementedError = makeClass('UNIMPLEMENTED', 'UnimplementedError');
export const OperationTimeoutError = makeClass('OPERATIONTIMEOUT', 'OperationTimeoutError');
export const BadArgumentsError = makeClass('BADARGUMENTS', 'BadArgumentsError');
export const UnknownSessionError = makeClass('UNKNOWNSESSION', 'UnknownSessionError');
export const NewConfigNoQuorumError = makeClass('NEWCONFIGNOQUORUM', 'NewConfigNoQuorumError');
export const ReconfigInProgressError = makeClass('RECONFIGINPROGRESS', 'ReconfigInProgressError');
export const ApiError = makeClass('APIERROR', 'ApiError');
export const NoNodeError = makeClass('NONODE', 'NoNodeError');
export const NoAuthError = makeClass('NOAUTH', 'NoAuthError');
export const BadVersionError = makeClass('BADVERSION', 'BadVersionError');
export const NoChildrenForEphemeralsError = makeClass(
  'NOCHILDRENFOREPHEMERALS',
  'NoChildrenForEphemeralsError',
);
export const NodeExistsError = makeClass('NODEEXISTS', 'NodeExistsError');
export const NotEmptyError = makeClass('NOTEMPTY', 'NotEmptyError');
export const SessionExpiredError = makeClass('SESSIONEXPIRED', 'SessionExpiredError');
export const InvalidCallbackError = makeClass('INVALIDCALLBACK', 'InvalidCallbackError');
export const InvalidACLError = makeClass('INVALIDACL', 'InvalidACLError');
export const AuthFailedError = makeClass('AUTHFAILED', 'AuthFailedError');
export const SessionMovedError = makeClass('SESSIONMOVED', 'SessionMovedError');
export const NotReadOnlyError = makeClass('NOTREADONLY', 'NotReadOnlyError');
export const EphemeralOnLocalSessionError = makeClass(
  'EPHEMERALONLOCALSESSION',
  'EphemeralOnLocalSessionError',
);
export const NoWatcherError = makeClass('NOWATCHER', 'NoWatcherError');
export const RequestTimeoutError = makeClass('REQUESTTIMEOUT', 'RequestTimeoutError');
export const ReconfigDisabledError = makeClass('RECONFIGDISABLED', 'ReconfigDisabledError');
export const SessionClosedRequireSaslAuthError = makeClass(
  'SESSIONCLOSEDREQUIRESASLAUTH',
  'SessionClosedRequireSaslAuthError',
);
export const QuotaExceededError = makeClass('QUOTAEXCEEDED', 'QuotaExceededError');
export const ThrottledOpError = makeClass('THROTTLEDOP', 'ThrottledOpError');

/** Every non-OK code maps to its class; the test checks the table is complete. */
export const errorClasses: Readonly<Record<Exclude<ErrorCodeName, 'OK'>, ErrorClass>> = {
  SYSTEMERROR: SystemError,
  RUNTIMEINCONSISTENCY: RuntimeInconsistencyError,
  DATAINCONSISTENCY: DataInconsistencyError,
  CONNECTIONLOSS: ConnectionLossError,
  MARSHALLINGERROR: MarshallingError,
  UNIMPLEMENTED: UnimplementedError,
  OPERATIONTIMEOUT: OperationTimeoutError,
  BADARGUMENTS: BadArgumentsError,
  UNKNOWNSESSION: UnknownSessionError,
  NEWCONFIGNOQUORUM: NewConfigNoQuorumError,
  RECONFIGINPROGRESS: ReconfigInProgressError,
  APIERROR: ApiError,
  NONODE: NoNodeError,
  NOAUTH: NoAuthError,
  BADVERSION: BadVersionError,
  NOCHILDRENFOREPHEMERALS: NoChildrenForEphemeralsError,
  NODEEXISTS: NodeExistsError,
  NOTEMPTY: NotEmptyError,
  SESSIONEXPIRED: SessionExpiredError,
  INVALIDCALLBACK: InvalidCallbackError,
  INVALIDACL: InvalidACLError,
  AUTHFAILED: AuthFailedError,
  SESSIONMOVED: SessionMovedError,
  NOTREADONLY: NotReadOnlyError,
  EPHEMERALONLOCALSESSION: EphemeralOnLocalSessionError,
  NOWATCHER: NoWatcherError,
  REQUESTTIMEOUT: RequestTimeoutError,
  RECONFIGDISABLED: ReconfigDisabledError,
  SESSIONCLOSEDREQUIRESASLAUTH: SessionClosedRequireSaslAuthError,
  QUOTAEXCEEDED: QuotaExceededError,
  THROTTLEDOP: ThrottledOpError,
};

/**
 * The error for a server code, e.g. `NONODE: no node at /a/b (getData)`.
 * Known codes give their subclass; unknown codes keep the raw number (`UNKNOWN(-999)`).
 */
export function errorFromCode(
  errno: number,
  details: { path?: string; op?: string; cause?: unknown } = {},
): ZooKeeperError {
  const code = errorCodeName(errno);
  const message = describe(code, errno, details.path, details.op);
  if (isKnownName(code) && code !== 'OK') {
    return new errorClasses[code](message, details);
  }
  return new ZooKeeperError(code, message, { ...details, errno });
}
