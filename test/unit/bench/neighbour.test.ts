// `--neighbour`: the busy processes really burn CPU while the run lasts, and stop() ends them.
import { describe, expect, it } from 'vitest';
import { startNeighbour } from '../../../bench/neighbour.js';
import { waitFor } from '../../support/wait.js';

// A Node process that starts and then idles uses 60-110 ms of CPU: four times that is only
// reached by a child that keeps burning (half of every 20 ms, so about 0.8 s after start-up).
const BURNT_MS = 400;

describe('the CPU-bound neighbour', () => {
  it('burns CPU while running and is gone after stop()', async () => {
    const neighbour = startNeighbour(0.5, 1);
    try {
      expect(neighbour.processes).toBe(1);
      await waitFor(async () => ((neighbour.cpuMs() ?? 0) > BURNT_MS ? true : undefined), {
        what: `the neighbour to use ${BURNT_MS} ms of CPU`,
        timeoutMs: 15_000,
        intervalMs: 20,
      });
    } finally {
      await neighbour.stop();
    }
    // Its /proc entry is gone once it has exited and been reaped.
    expect(neighbour.cpuMs()).toBeUndefined();
  }, 20_000);
});
