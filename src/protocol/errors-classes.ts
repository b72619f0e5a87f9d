// One error class per code (kazoo style), so that callers can write `err instanceof NoNodeError`
// as well as `err.code === 'NONODE'`; `errorClasses` maps each code name to its class.
import { type ErrorDetails, ZooKeeperError } from './errors-base.js';
import { ErrorCode, type ErrorCodeName } from './errors-table.js';

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
