// Messages between `zkts bench` and its worker processes (over the IPC channel of the spawn).
import type { BenchConfig } from './config.js';
import type { PartResult } from './part.js';

/** From the coordinator. */
export type ToWorker =
  | { type: 'init'; config: BenchConfig; sessions: number[] }
  /** Begin at `start` (ms on the shared clock, see `now()`). */
  | { type: 'start'; start: number }
  /** Interrupted: stop at once, close the sessions, report what was measured. */
  | { type: 'stop' };

/** From a worker. */
export type FromWorker =
  | { type: 'ready' }
  | { type: 'progress'; done: number }
  | { type: 'result'; result: PartResult }
  | { type: 'failed'; code: string | undefined; message: string };
