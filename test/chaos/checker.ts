// The chaos checker: a pure function from a run's log to its verdict. It knows nothing about
// servers or timing of its own; everything it judges is in the records.
//
// Safety: a hold is *valid* from `start` until the earlier of `end` and `signalAt` (a holder whose
// lease signal fired was told it may have lost the lock; what it does afterwards does not count).
// No two valid holds of the mutex, or of the write side against any other hold of the read-write
// lock, may overlap; the semaphore never has more than `maxLeases` valid holds at once; fencing
// tokens strictly increase along successive valid holders of the mutex and of the write side.
// Liveness: no lock goes longer than 2x the session timeout without an acquisition, not counting
// time without a quorum nor time it was held to capacity (a long hold is no stall). Hygiene: no contender node and no watch left on the lock paths.
import {
  type AcquiredRecord,
  type ChaosRecord,
  type ErrorRecord,
  FAULT_KINDS,
  type FaultKind,
  type HoldRecord,
  LOCKS,
  type LockKind,
  type OrphanRecord,
  type RunRecord,
  type WatchRecord,
} from './records.js';

export interface CheckOptions {
  /** Negotiated session timeout, ms (default: the `run` start record's). */
  sessionTimeout?: number;
  /** The semaphore's maxLeases (default: the `run` start record's, else 2). */
  maxLeases?: number;
  /** Longest allowed stretch without an acquisition, in session timeouts (default 2). */
  stallFactor?: number;
}

export interface Hold {
  id: string;
  proc: string;
  session: string;
  lock: LockKind;
  side: HoldRecord['side'];
  token: bigint;
  start: number;
  end: number;
  signalAt: number | null;
  /** When the hold stopped counting: min(end, signalAt). */
  validUntil: number;
  /** An `acquired` record without its `hold`: the holder never reported back. */
  unfinished: boolean;
}

/** The fields of a Hold that come from who held it. */
type HolderKey = 'id' | 'proc' | 'session' | 'lock' | 'side' | 'token';

export type ViolationKind = 'overlap' | 'over-capacity' | 'token-order';

export interface Violation {
  kind: ViolationKind;
  lock: LockKind;
  /** The holds involved, earliest first. */
  holds: Hold[];
  detail: string;
}

export interface Stall {
  lock: LockKind;
  from: number;
  to: number;
  /** Length of the stretch minus the time in it without a quorum or with the lock fully held. */
  effectiveMs: number;
}

export interface Verdict {
  handoffs: Record<LockKind | 'total', number>;
  /** Acquisitions by side: exclusive, read, write, lease. */
  bySide: Record<HoldRecord['side'], number>;
  violations: Violation[];
  stalls: Stall[];
  /** Longest stretch without an acquisition (quorum-less and fully-held time excluded), per lock. */
  longestGap: Record<LockKind, number>;
  stallLimitMs: number;
  orphans: OrphanRecord[];
  lingeringWatches: WatchRecord[];
  faults: Record<FaultKind, number>;
  /** Traps armed that never sprang (the operation did not come in time). */
  faultsNotTriggered: Record<FaultKind, number>;
  noQuorumMs: number;
  /** Holds whose lease signal fired while held. */
  leasesLost: number;
  unfinishedHolds: number;
  /** Error counts by `op:code`. */
  errors: Record<string, number>;
  /** Errors the API does not promise (not a ZooKeeperError, or a code no caller should see). */
  unexpectedErrors: ErrorRecord[];
  hung: number;
  sessionsOpened: number;
  sessionsEnded: number;
  maxEventLoopLagMs: number;
}

const ZERO_FAULTS = (): Record<FaultKind, number> =>
  Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>;

