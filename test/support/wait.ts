// Waits for tests, in one place: `until` for a synchronous condition a scripted or in-memory
// world makes true within a few turns of the event loop, and the harness's `waitFor` for probes
// of real servers and processes.

import { vi } from 'vitest';

export { type WaitOptions, waitFor } from '../harness/wait.js';

/**
 * Resolves once `check()` is true, checking after each of up to 500 one-millisecond timer turns
 * (the events of a scripted client or an in-memory server land within a few); rejects with
 * `timed out waiting for <what>` when it is still false. On a faked clock (`vi.useFakeTimers()`)
 * each turn advances it by a millisecond, so the wait works there too.
 */
export async function until(check: () => boolean, what = 'the condition'): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) {
    if (vi.isFakeTimers()) await vi.advanceTimersByTimeAsync(1);
    else await new Promise((r) => setTimeout(r, 1));
  }
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}
