/**
 * The ZooKeeper error-code table (KeeperException.Code) and the error classes
 * built from it. One table: names, numbers and classes all derive from it.
 */

export const ErrorCode = {
  OK: 0,
  /** Range marker only; the server does not send it. */
  SYSTEMERROR: -1,
  RUNTIMEINCONSISTENCY: -2,
  DATAINCONSISTENCY: -3,
  /** Raised client-side when the connection drops with requests outstanding. */
  CONNECTIONLOSS: -4,
  MARSHALLINGERROR: -5,
  UNIMPLEMENTED: -6,
  OPERATIONTIMEOUT: -7,
  BADARGUMENTS: -8,
  /** Server-internal. */
  UNKNOWNSESSION: -12,
  NEWCONFIGNOQUORUM: -13,
  RECONFIGINPROGRESS: -14,
  /** Range marker only. */
  APIERROR: -100,
  NONODE: -101,
  NOAUTH: -102,
  BADVERSION: -103,
  NOCHILDRENFOREPHEMERALS: -108,
  NODEEXISTS: -110,
  NOTEMPTY: -111,
  SESSIONEXPIRED: -112,
  INVALIDCALLBACK: -113,
  INVALIDACL: -114,
  AUTHFAILED: -115,
  SESSIONMOVED: -118,
  NOTREADONLY: -119,
  EPHEMERALONLOCALSESSION: -120,
  NOWATCHER: -121,
  /** Raised client-side when a request outlives its timeout. */
  REQUESTTIMEOUT: -122,
  RECONFIGDISABLED: -123,
  SESSIONCLOSEDREQUIRESASLAUTH: -124,
  QUOTAEXCEEDED: -125,
  /** The server is shedding load: retry with backoff. */
  THROTTLEDOP: -127,
} as const;

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

export interface ErrorDetails {
  errno?: number;
  path?: string;
  op?: string;
  cause?: unknown;
}

/** Every error raised by the client: carries the Java code name, its number, and the path/op. */
export class ZooKeeperError extends Error {
  override name = 'ZooKeeperError';
  readonly code: string;
  readonly errno: number;
  readonly path?: string;
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