export function check(records: readonly ChaosRecord[], options: CheckOptions = {}): Verdict {
  const starts = records.filter((r): r is RunRecord => r.t === 'run' && r.phase === 'start');
  const stops = records.filter((r): r is RunRecord => r.t === 'run' && r.phase === 'stop');
  const runStart = starts[0];
  const sessionTimeout = options.sessionTimeout ?? runStart?.sessionTimeout;
  if (sessionTimeout === undefined)
    throw new Error('check(): no session timeout in options or log');
  const maxLeases = options.maxLeases ?? runStart?.maxLeases ?? 2;
  const times = records.map(timeOf).filter(Number.isFinite);
  const windowStart = runStart?.at ?? Math.min(...times);
  const windowEnd = stops[0]?.at ?? Math.max(...times);
  const stallLimitMs = (options.stallFactor ?? 2) * sessionTimeout;

  const holds = collectHolds(records, windowEnd);
  const valid = holds.filter((h) => h.validUntil > h.start);
  const noQuorum = mergeIntervals(
    records.flatMap((r) => (r.t === 'no-quorum' ? [[r.from, r.to] as [number, number]] : [])),
  );

  const violations = [
    ...exclusive(valid.filter((h) => h.lock === 'mutex')),
    ...readWrite(valid.filter((h) => h.lock === 'rw')),
    ...capacity(
      valid.filter((h) => h.lock === 'sem'),
      maxLeases,
    ),
    ...tokenOrder(valid.filter((h) => h.lock === 'mutex')),
    ...tokenOrder(valid.filter((h) => h.lock === 'rw' && h.side === 'write')),
  ];

  const stalls: Stall[] = [];
  const longestGap = { mutex: 0, rw: 0, sem: 0 } as Record<LockKind, number>;
  for (const lock of LOCKS) {
    const own = holds.filter((h) => h.lock === lock);
    const times = own
      .filter((h) => h.start >= windowStart && h.start <= windowEnd)
      .map((h) => h.start)
      .sort((a, b) => a - b);
    // Time the lock was held to capacity is no stall, however long the holder kept it.
    const excluded = mergeIntervals([...noQuorum, ...busy(own, lock === 'sem' ? maxLeases : 1)]);
    const points = [windowStart, ...times, windowEnd];
    for (let i = 1; i < points.length; i++) {
      const from = points[i - 1]!;
      const to = points[i]!;
      const effectiveMs = to - from - overlapWith(from, to, excluded);
      longestGap[lock] = Math.max(longestGap[lock], effectiveMs);
      if (effectiveMs > stallLimitMs) stalls.push({ lock, from, to, effectiveMs });
    }
  }

  const handoffs = { mutex: 0, rw: 0, sem: 0, total: 0 };
  const bySide = { exclusive: 0, read: 0, write: 0, lease: 0 };
  for (const h of holds) {
    handoffs[h.lock]++;
    handoffs.total++;
    bySide[h.side]++;
  }

  const faults = ZERO_FAULTS();
  const faultsNotTriggered = ZERO_FAULTS();
  const errors: Record<string, number> = {};
  const unexpectedErrors: ErrorRecord[] = [];
  let maxEventLoopLagMs = 0;
  for (const r of records) {
    if (r.t === 'fault') {
      if (r.triggered) faults[r.kind]++;
      else faultsNotTriggered[r.kind]++;
    } else if (r.t === 'error') {
      const key = `${r.op}:${r.code}`;
      errors[key] = (errors[key] ?? 0) + 1;
      if (!r.expected) unexpectedErrors.push(r);
    } else if (r.t === 'lag') {
      maxEventLoopLagMs = Math.max(maxEventLoopLagMs, r.maxMs);
    }
  }

  return {
    handoffs,
    bySide,
    violations,
    stalls,
    longestGap,
    stallLimitMs,
    orphans: uniqueBy(
      records.filter((r): r is OrphanRecord => r.t === 'orphan'),
      (r) => r.path,
    ),
    lingeringWatches: uniqueBy(
      records.filter((r): r is WatchRecord => r.t === 'watch'),
      (r) => `${r.member} ${r.path} ${r.session}`,
    ),
    faults,
    faultsNotTriggered,
    noQuorumMs: noQuorum.reduce((sum, [from, to]) => sum + (to - from), 0),
    leasesLost: holds.filter((h) => h.signalAt !== null).length,
    unfinishedHolds: holds.filter((h) => h.unfinished).length,
    errors,
    unexpectedErrors,
    hung: records.filter((r) => r.t === 'hung').length,
    sessionsOpened: records.filter((r) => r.t === 'session' && r.event === 'open').length,
    sessionsEnded: records.filter((r) => r.t === 'session' && r.event === 'final').length,
    maxEventLoopLagMs,
  };
}

function timeOf(record: ChaosRecord): number {
  switch (record.t) {
    case 'hold':
      return record.start;
    case 'no-quorum':
      return record.from;
    case 'orphan':
    case 'watch':
      return Number.NaN;
    default:
      return record.at;
  }
}

/** Finished holds, plus acquisitions never reported back (taken as held until the run's end). */
function collectHolds(records: readonly ChaosRecord[], runEnd: number): Hold[] {
  const finished = new Map<string, HoldRecord>();
  const acquired: AcquiredRecord[] = [];
  for (const r of records) {
    if (r.t === 'hold') finished.set(r.id, r);
    else if (r.t === 'acquired') acquired.push(r);
  }
  const hold = (r: AcquiredRecord | HoldRecord, times: Omit<Hold, HolderKey>): Hold => ({
    id: r.id,
    proc: r.proc,
    session: r.session,
    lock: r.lock,
    side: r.side,
    token: BigInt(r.token),
    ...times,
  });
  const holds: Hold[] = [];
  for (const r of finished.values()) {
    const validUntil = r.signalAt === null ? r.end : Math.min(r.end, r.signalAt);
    const { start, end, signalAt } = r;
    holds.push(hold(r, { start, end, signalAt, validUntil, unfinished: false }));
  }
  for (const r of acquired) {
    if (finished.has(r.id)) continue;
    const end = Math.max(runEnd, r.at);
    holds.push(hold(r, { start: r.at, end, signalAt: null, validUntil: end, unfinished: true }));
  }
  return holds.sort((a, b) => a.start - b.start || a.validUntil - b.validUntil);
}

