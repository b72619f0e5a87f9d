// What one `zkts bench` run does: the scenario and its settings, checked once, shared by every
// worker process.
import type { AuthInfo } from '../../index.js';
import type { Options } from '../args.js';
import { UsageError } from '../errors.js';
import { type LockKind, parseLockKind } from '../lock.js';

export const SCENARIOS = ['mutex', 'paths', 'rwlock', 'semaphore', 'exclusive', 'raw'] as const;
export type Scenario = (typeof SCENARIOS)[number];

export interface BenchConfig {
  scenario: Scenario;
  /** The connect string the sessions use (chroot allowed). */
  servers: string;
  sessionTimeout: number;
  connectTimeout: number;
  /** Sessions in all, over every process. */
  sessions: number;
  /** Lock paths of the `paths` scenario (sessions spread over them round robin). */
  paths: number;
  durationMs: number;
  warmupMs: number;
  rounds: number;
  /** Bytes of node data (raw nodes, lock nodes). */
  payload: number;
  /** Time a holder keeps the lock, ms. */
  holdMs: number;
  /** Lock kind of the mutex and paths scenarios; the other lock scenarios imply theirs. */
  kind: LockKind;
  naming: 'curator' | 'kazoo';
  /** Share of read acquisitions in the rwlock scenario, percent. */
  readPercent: number;
  /** Requests in flight per session in the pipelined raw operations. */
  depth: number;
  processes: number;
  /** The run's root node. */
  root: string;
  /** `--auth` credentials, added to every measuring session (workers' included). */
  auth: AuthInfo[];
  /** `--sasl` DIGEST-MD5 credentials of every measuring session, when given. */
  sasl?: { username: string; password: string };
}

const MAX_SESSIONS = 10_000;

/** Reads and checks the options of `zkts bench`. */
export function benchConfig(
  options: Options,
  positionals: readonly string[],
  globals: {
    servers: string;
    sessionTimeout: number;
    timeout: number;
    auth?: AuthInfo[];
    sasl?: { username: string; password: string };
  },
  runId: string,
): BenchConfig {
  const scenario = (positionals[0] ?? 'mutex') as Scenario;
  if (!SCENARIOS.includes(scenario)) {
    throw new UsageError(`unknown scenario "${scenario}"; scenarios: ${SCENARIOS.join(', ')}`);
  }
  const kindText = options.string('kind');
  const lockScenario = scenario === 'mutex' || scenario === 'paths';
  if (kindText !== undefined && !lockScenario && scenario !== 'semaphore') {
    throw new UsageError(
      `--kind applies to the mutex, paths and semaphore scenarios, not ${scenario}`,
    );
  }
  let kind: LockKind = kindText === undefined ? { type: 'mutex' } : parseLockKind(kindText);
  if (scenario === 'semaphore') {
    if (kindText !== undefined && kind.type !== 'semaphore') {
      throw new UsageError('the semaphore scenario takes --kind semaphore:N only');
    }
    if (kindText === undefined) kind = { type: 'semaphore', leases: 4 };
  }
  if (scenario === 'exclusive') kind = { type: 'exclusive' };
  const naming = options.string('naming') ?? 'curator';
  if (naming !== 'curator' && naming !== 'kazoo') {
    throw new UsageError(`--naming must be curator or kazoo, got "${naming}"`);
  }
  if (naming === 'kazoo' && !(lockScenario && kind.type === 'mutex')) {
    throw new UsageError(
      '--naming kazoo applies to mutex locks only (kazoo has no Curator-style read/write or semaphore nodes)',
    );
  }
  const sessions = options.integer('sessions', 1, MAX_SESSIONS) ?? 8;
  const processes = options.integer('processes', 1, 64) ?? 1;
  if (processes > sessions) {
    throw new UsageError(
      `--processes ${processes} needs at least as many --sessions (got ${sessions})`,
    );
  }
  const root = options.string('root') ?? `/zkts-bench/${runId}`;
  if (!root.startsWith('/') || root === '/' || root.endsWith('/') || root.includes('//')) {
    throw new UsageError(`--root must be an absolute path below /, got "${root}"`);
  }
  return {
    scenario,
    servers: globals.servers,
    sessionTimeout: globals.sessionTimeout,
    connectTimeout: globals.timeout,
    sessions,
    paths: options.integer('paths', 1, MAX_SESSIONS) ?? 8,
    durationMs: options.integer('duration', 1, 24 * 3_600_000) ?? 5_000,
    warmupMs: options.integer('warmup', 0, 3_600_000) ?? 1_000,
    rounds: options.integer('rounds', 1, 1_000) ?? 1,
    payload: options.integer('payload', 0, 1_000_000) ?? 0,
    holdMs: options.integer('hold', 0, 3_600_000) ?? 0,
    kind,
    naming,
    readPercent: options.integer('read-percent', 0, 100) ?? 90,
    depth: options.integer('depth', 1, 10_000) ?? 32,
    processes,
    root,
    // Strings only: the config travels to the worker processes as JSON.
    auth: (globals.auth ?? []).map(({ scheme, credentials }) => ({
      scheme,
      credentials:
        typeof credentials === 'string' ? credentials : new TextDecoder().decode(credentials),
    })),
    ...(globals.sasl ? { sasl: globals.sasl } : {}),
  };
}

/** The lock paths a lock scenario uses, relative to the root. */
export function lockPaths(config: BenchConfig): string[] {
  switch (config.scenario) {
    case 'paths':
      return Array.from({ length: config.paths }, (_, i) => `${config.root}/p${i}`);
    case 'raw':
      return [];
    default:
      return [`${config.root}/${config.scenario}`];
  }
}

/** The raw operations, run one after the other, each sequential then pipelined. */
export const RAW_OPS = ['getData', 'setData', 'create+delete'] as const;
export type RawOp = (typeof RAW_OPS)[number];
export const RAW_CASES = RAW_OPS.flatMap((op) =>
  (['sequential', 'pipelined'] as const).map((mode) => ({ op, mode, name: `${op} ${mode}` })),
);

/** The windows of one measured case: a warm-up then `rounds` windows, from `start`. */
export function caseLength(config: BenchConfig): number {
  return config.warmupMs + config.rounds * config.durationMs;
}

/** How many cases a run has (raw runs its six one after the other). */
export function caseCount(config: BenchConfig): number {
  return config.scenario === 'raw' ? RAW_CASES.length : 1;
}

/** Which session indices process `part` of `parts` runs (contiguous, as even as can be). */
export function sessionsOf(config: BenchConfig, part: number): number[] {
  const from = Math.floor((part * config.sessions) / config.processes);
  const to = Math.floor(((part + 1) * config.sessions) / config.processes);
  return Array.from({ length: to - from }, (_, i) => from + i);
}
