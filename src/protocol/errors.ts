// ZooKeeper's errors in one module: the code table (errors-table.ts), the base class
// (errors-base.ts), one class per code (errors-classes.ts), re-exported here beside the two
// functions that build them: `makeError` for a code the client raises, `errorFromCode` for a
// number the server sent.
import { type ErrorDetails, ZooKeeperError } from './errors-base.js';
import { errorClasses } from './errors-classes.js';
import { InvalidArgumentError } from './errors-client.js';
import { describeCode, type ErrorCodeName, errorCodeName, isKnownName } from './errors-table.js';

export { type ErrorDetails, isRetriable, isSessionOver, ZooKeeperError } from './errors-base.js';
// Every export of errors-classes.ts is public: one class per code, and their map.
export * from './errors-classes.js';
export * from './errors-client.js';
export {
  ClientErrorCode,
  type ClientErrorCodeName,
  ErrorCode,
  type ErrorCodeName,
  errorCodeName,
  RETRIABLE_CODES,
  SESSION_OVER_CODES,
  type ZooKeeperErrorCode,
} from './errors-table.js';

/** Details of an error built by `makeError` / `errorFromCode`. */
export type MakeErrorDetails = Omit<ErrorDetails, 'errno'>;

/**
 * The one way the client builds an error of a known code: an instance of that code's class, so
 * `err instanceof ConnectionLossError` holds as well as `err.code === 'CONNECTIONLOSS'`. The
 * client raises BADARGUMENTS only for input it refuses itself: an {@link InvalidArgumentError}.
 */
export function makeError(
  code: Exclude<ErrorCodeName, 'OK'>,
  message: string,
  details: MakeErrorDetails = {},
): ZooKeeperError {
  if (code === 'BADARGUMENTS') return new InvalidArgumentError(message, details);
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
  const message = given ?? describeCode(code, errno, details.path, details.op);
  if (isKnownName(code) && code !== 'OK') return new errorClasses[code](message, rest);
  return new ZooKeeperError(code, message, { ...rest, errno });
}