/** Any two valid holds that overlap (sweep by start, against the longest-running one so far). */
function exclusive(holds: readonly Hold[]): Violation[] {
  const violations: Violation[] = [];
  let longest: Hold | undefined;
  for (const h of holds) {
    if (longest && h.start < longest.validUntil) violations.push(overlap(longest, h));
    if (!longest || h.validUntil > longest.validUntil) longest = h;
  }
  return violations;
}

/** A writer overlaps nobody; readers may overlap each other. */
function readWrite(holds: readonly Hold[]): Violation[] {
  const violations: Violation[] = [];
  let longestAny: Hold | undefined;
  let longestWrite: Hold | undefined;
  for (const h of holds) {
    const against = h.side === 'write' ? longestAny : longestWrite;
    if (against && h.start < against.validUntil) violations.push(overlap(against, h));
    if (!longestAny || h.validUntil > longestAny.validUntil) longestAny = h;
    if (h.side === 'write' && (!longestWrite || h.validUntil > longestWrite.validUntil))
      longestWrite = h;
  }
  return violations;
}

function overlap(a: Hold, b: Hold): Violation {
  return {
    kind: 'overlap',
    lock: a.lock,
    holds: [a, b],
    detail:
      `${describe(b)} acquired ${(a.validUntil - b.start).toFixed(1)} ms before ` +
      `${describe(a)} stopped counting (its lease signal ${a.signalAt === null ? 'never fired' : `fired at +${(a.signalAt - a.start).toFixed(1)} ms`})`,
  };
}

/** More than `max` valid holds at one moment (one violation per excess episode). */
function capacity(holds: readonly Hold[], max: number): Violation[] {
  const events = holds.flatMap((h) => [
    { at: h.start, delta: 1, hold: h },
    { at: h.validUntil, delta: -1, hold: h },
  ]);
  // Ends before starts at the same instant: touching holds do not overlap.
  events.sort((a, b) => a.at - b.at || a.delta - b.delta);
  const active = new Set<Hold>();
  const violations: Violation[] = [];
  let inExcess = false;
  for (const e of events) {
    if (e.delta > 0) active.add(e.hold);
    else active.delete(e.hold);
    if (active.size > max && !inExcess) {
      inExcess = true;
      const involved = [...active].sort((a, b) => a.start - b.start);
      violations.push({
        kind: 'over-capacity',
        lock: e.hold.lock,
        holds: involved,
        detail: `${active.size} valid holders at once (max ${max}): ${involved.map(describe).join(', ')}`,
      });
    } else if (active.size <= max) {
      inExcess = false;
    }
  }
  return violations;
}

/** Successive valid holders (by start) must carry strictly increasing fencing tokens. */
function tokenOrder(holds: readonly Hold[]): Violation[] {
  const violations: Violation[] = [];
  for (let i = 1; i < holds.length; i++) {
    const a = holds[i - 1]!;
    const b = holds[i]!;
    if (b.token <= a.token) {
      violations.push({
        kind: 'token-order',
        lock: a.lock,
        holds: [a, b],
        detail: `${describe(b)} followed ${describe(a)} with a token not above it`,
      });
    }
  }
  return violations;
}

function describe(h: Hold): string {
  return `${h.id} (${h.side}, session ${h.session}, token ${h.token})`;
}

/** Stretches during which at least `capacity` holders held (by their own account: start..end). */
function busy(holds: readonly Hold[], capacity: number): [number, number][] {
  const events = holds.flatMap((h) => [
    { at: h.start, delta: 1 },
    { at: h.end, delta: -1 },
  ]);
  events.sort((a, b) => a.at - b.at || a.delta - b.delta);
  const out: [number, number][] = [];
  let active = 0;
  let since = 0;
  for (const e of events) {
    const before = active;
    active += e.delta;
    if (before < capacity && active >= capacity) since = e.at;
    else if (before >= capacity && active < capacity && e.at > since) out.push([since, e.at]);
  }
  return out;
}

function mergeIntervals(intervals: [number, number][]): [number, number][] {
  const sorted = intervals.filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0]);
  const merged: [number, number][] = [];
  for (const [from, to] of sorted) {
    const last = merged[merged.length - 1];
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  return merged;
}

function overlapWith(from: number, to: number, intervals: readonly [number, number][]): number {
  let total = 0;
  for (const [a, b] of intervals) total += Math.max(0, Math.min(to, b) - Math.max(from, a));
  return total;
}

function uniqueBy<T>(items: readonly T[], key: (item: T) => string): T[] {
  const seen = new Map<string, T>();
  for (const item of items) if (!seen.has(key(item))) seen.set(key(item), item);
  return [...seen.values()];
}
