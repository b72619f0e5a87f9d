// `--neighbour`: the busy processes really burn CPU while the run lasts, and stop() ends them.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { startNeighbour } from '../../../bench/neighbour.js';

describe('the CPU-bound neighbour', () => {
  it('burns CPU while running and is gone after stop()', async () => {
    const neighbour = startNeighbour(0.5, 1);
    try {
      expect(neighbour.processes).toBe(1);
      // Past its start-up (which costs CPU of its own), over one second: busy half of every 20 ms
      // asks for 500 ms; a tenth of that is asked here, for machines shared with other work.
      await sleep(700);
      const before = neighbour.cpuMs() ?? Number.NaN;
      await sleep(1000);
      const after = neighbour.cpuMs() ?? Number.NaN;
      expect(after - before).toBeGreaterThan(50);
    } finally {
      await neighbour.stop();
    }
    // Its /proc entry is gone once it has exited and been reaped.
    expect(neighbour.cpuMs()).toBeUndefined();
  }, 20_000);
});
