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

/**
 * What `ZooKeeperError.code` holds: a code name from the table, or `UNKNOWN(<n>)` for a number the
 * table does not know (a newer server). A union, so `err.code === 'NONOD'` fails to compile.
 */
export type ZooKeeperErrorCode = ErrorCodeName | `UNKNOWN(${number})`;

const namesByNumber = new Map<number, ErrorCodeName>(
  (Object.entries(ErrorCode) as [ErrorCodeName, number][]).map(([name, errno]) => [errno, name]),
);

interface CodeInfo {
  /** Human description, close to KeeperException.getCodeMessage. */
  readonly text: string;
  /**
   * Transient: the same call may succeed if sent again once the link is back or the load is
   * lower. The session lives on, but a write that failed this way may or may not have been
   * applied (repeat only what is safe to repeat, or check first).
   */
  readonly retriable?: true;
  /** The session is over (or unusable): nothing on it can succeed any more, its ephemerals go. */
  readonly sessionOver?: true;
}

/** The one table of what each code means: its text, and whether it is transient or final. */
const codeInfo: Record<ErrorCodeName, CodeInfo> = {
  OK: { text: 'ok' },
  SYSTEMERROR: { text: 'system error' },
  RUNTIMEINCONSISTENCY: { text: 'runtime inconsistency' },
  DATAINCONSISTENCY: { text: 'data inconsistency' },
  CONNECTIONLOSS: { text: 'connection loss', retriable: true },
  MARSHALLINGERROR: { text: 'error marshalling data' },
  UNIMPLEMENTED: { text: 'unimplemented' },
  OPERATIONTIMEOUT: { text: 'operation timeout', retriable: true },
  BADARGUMENTS: { text: 'bad arguments' },
  UNKNOWNSESSION: { text: 'unknown session' },
  NEWCONFIGNOQUORUM: {
    text: 'no quorum of new config is connected and up-to-date with the leader',
  },
  RECONFIGINPROGRESS: { text: 'another reconfiguration is in progress' },
  APIERROR: { text: 'API error' },
  NONODE: { text: 'no node' },
  NOAUTH: { text: 'not authenticated' },
  BADVERSION: { text: 'bad version' },
  NOCHILDRENFOREPHEMERALS: { text: 'ephemeral nodes may not have children' },
  NODEEXISTS: { text: 'node exists' },
  NOTEMPTY: { text: 'directory not empty' },
  SESSIONEXPIRED: { text: 'session expired', sessionOver: true },
  INVALIDCALLBACK: { text: 'invalid callback' },
  INVALIDACL: { text: 'invalid ACL' },
  AUTHFAILED: { text: 'authentication failed', sessionOver: true },
  SESSIONMOVED: { text: 'session moved', retriable: true },
  NOTREADONLY: { text: 'not a read-only call' },
  EPHEMERALONLOCALSESSION: { text: 'ephemeral node on local session' },
  NOWATCHER: { text: 'no watcher' },
  REQUESTTIMEOUT: { text: 'request timeout', retriable: true },
  RECONFIGDISABLED: { text: 'reconfig is disabled' },
  SESSIONCLOSEDREQUIRESASLAUTH: {
    text: 'session closed because client failed to authenticate',
    sessionOver: true,
  },
  QUOTAEXCEEDED: { text: 'quota has exceeded' },
  THROTTLEDOP: { text: 'op throttled due to high load', retriable: true },
};

function codesWith(trait: 'retriable' | 'sessionOver'): readonly ErrorCodeName[] {
  return Object.freeze(
    (Object.keys(codeInfo) as ErrorCodeName[]).filter((code) => codeInfo[code][trait] === true),
  );
}

/** Codes after which a call may succeed if tried again (see `ZooKeeperError.retriable`). */
export const RETRIABLE_CODES: readonly ErrorCodeName[] = codesWith('retriable');

/** Codes that mean the session is over (see `ZooKeeperError.sessionOver`). */
export const SESSION_OVER_CODES: readonly ErrorCodeName[] = codesWith('sessionOver');

/** The Java name of a code (`NONODE`), or `UNKNOWN(<n>)` for a code not in the table. */
export function errorCodeName(errno: number): ZooKeeperErrorCode {
  return namesByNumber.get(errno) ?? `UNKNOWN(${errno})`;
}

