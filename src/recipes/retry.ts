// The public retry helper: the policies Curator and kazoo users know (exponential backoff with a
// cap and jitter, a bound on attempts or on total time, an AbortSignal), over the same notion of
// "worth sending again" as the lock recipes use internally.

import { hasCode } from '../coordination/codes.js';
import { RETRIABLE } from '../coordination/retry.js';
import type { ErrorCodeName } from '../protocol/errors.js';
import { makeError } from '../protocol/errors.js';
import type { StopSignal } from '../session/signal-waiters.js';

/** How {@link retry} spaces and bounds its attempts. Every field is optional. */
export interface RetryPolicy {
  /** Most attempts in all, the first included. Default 10; `Infinity` for no bound. */
  maxAttempts?: number;
  /** Give up (with the last error) when the next pause would end later than this many ms after the first attempt. Default: no bound. */
  maxElapsed?: number;
  /** The pause after the first failure, ms; it doubles after each further failure. Default 100. */
  baseDelay?: number;
  /** The longest pause, ms. Default 10 000. */
  maxDelay?: number;
  /**
   * How the pause is randomised, so that clients refused together do not come back together:
   * `'full'` (default: anywhere between 0 and the backoff), `'equal'` (between half and all of
   * it), `'none'` (exactly the backoff).
   */
  jitter?: 'full' | 'equal' | 'none';
  /**
   * Whether SESSIONEXPIRED is retried. Default false. With session renewal the same client opens
   * a new session and a call sent again runs on it, so a call that does not depend on the old
   * session (no ephemeral node of it, no watch of it) may opt in.
   */
  retrySessionExpired?: boolean;
  /** Further codes to retry (BADVERSION for a read-modify-write loop, say). */
  retryOn?: readonly ErrorCodeName[];
  /** Stops retrying: a pause ends at once and the retry rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called before each pause with the failed attempt's number (1 for the first), its error and the pause, ms. */
  onRetry?: (info: RetryInfo) => void;
}

/** What {@link RetryPolicy.onRetry} is told. */
export interface RetryInfo {
  /** The number of the attempt that failed (1 for the first). */
  attempt: number;
  /** Its error. */
  error: unknown;
  /** The pause before the next attempt, ms. */
  delay: number;
}

/**
 * Codes {@link retry} retries by default: the outcome of the request is unknown (CONNECTIONLOSS,
 * REQUESTTIMEOUT) or the server could not take it just now (SESSIONMOVED, THROTTLEDOP,
 * NOTREADONLY). The library's one set: `RETRIABLE_CODES`, `isRetriable` and the lock recipes
 * use the same.
 */
export const RETRIED_BY_DEFAULT: readonly ErrorCodeName[] = RETRIABLE;

/** Whether `policy` retries `error` (see {@link RETRIED_BY_DEFAULT} and the policy's own codes). */
export function isRetriedBy(error: unknown, policy: RetryPolicy = {}): boolean {
  if (hasCode(error, ...RETRIABLE)) return true;
  if (policy.retrySessionExpired && hasCode(error, 'SESSIONEXPIRED')) return true;
  return policy.retryOn !== undefined && hasCode(error, ...policy.retryOn);
}

/**
 * The pause before attempt `attempt + 1` after attempt `attempt` failed: `baseDelay * 2^(attempt-1)`,
 * capped at `maxDelay`, then jittered (see {@link RetryPolicy.jitter}).
 */
export function backoffDelay(
  attempt: number,
  policy: Pick<RetryPolicy, 'baseDelay' | 'maxDelay' | 'jitter'> = {},
): number {
  const { baseDelay = 100, maxDelay = 10_000, jitter = 'full' } = policy;
  const backoff = Math.min(maxDelay, baseDelay * 2 ** Math.min(attempt - 1, 52));
  if (jitter === 'none') return backoff;
  if (jitter === 'equal') return backoff / 2 + Math.random() * (backoff / 2);
  return Math.random() * backoff;
}

/**
 * Runs `op` until it succeeds, retrying the errors `policy` retries (see {@link isRetriedBy}) with
 * exponential backoff, within its bounds. Any other error, and the last error once the attempts
 * or the time are used up, is thrown as it came. Aborting `policy.signal` rejects with its reason.
 * `op` must be safe to send again: a create whose reply was lost may have been applied (use a
 * version check, or look before creating again). `op` is given the attempt's number (1 first).
 */
export function retry<T>(
  op: (attempt: number) => Promise<T>,
  policy: RetryPolicy = {},
): Promise<T> {
  return checkedRetry(op, policy, policy.signal);
}

/**
 * @internal {@link retry} of `policy` (checked first: a bad one rejects), stopped by `stop` instead
 * of the policy's own signal: a call's signal, or a recipe's wait (see StopSignal), which the
 * public policy cannot carry.
 */
export function checkedRetry<T>(
  op: (attempt: number) => Promise<T>,
  policy: RetryPolicy,
  stop: StopSignal | undefined,
): Promise<T> {
  try {
    checkPolicy(policy);
  } catch (error) {
    return Promise.reject(error);
  }
  return retryUntil(op, policy, stop);
}

/**
 * @internal {@link retry} of a checked `policy`, stopped by `stop` instead of the policy's signal:
 * a recipe's wait hands its bound (see StopSignal), which the public policy cannot carry.
 */
export async function retryUntil<T>(
  op: (attempt: number) => Promise<T>,
  policy: Omit<RetryPolicy, 'signal'>,
  stop: StopSignal | undefined,
): Promise<T> {
  const { maxAttempts = 10, maxElapsed = Number.POSITIVE_INFINITY } = policy;
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    if (stop?.aborted) throw stop.reason;
    try {
      return await op(attempt);
    } catch (error) {
      if (stop?.aborted) throw stop.reason;
      if (!isRetriedBy(error, policy) || attempt >= maxAttempts) throw error;
      const delay = backoffDelay(attempt, policy);
      if (Date.now() + delay - started > maxElapsed) throw error;
      policy.onRetry?.({ attempt, error, delay });
      await pauseUntil(delay, stop);
    }
  }
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return pauseUntil(ms, signal);
}

/** @internal {@link pause}, stopped by an AbortSignal or a wait's own stop (see StopSignal). */
export function pauseUntil(ms: number, stop: StopSignal | undefined): Promise<void> {
  if (stop?.aborted) return Promise.reject(stop.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(stop?.reason);
    };
    const timer = setTimeout(() => {
      stop?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    stop?.addEventListener('abort', onAbort, { once: true });
  });
}

/** @internal Throws BADARGUMENTS for a policy {@link retry} would refuse. */
export function checkPolicy(policy: RetryPolicy): void {
  if (typeof policy !== 'object' || policy === null) {
    throw makeError('BADARGUMENTS', 'the retry policy must be an object');
  }
  for (const key of ['maxAttempts', 'maxElapsed', 'baseDelay', 'maxDelay'] as const) {
    const value = policy[key];
    if (value !== undefined && !(typeof value === 'number' && value >= 0)) {
      throw makeError('BADARGUMENTS', `${key} must be a non-negative number, got ${String(value)}`);
    }
  }
  if (policy.maxAttempts !== undefined && policy.maxAttempts < 1) {
    throw makeError('BADARGUMENTS', 'maxAttempts must be at least 1');
  }
  if (policy.signal !== undefined && !(policy.signal instanceof AbortSignal)) {
    throw makeError('BADARGUMENTS', 'signal must be an AbortSignal');
  }
}
