// Waits on one event or one condition, for the tests against real servers and other processes:
// an AbortSignal's abort, a SetPartitioner's state, a check that passes once a peer has caught up.
import type { PartitionState, SetPartitioner } from '../../src/recipes/index.js';

/** Resolves with `signal`'s reason once it aborts (at once when it already has). */
export function aborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    else signal.addEventListener('abort', () => resolve(signal.reason), { once: true });
  });
}

/** Resolves once `partitioner` is in `state` (at once when it is). */
export function reaches(partitioner: SetPartitioner, state: PartitionState): Promise<void> {
  if (partitioner.state === state) return Promise.resolve();
  return new Promise((resolve) => {
    const off = partitioner.on('state', (now) => {
      if (now !== state) return;
      off();
      resolve();
    });
  });
}

/** Runs `check` every 50 ms until it passes; after `ms` its last failure is thrown. */
export async function eventually(check: () => Promise<void> | void, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