/** Whether `code` is a name of the table (OK included). */
export function isKnownName(code: string): code is ErrorCodeName {
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

/**
 * Every error raised by the client: carries the Java code name, its number, and the path/op.
 * The client builds them through `makeError`/`errorFromCode`, so each is also an instance of its
 * code's subclass (`NoNodeError`, `ConnectionLossError`, ...).
 */
export class ZooKeeperError extends Error {
  /** The class name, for logs. */
  override name = 'ZooKeeperError';
  /** The Java code name (`'NONODE'`; see {@link ErrorCode}), or `UNKNOWN(<n>)` for a number not in the table. */
  readonly code: ZooKeeperErrorCode;
  /** The numeric code ({@link ErrorCode}). */
  readonly errno: number;
  /** The path of the failed operation, when it had one. */
  readonly path?: string;
  /** The failed operation (`'create'`, `'getData'`, ...), when known. */
  readonly op?: string;
  /** For a failed multi: the per-op results (set by the session layer). */
  results?: readonly unknown[];

  constructor(code: ZooKeeperErrorCode, message: string, details: ErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.errno =
      details.errno ??
      (isKnownName(code) ? ErrorCode[code] : (parseUnknown(code) ?? ErrorCode.SYSTEMERROR));
    if (details.path !== undefined) this.path = details.path;
    if (details.op !== undefined) this.op = details.op;
  }

  /** Transient: the call may succeed if sent again (CONNECTIONLOSS, REQUESTTIMEOUT, THROTTLEDOP...). */
  get retriable(): boolean {
    return isKnownName(this.code) && codeInfo[this.code].retriable === true;
  }

  /** The session is over: SESSIONEXPIRED, AUTHFAILED, SESSIONCLOSEDREQUIRESASLAUTH. */
  get sessionOver(): boolean {
    return isKnownName(this.code) && codeInfo[this.code].sessionOver === true;
  }
}

/** True for a ZooKeeperError whose code is transient (see `ZooKeeperError.retriable`). */
export function isRetriable(error: unknown): boolean {
  return error instanceof ZooKeeperError && error.retriable;
}

/** True for a ZooKeeperError that says the session is over (see `ZooKeeperError.sessionOver`). */
export function isSessionOver(error: unknown): boolean {
  return error instanceof ZooKeeperError && error.sessionOver;
}

function describe(code: string, errno: number, path?: string, op?: string): string {
  const base = isKnownName(code) ? codeInfo[code].text : `unknown error code ${errno}`;
  let text = `${code}: ${base}`;
  if (path !== undefined) text += ` at ${path}`;
  if (op !== undefined) text += ` (${op})`;
  return text;
}

/** The constructor of one code's error class (`NoNodeError`, `ConnectionLossError`, ...). */
export type ErrorClass = new (
  message: string,
  details?: Omit<ErrorDetails, 'errno'>,
) => ZooKeeperError;

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

/** Thrown for SYSTEMERROR: `err.code === 'SYSTEMERROR'`. */
export const SystemError = makeClass('SYSTEMERROR', 'SystemError');
/** Thrown for RUNTIMEINCONSISTENCY: `err.code === 'RUNTIMEINCONSISTENCY'`. */
export const RuntimeInconsistencyError = makeClass(
  'RUNTIMEINCONSISTENCY',
  'RuntimeInconsistencyError',
);
/** Thrown for DATAINCONSISTENCY: `err.code === 'DATAINCONSISTENCY'`. */
export const DataInconsistencyError = makeClass('DATAINCONSISTENCY', 'DataInconsistencyError');
/** Thrown for CONNECTIONLOSS: `err.code === 'CONNECTIONLOSS'`. */
export const ConnectionLossError = makeClass('CONNECTIONLOSS', 'ConnectionLossError');
/** Thrown for MARSHALLINGERROR: `err.code === 'MARSHALLINGERROR'`. */
export const MarshallingError = makeClass('MARSHALLINGERROR', 'MarshallingError');

/** Malformed bytes from the wire (short read, bad length, bad count): a MarshallingError. */
export class ProtocolError extends MarshallingError {
  override name = 'ProtocolError';

  constructor(message: string, details: Omit<ErrorDetails, 'errno'> = {}) {
    super(message, details);
    this.name = 'ProtocolError';
  }
}
/** Thrown for UNIMPLEMENTED: `err.code === 'UNIMPLEMENTED'`. */
export const UnimplementedError = makeClass('UNIMPLEMENTED', 'UnimplementedError');
/** Thrown for OPERATIONTIMEOUT: `err.code === 'OPERATIONTIMEOUT'`. */
export const OperationTimeoutError = makeClass('OPERATIONTIMEOUT', 'OperationTimeoutError');
/** Thrown for BADARGUMENTS: `err.code === 'BADARGUMENTS'`. */
export const BadArgumentsError = makeClass('BADARGUMENTS', 'BadArgumentsError');
/** Thrown for UNKNOWNSESSION: `err.code === 'UNKNOWNSESSION'`. */
export const UnknownSessionError = makeClass('UNKNOWNSESSION', 'UnknownSessionError');
/** Thrown for NEWCONFIGNOQUORUM: `err.code === 'NEWCONFIGNOQUORUM'`. */
export const NewConfigNoQuorumError = makeClass('NEWCONFIGNOQUORUM', 'NewConfigNoQuorumError');
/** Thrown for RECONFIGINPROGRESS: `err.code === 'RECONFIGINPROGRESS'`. */
export const ReconfigInProgressError = makeClass('RECONFIGINPROGRESS', 'ReconfigInProgressError');
/** Thrown for APIERROR: `err.code === 'APIERROR'`. */
export const ApiError = makeClass('APIERROR', 'ApiError');
/** Thrown for NONODE: `err.code === 'NONODE'`. */
export const NoNodeError = makeClass('NONODE', 'NoNodeError');
/** Thrown for NOAUTH: `err.code === 'NOAUTH'`. */
export const NoAuthError = makeClass('NOAUTH', 'NoAuthError');
/** Thrown for BADVERSION: `err.code === 'BADVERSION'`. */
export const BadVersionError = makeClass('BADVERSION', 'BadVersionError');
/** Thrown for NOCHILDRENFOREPHEMERALS: `err.code === 'NOCHILDRENFOREPHEMERALS'`. */
export const NoChildrenForEphemeralsError = makeClass(
  'NOCHILDRENFOREPHEMERALS',
  'NoChildrenForEphemeralsError',
);
/** Thrown for NODEEXISTS: `err.code === 'NODEEXISTS'`. */
export const NodeExistsError = makeClass('NODEEXISTS', 'NodeExistsError');
/** Thrown for NOTEMPTY: `err.code === 'NOTEMPTY'`. */
export const NotEmptyError = makeClass('NOTEMPTY', 'NotEmptyError');
/** Thrown for SESSIONEXPIRED: `err.code === 'SESSIONEXPIRED'`. */
export const SessionExpiredError = makeClass('SESSIONEXPIRED', 'SessionExpiredError');
/** Thrown for INVALIDCALLBACK: `err.code === 'INVALIDCALLBACK'`. */
export const InvalidCallbackError = makeClass('INVALIDCALLBACK', 'InvalidCallbackError');
/** Thrown for INVALIDACL: `err.code === 'INVALIDACL'`. */
export const InvalidACLError = makeClass('INVALIDACL', 'InvalidACLError');
/** Thrown for AUTHFAILED: `err.code === 'AUTHFAILED'`. */
export const AuthFailedError = makeClass('AUTHFAILED', 'AuthFailedError');
/** Thrown for SESSIONMOVED: `err.code === 'SESSIONMOVED'`. */
export const SessionMovedError = makeClass('SESSIONMOVED', 'SessionMovedError');
/** Thrown for NOTREADONLY: `err.code === 'NOTREADONLY'`. */
export const NotReadOnlyError = makeClass('NOTREADONLY', 'NotReadOnlyError');
/** Thrown for EPHEMERALONLOCALSESSION: `err.code === 'EPHEMERALONLOCALSESSION'`. */
export const EphemeralOnLocalSessionError = makeClass(
  'EPHEMERALONLOCALSESSION',
  'EphemeralOnLocalSessionError',
);
/** Thrown for NOWATCHER: `err.code === 'NOWATCHER'`. */
export const NoWatcherError = makeClass('NOWATCHER', 'NoWatcherError');
/** Thrown for REQUESTTIMEOUT: `err.code === 'REQUESTTIMEOUT'`. */
export const RequestTimeoutError = makeClass('REQUESTTIMEOUT', 'RequestTimeoutError');
/** Thrown for RECONFIGDISABLED: `err.code === 'RECONFIGDISABLED'`. */
export const ReconfigDisabledError = makeClass('RECONFIGDISABLED', 'ReconfigDisabledError');
/** Thrown for SESSIONCLOSEDREQUIRESASLAUTH: `err.code === 'SESSIONCLOSEDREQUIRESASLAUTH'`. */
export const SessionClosedRequireSaslAuthError = makeClass(
  'SESSIONCLOSEDREQUIRESASLAUTH',
  'SessionClosedRequireSaslAuthError',
);
/** Thrown for QUOTAEXCEEDED: `err.code === 'QUOTAEXCEEDED'`. */
export const QuotaExceededError = makeClass('QUOTAEXCEEDED', 'QuotaExceededError');
/** Thrown for THROTTLEDOP: `err.code === 'THROTTLEDOP'`. */
export const ThrottledOpError = makeClass('THROTTLEDOP', 'ThrottledOpError');

/** Every non-OK code's error class, by code name. */
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

/** Details of an error built by `makeError` / `errorFromCode`. */
export type MakeErrorDetails = Omit<ErrorDetails, 'errno'>;

/**
 * The one way the client builds an error of a known code: an instance of that code's class, so
 * `err instanceof ConnectionLossError` holds as well as `err.code === 'CONNECTIONLOSS'`.
 */
export function makeError(
  code: Exclude<ErrorCodeName, 'OK'>,
  message: string,
  details: MakeErrorDetails = {},
): ZooKeeperError {
  return new errorClasses[code](message, details);
}

/**
 * The error for a server code, e.g. `NONODE: no node at /a/b (getData)`, or with `message`.
 * Known codes give their subclass; unknown codes keep the raw number (`UNKNOWN(-999)`).
 */
export function errorFromCode(
  errno: number,
  details: MakeErrorDetails & { message?: string } = {},
): ZooKeeperError {
  const code = errorCodeName(errno);
  const { message: given, ...rest } = details;
  const message = given ?? describe(code, errno, details.path, details.op);
  if (isKnownName(code) && code !== 'OK') return makeError(code, message, rest);
  return new ZooKeeperError(code, message, { ...rest, errno });
}
