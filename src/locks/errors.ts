// Errors of the lock recipes. All are ZooKeeperErrors, so `code` works as for client errors.
import {
  makeError,
  TimeoutError,
  ZooKeeperError,
  type ZooKeeperErrorCode,
} from '../protocol/errors.js';
import { pathProblem } from '../protocol/paths.js';

/**
 * `acquire({ timeout })` (or a latch's `leadership({ timeout })`) ran out of time, or
 * `timeout: 0` found the lock taken: the one {@link TimeoutError} (code `TIMEOUT`), narrowed to
 * locks. The message says what was waited for, and when the same lock object already held the
 * lock, how to re-enter it.
 */
export class LockTimeoutError extends TimeoutError {
  /** The class name, for logs. */
  override name = 'LockTimeoutError';

  /**
   * @param awaited What was waited for, as the message names it (default `the lock <path>`; a
   *   leader latch says `leadership of <path>`).
   */
  constructor(path: string, timeout: number, awaited = `the lock ${path}`) {
    // `timeout: 0` never waited: it found the lock taken.
    const message =
      timeout === 0
        ? `${awaited} is not available now (timeout 0 does not wait)`
        : `timed out after ${timeout} ms waiting for ${awaited}`;
    super(timeout, message, { path, op: 'acquire' });
  }
}

/** Why a lease stopped being trustworthy. */
export type LockLossReason = 'suspended' | 'expired' | 'closed' | 'auth-failed' | 'deleted';

const CODES: Record<LockLossReason, ZooKeeperErrorCode> = {
  suspended: 'CONNECTIONLOSS',
  expired: 'SESSIONEXPIRED',
  closed: 'CLIENTCLOSED',
  'auth-failed': 'AUTHFAILED',
  deleted: 'NONODE',
};

const MESSAGES: Record<LockLossReason, string> = {
  suspended: 'the connection was suspended; the lock may be held by someone else',
  expired: 'the session expired; the lock node is gone',
  closed: 'the client was closed; the lock node is gone',
  'auth-failed': 'authentication failed; the session is unusable',
  deleted: 'the lock node was deleted by someone else',
};

/** The reason a lease's `signal` aborts when the lock may have been lost. */
export class LockLostError extends ZooKeeperError {
  /** The class name, for logs. */
  override name = 'LockLostError';
  /** What happened: the connection was suspended, the session ended, or the node was deleted. */
  readonly reason: LockLossReason;

  constructor(reason: LockLossReason, path: string) {
    super(CODES[reason], `lock ${path} lost: ${MESSAGES[reason]}`, { path, op: 'lease' });
    this.reason = reason;
  }
}

/**
 * The reason a lease's (or a term of leadership's) `signal` aborts when its holder gave it up:
 * `release()`, or closing the latch or selector. Code `LEASERELEASED`.
 */
export class LeaseReleasedError extends ZooKeeperError {
  /** The class name, for logs. */
  override name = 'LeaseReleasedError';

  /** @param what What was given up, as the message names it (default `lease on <path>`). */
  constructor(path: string, what = `lease on ${path}`) {
    super('LEASERELEASED', `${what} was released`, { path, op: 'release' });
  }
}

// The rules shared with the recipes live in src/coordination; the lock files take these two from
// here as well.
export { hasCode } from '../coordination/codes.js';
export { isRetriable } from '../coordination/retry.js';

/** The loss policy an options object asks for; anything but the two known ones is refused. */
export function lossPolicyOf(policy: unknown, path: string): 'suspended' | 'expired' {
  if (policy === undefined) return 'suspended';
  if (policy === 'suspended' || policy === 'expired') return policy;
  throw badArguments(`lossPolicy must be 'suspended' or 'expired', got ${String(policy)}`, path);
}

/**
 * Refuses a recipe's path at construction, in the user's words: the nodes made under it later
 * would name only an internal child (`rel/lock/_c_…-lock-`).
 */
export function checkRecipePath(path: unknown, recipe: string): void {
  const problem = pathProblem(path as string);
  if (problem === null) return;
  const shown = typeof path === 'string' ? JSON.stringify(path) : String(path);
  throw badArguments(
    `${recipe}: invalid path ${shown}: ${problem.replace(/^path /, '')}`,
    typeof path === 'string' ? path : undefined,
  );
}

export function badArguments(message: string, path?: string): ZooKeeperError {
  return makeError('BADARGUMENTS', message, path === undefined ? {} : { path });
}
