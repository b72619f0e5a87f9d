// What scenarios produce and what they are given.
import type { Client } from '../src/index.js';
import type { JavaRunner } from './baselines/java.js';
import type { Progress } from './progress.js';
import type { Percentiles, Summary, Timing } from './stats.js';

export const IMPL = {
  /** Ours as users call it: every acquire with a timeout (bench/lock-probe-spec.ts). */
  ours: 'zookeeper-ts',
  /** Ours with `acquire()` and no options: the difference to `ours` is what the timeout costs. */
  oursBare: 'zookeeper-ts, bare acquire()',
  nzk: 'node-zookeeper-client',
  /** The same recipe without the re-list after a wake: unsafe once a contender gives up. */
  nzkNoRelist: 'node-zookeeper-client no-re-list',
  /** The safe recipe on hand-built frames over a raw socket: what any client could reach. */
  floor: 'floor (raw socket, safe recipe)',
  /**
   * The floor with our default node names (Curator's protected `_c_<uuid>-lock-` names): how much
   * of the server's and the client's work per handoff is the names' length, not the library.
   */
  floorNamed: 'floor, Curator node names',
  java: 'zookeeper-java',
  curator: 'curator',
} as const;
export type Impl = (typeof IMPL)[keyof typeof IMPL];

/** Identifies one measured case of one implementation. */
export interface CaseId {
  scenario: string;
  case: string;
  impl: Impl;
}

/** One measured figure: the headline value (median over rounds) and what explains it. */
export interface Figure extends CaseId {
  unit: string;
  value: number;
  latency?: Percentiles;
  /** Rounds and medians, for timed cases. */
  summary?: Summary;
  /** Secondary figures: fairness, CPU per op, notifications per release, pairs/s, ... */
  extra?: Record<string, number>;
  note?: string;
  /**
   * Round i of this figure ran alongside round i of the other implementations of the case (one
   * fresh process each, interleaved): per-round ratios compare measurements taken together.
   */
  interleaved?: boolean;
  /**
   * Measured beside a CPU-bound neighbour (`--neighbour`): the share of each core it kept busy.
   * The loaded variant of the case; ratios compare figures of the same run, so both sides carry it.
   */
  loaded?: number;
}

export interface Skip extends CaseId {
  reason: string;
}

export interface Failure extends CaseId {
  error: string;
}

export interface Results {
  figures: Figure[];
  skipped: Skip[];
  failures: Failure[];
}

export interface BenchContext {
  /** Connect string of the server under test. */
  server: string;
  /** Znode under which this run creates everything (deleted at the end). */
  root: string;
  /** A session for setting up and cleaning up, never measured. */
  admin: Client;
  timing: Timing;
  quick: boolean;
  seed: number;
  /** `--contenders`: the mutex scenario's contender counts instead of its own (undefined: its own). */
  contenders: readonly number[] | undefined;
  java: JavaRunner | undefined;
  /** Why the Java baselines are skipped, when they are. */
  javaSkipped: string | undefined;
  progress: Progress;
  results: Results;
  /** The server's `mntr` counters (first host), or undefined when it does not answer. */
  serverStats(): Promise<Record<string, string> | undefined>;
  /** CPU time used by the server process so far (ms), when it is a local process we started. */
  serverCpuMs(): number | undefined;
  /** A fresh, existing (persistent) znode for one case. */
  casePath(slug: string): Promise<string>;
}

export interface Scenario {
  name: string;
  description: string;
  /** Part of the `--quick` smoke run. */
  quick: boolean;
  /** Runs only when named with `--scenario` (the scale cases: minutes each, thousands of sessions). */
  optIn?: boolean;
  run(ctx: BenchContext): Promise<void>;
}
