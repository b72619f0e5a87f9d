// What the parent asks a lock probe (bench/lock-probe.ts) to run, and what the probe prints back.
import type { RoundResult, Timing } from './stats.js';

/** Which lock implementation the probe drives. */
export const PROBE_LOCK = {
  mutex: 'mutex',
  manyPaths: 'many-paths',
  rwlock: 'rwlock',
  semaphore: 'semaphore',
  exclusive: 'exclusive',
  nzkRecipe: 'nzk-recipe',
  nzkNoRelist: 'nzk-no-relist',
  /** The safe recipe with the least client work (bench/baselines/floor.ts). */
  floor: 'floor',
  /** The floor on many paths at once, laid out as `many-paths`. */
  floorManyPaths: 'floor-many-paths',
  /** The floor with Curator's protected node names (`_c_<uuid>-lock-`), as our Mutex names them. */
  floorNamed: 'floor-named',
  /** `floor-many-paths` with Curator's protected node names, as `floor-named`. */
  floorManyPathsNamed: 'floor-many-paths-named',
} as const;
export type ProbeLock = (typeof PROBE_LOCK)[keyof typeof PROBE_LOCK];

/**
 * The timeout every acquire of ours passes unless the spec says `bare`: users call acquire with
 * one (the README's Quick start does), so the figures are measured that way. Long enough never to
 * fire on a loaded machine; a timeout that fired would fail the case, not skew it.
 */
export const ACQUIRE_TIMEOUT_MS = 30_000;

export interface ProbeSpec {
  lock: ProbeLock;
  server: string;
  /** The lock path (many-paths: the parent of the paths). */
  path: string;
  /** Sessions, one contender each (many-paths: each session contends on every path). */
  sessions: number;
  /** many-paths (ours, the floor, the official recipe): number of lock paths. */
  paths?: number;
  /**
   * many-paths layout: `every-path` (default) has each session contend on every path (one
   * contender per path and session); `one-path` has session i contend on path i mod paths only,
   * one contender per session, so `sessions` = paths x contenders per path.
   */
  layout?: 'every-path' | 'one-path';
  /**
   * The floor: read through node:net's `onread` into a shared buffer, as our Node transport does,
   * instead of 'data' events (bench/baselines/floor.ts). Not used by bench/main.ts: for a probe run
   * by hand that tells the read path's share of a difference.
   */
  floorReads?: 'data' | 'onread';
  /** Ours: call `acquire()` with no options instead of `acquire({ timeout: ACQUIRE_TIMEOUT_MS })`. */
  bare?: boolean;
  /** rwlock: share of reads; semaphore: number of leases. */
  readShare?: number;
  leases?: number;
  seed: number;
  timing: Timing;
}

export interface ProbeResult {
  rounds: RoundResult[];
  /** Acquisitions over the whole run, warm-up included. */
  acquisitions: number;
  /** Watch events delivered to the recipe (all of them / on the receiver's own node). */
  notifications: number;
  ownNodeNotifications?: number;
}
