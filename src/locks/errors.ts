// Errors of the lock recipes. All are ZooKeeperErrors, so `code` works as for client errors.
import {
  type ErrorCodeName,
  makeError,
  SESSION_OVER_CODES,
  ZooKeeperError,
} from '../protocol/errors.js';

/** `acquire({ timeout })` (or a latch's `leadership({ timeout })`) ran out of time. */
export class LockTimeoutError extends ZooKeeperError {
  /** The class name, for logs. */
  override name = 'LockTimeoutError';
  /** The timeout that elapsed, ms. */
  readonly timeout: number;

  /**
   * @param awaited What was waited for, as the message names it (default `the lock <path>`; a
   *   leader latch says `leadership of <path>`).
   */
  constructor(path: string, timeout: number, awaited = `the lock ${path}`) {
    super('OPERATIONTIMEOUT', `timed out after ${timeout} ms waiting for ${awaited}`, {
      path,
      op: 'acquire',
    });
    this.timeout = timeout;
  }
}

/** Why a lease stopped being trustworthy. */
export type LockLossReason = 'suspended' | 'expired' | 'closed' | 'auth-failed' | 'deleted';

const CODES: Record<LockLossReason, ErrorCodeName> = {
  suspended: 'CONNECTIONLOSS',
  expired: 'SESSIONEXPIRED',
  closed: 'SESSIONEXPIRED',
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

/** The reason a lease's `signal` aborts when the holder released it. */
export class LeaseReleasedError extends ZooKeeperError {
  /** The class name, for logs. */
  override name = 'LeaseReleasedError';

  constructor(path: string) {
    super('OK', `lease on ${path} was released`, { path, op: 'release' });
  }
}

export function hasCode(error: unknown, ...codes: string[]): boolean {
  return error instanceof ZooKeeperError && codes.includes(error.code);
}

/**
 * Codes after which the same lock request may succeed if sent again: its outcome is unknown
 * (CONNECTIONLOSS, REQUESTTIMEOUT: it may or may not have been applied) or the server could not
 * take it just now (THROTTLEDOP; NOTREADONLY while only a read-only server is reachable). The lock
 * recipes only repeat requests that are safe to repeat. Narrower than the error table's
 * `retriable` on purpose: OPERATIONTIMEOUT is what a LockTimeoutError carries (the caller's
 * deadline, never worth repeating), and NOTREADONLY is worth waiting out for a lock.
 */
export const RETRIABLE = [
  'CONNECTIONLOSS',
  'REQUESTTIMEOUT',
  'THROTTLEDOP',
  'NOTREADONLY',
] as const;

/** Codes after which the session is over (from the error table): its ephemeral nodes are gone. */
export const SESSION_OVER = SESSION_OVER_CODES;

/** Whether `error` says the request may succeed if sent again (see {@link RETRIABLE}). */
export function isRetriable(error: unknown): boolean {
  return hasCode(error, ...RETRIABLE);
}

/**
 * Waits before a request is sent again after `error`. A lost connection or a timed-out request
 * needs no pause: the next request waits for a connection (or for its own requestTimeout). A
 * server that refuses at once (throttled, read-only) would be asked again in a hot loop: pause.
 */
export function pauseBeforeRetry(error: unknown, signal?: AbortSignal): Promise<void> {
  if (hasCode(error, 'CONNECTIONLOSS', 'REQUESTTIMEOUT') || signal?.aborted) {
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, 100 + Math.random() * 100);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** The loss policy an options object asks for; anything but the two known ones is refused. */
export function lossPolicyOf(policy: unknown, path: string): 'suspended' | 'expired' {
  if (policy === undefined) return 'suspended';
  if (policy === 'suspended' || policy === 'expired') return policy;
  throw badArguments(`lossPolicy must be 'suspended' or 'expired', got ${String(policy)}`, path);
}

export function badArguments(message: string, path?: string): ZooKeeperError {
  return makeError('BADARGUMENTS', message, path === undefined ? {} : { path });
}
