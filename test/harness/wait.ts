import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitOptions {
  /** What we are waiting for, used in the timeout message. */
  what: string;
  timeoutMs: number;
  intervalMs?: number;
  /** Checked before every probe; a returned string aborts the wait with that reason (e.g. "the JVM exited"). */
  abortIf?: () => string | undefined;
  /** Extra text appended to a failure, e.g. a server log tail. */
  details?: () => string;
}

/**
 * Polls `probe` until it returns something other than `undefined`.
 * Probes that throw count as "not yet" (a server that is still starting refuses connections).
 */
export async function waitFor<T>(
  probe: () => Promise<T | undefined>,
  opts: WaitOptions,
): Promise<T> {
  const deadline = Date.now() + opts.timeoutMs;
  const interval = opts.intervalMs ?? 50;
  let lastError: unknown;
  for (;;) {
    const abort = opts.abortIf?.();
    if (abort !== undefined) throw new Error(withDetails(`${opts.what}: ${abort}`, opts));
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const cause = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(
        withDetails(`timed out after ${opts.timeoutMs} ms waiting for ${opts.what}${cause}`, opts),
      );
    }
    await sleep(interval);
  }
}

function withDetails(message: string, opts: WaitOptions): string {
  const details = opts.details?.();
  return details ? `${message}\n${details}` : message;
}
