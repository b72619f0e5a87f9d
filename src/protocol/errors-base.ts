// ZooKeeperError, the base of every error the client raises: the code's name and number, the
// path and operation, and whether the code is transient or ends the session (from the table).
import {
  ClientErrorCode,
  codeInfo,
  ErrorCode,
  isClientCode,
  isKnownName,
  parseUnknown,
  type ZooKeeperErrorCode,
} from './errors-table.js';

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
  /**
   * The Java code name (`'NONODE'`; see {@link ErrorCode}), a client-side code (`'TIMEOUT'`,
   * `'CLIENTCLOSED'`, ...; see {@link ClientErrorCode}), or `UNKNOWN(<n>)` for a number not in
   * either table.
   */
  readonly code: ZooKeeperErrorCode;
  /** The numeric code ({@link ErrorCode}; below -1000 for a client-side code). */
  readonly errno: number;
  /** The path of the failed operation, when it had one. */
  readonly path?: string;
  /** The failed operation (`'create'`, `'getData'`, ...), when known. */
  readonly op?: string;
  /** For a failed multi: the per-op results (set by `Client.multi`). */
  results?: readonly unknown[];

  constructor(code: ZooKeeperErrorCode, message: string, details: ErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.errno =
      details.errno ??
      (isKnownName(code)
        ? ErrorCode[code]
        : isClientCode(code)
          ? ClientErrorCode[code]
          : (parseUnknown(code) ?? ErrorCode.SYSTEMERROR));
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
