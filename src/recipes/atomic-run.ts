// One operation of a DistributedAtomicLong under its bound: the caller's timeout and signal and
// the retry policy's own signal, read as one stop by its calls, retries and pauses (no
// AbortController per operation), and an operation given none of them costs nothing.
import type { StopSignal } from '../session/signal-waiters.js';
import type { RetryPolicy } from './retry.js';
import { checkWaitOptions, startWait, type WaitOptions } from './wait.js';

/**
 * One operation's bound (see {@link WaitOptions}): the policy its reads retry with and the signal
 * its calls and pauses carry, both ending with the caller's signal, the timeout or the policy's
 * own signal; `end()` when the operation is over.
 */
export interface Run {
  readonly policy: RunPolicy;
  readonly signal: StopSignal | undefined;
  /** The bound as an AbortSignal, for the lock of a promoted change (made only then). */
  abortSignal(): AbortSignal | undefined;
  /** `work`, or the bound's reason as soon as it ends (see WaitBound.within). */
  within<T>(work: Promise<T>): Promise<T>;
  end(): void;
}

/** A retry policy as one operation runs it: its `signal` may be the operation's own bound. */
export type RunPolicy = Omit<RetryPolicy, 'signal'> & { readonly signal?: StopSignal | undefined };

const nothingToEnd = () => {};
const asItIs = <T>(work: Promise<T>): Promise<T> => work;

/**
 * Starts one operation's bound on `client`'s timer. Without `timeout` and `signal` it costs
 * nothing: the policy's own signal (if any) bounds the operation as before.
 */
export function startRun(
  options: WaitOptions,
  path: string,
  client: object,
  policy: RetryPolicy,
): Run {
  if (options.timeout === undefined && options.signal === undefined) {
    checkWaitOptions(options, path);
    const signal = policy.signal;
    return { policy, signal, abortSignal: () => signal, within: asItIs, end: nothingToEnd };
  }
  const bound = startWait(options, path, { client, stop: policy.signal });
  const signal = bound.signal;
  return {
    policy: { ...policy, signal },
    signal,
    abortSignal: () => bound.abortSignal,
    within: (work) => bound.within(work),
    end: () => bound.dispose(),
  };
}
