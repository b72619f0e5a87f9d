// The figures of one or more seeds' runs, as text for people and as JSON for tools.

import { quantile } from './expiries.js';
import { FAULT_KINDS, type FaultKind, type HungRecord, LOCKS, type LockKind } from './records.js';
import type { SeedResult } from './scenario.js';

export interface Summary {
  seeds: number[];
  sessionTimeoutMs: number;
  wallSeconds: number;
  handoffs: Record<LockKind | 'total', number>;
  bySide: Record<'exclusive' | 'read' | 'write' | 'lease', number>;
  faults: Record<FaultKind, number>;
  faultsTotal: number;
  faultsNotTriggered: Partial<Record<FaultKind, number>>;
  violations: number;
  stalls: number;
  orphans: number;
  lingeringWatches: number;
  hung: number;
  unexpectedErrors: number;
  leasesLost: number;
  unfinishedHolds: number;
  longestGapMs: Record<LockKind, number>;
  stallLimitMs: number;
  noQuorumSeconds: number;
  sessionsOpened: number;
  /** Sessions that expired in the workload window, and how many of them their client renewed. */
  expiries: number;
  renewals: number;
  /** Expiries after which the slot never took a lock again. */
  stuckAfterExpiry: number;
  /** ms from an expiry to the renewed session, and to the slot's next acquisition. */
  expiryToRenewalMs: { p50: number; p99: number; max: number };
  expiryToAcquisitionMs: { p50: number; p99: number; max: number };
  maxEventLoopLagMs: number;
  errors: Record<string, number>;
  /** The first few of each problem, to start debugging from. */
  details: {
    violations: string[];
    stalls: string[];
    orphans: string[];
    watches: string[];
    unexpectedErrors: string[];
    hung: string[];
    stuckAfterExpiry: string[];
  };
}

const FIRST = 10;

export function summarize(results: readonly SeedResult[], sessionTimeoutMs: number): Summary {
  const sum = <K extends string>(pick: (r: SeedResult) => Record<K, number>, keys: readonly K[]) =>
    Object.fromEntries(
      keys.map((k) => [k, results.reduce((total, r) => total + (pick(r)[k] ?? 0), 0)]),
    ) as Record<K, number>;
  const all = <T>(pick: (r: SeedResult) => readonly T[]) => results.flatMap((r) => [...pick(r)]);
  const seedOf = (r: SeedResult, text: string) => `seed ${r.seed}: ${text}`;

  const faults = sum((r) => r.verdict.faults, FAULT_KINDS);
  const notTriggered = sum((r) => r.verdict.faultsNotTriggered, FAULT_KINDS);
  const errors: Record<string, number> = {};
  for (const r of results)
    for (const [key, n] of Object.entries(r.verdict.errors)) errors[key] = (errors[key] ?? 0) + n;
  const hung = results.flatMap((r) =>
    r.records
      .filter((x): x is HungRecord => x.t === 'hung')
      .map((x) => seedOf(r, `${x.proc}: ${x.what}`)),
  );

  return {
    seeds: results.map((r) => r.seed),
    sessionTimeoutMs,
    wallSeconds: Math.round(results.reduce((s, r) => s + r.wallMs, 0) / 1000),
    handoffs: sum((r) => r.verdict.handoffs, [...LOCKS, 'total'] as const),
    bySide: sum((r) => r.verdict.bySide, ['exclusive', 'read', 'write', 'lease'] as const),
    faults,
    faultsTotal: Object.values(faults).reduce((a, b) => a + b, 0),
    faultsNotTriggered: Object.fromEntries(
      Object.entries(notTriggered).filter(([, n]) => n > 0),
    ) as Partial<Record<FaultKind, number>>,
    violations: all((r) => r.verdict.violations).length,
    stalls: all((r) => r.verdict.stalls).length,
    orphans: all((r) => r.verdict.orphans).length,
    lingeringWatches: all((r) => r.verdict.lingeringWatches).length,
    hung: hung.length,
    unexpectedErrors: all((r) => r.verdict.unexpectedErrors).length,
    leasesLost: results.reduce((s, r) => s + r.verdict.leasesLost, 0),
    unfinishedHolds: results.reduce((s, r) => s + r.verdict.unfinishedHolds, 0),
    longestGapMs: Object.fromEntries(
      LOCKS.map((l) => [
        l,
        Math.round(Math.max(0, ...results.map((r) => r.verdict.longestGap[l]))),
      ]),
    ) as Record<LockKind, number>,
    stallLimitMs: results[0]?.verdict.stallLimitMs ?? 2 * sessionTimeoutMs,
    noQuorumSeconds: Number(
      (results.reduce((s, r) => s + r.verdict.noQuorumMs, 0) / 1000).toFixed(1),
    ),
    sessionsOpened: results.reduce((s, r) => s + r.verdict.sessionsOpened, 0),
    expiries: results.reduce((s, r) => s + r.expiries.expiries, 0),
    renewals: results.reduce((s, r) => s + r.expiries.renewals, 0),
    stuckAfterExpiry: all((r) => r.expiries.stuck).length,
    expiryToRenewalMs: spread(all((r) => r.expiries.toRenewalMs)),
    expiryToAcquisitionMs: spread(all((r) => r.expiries.toAcquisitionMs)),
    maxEventLoopLagMs: Math.round(Math.max(0, ...results.map((r) => r.verdict.maxEventLoopLagMs))),
    errors,
    details: {
      violations: results
        .flatMap((r) =>
          r.verdict.violations.map((v) => seedOf(r, `${v.kind} on ${v.lock}: ${v.detail}`)),
        )
        .slice(0, FIRST),
      stalls: results
        .flatMap((r) =>
          r.verdict.stalls.map((s) =>
            seedOf(
              r,
              `${s.lock}: no acquisition for ${Math.round(s.effectiveMs)} ms (with quorum), from ${new Date(s.from).toISOString()}`,
            ),
          ),
        )
        .slice(0, FIRST),
      orphans: results
        .flatMap((r) =>
          r.verdict.orphans.map((o) => seedOf(r, `${o.phase}: ${o.path} owned by ${o.owner}`)),
        )
        .slice(0, FIRST),
      watches: results
        .flatMap((r) =>
          r.verdict.lingeringWatches.map((w) =>
            seedOf(r, `${w.phase}: member ${w.member} ${w.path} for ${w.session}`),
          ),
        )
        .slice(0, FIRST),
      unexpectedErrors: results
        .flatMap((r) =>
          r.verdict.unexpectedErrors.map((e) =>
            seedOf(r, `${e.proc}/${e.slot} ${e.op} ${e.code}: ${e.message}`),
          ),
        )
        .slice(0, FIRST),
      hung: hung.slice(0, FIRST),
      stuckAfterExpiry: results
        .flatMap((r) =>
          r.expiries.stuck.map((x) =>
            seedOf(
              r,
              `${x.proc}/${x.slot}: no lock taken after session ${x.session} expired at ${new Date(x.at).toISOString()}${x.renewed ? '' : ' (never renewed)'}`,
            ),
          ),
        )
        .slice(0, FIRST),
    },
  };
}

function spread(values: readonly number[]): { p50: number; p99: number; max: number } {
  const round = (x: number) => (Number.isFinite(x) ? Math.round(x) : 0);
  return {
    p50: round(quantile(values, 0.5)),
    p99: round(quantile(values, 0.99)),
    max: round(Math.max(0, ...values)),
  };
}

export function formatSummary(s: Summary): string {
  const faults = FAULT_KINDS.filter((k) => s.faults[k] > 0)
    .map((k) => `${k} ${s.faults[k]}`)
    .join(', ');
  const missed = Object.entries(s.faultsNotTriggered)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  const lines = [
    `chaos summary: seeds ${s.seeds.join(', ')}, session timeout ${s.sessionTimeoutMs} ms, ${s.wallSeconds} s`,
    `  handoffs       ${s.handoffs.total} (mutex ${s.handoffs.mutex}, rw ${s.handoffs.rw} = ${s.bySide.read} read + ${s.bySide.write} write, semaphore ${s.handoffs.sem})`,
    `  faults         ${s.faultsTotal}: ${faults || 'none'}${missed ? ` (traps not sprung: ${missed})` : ''}`,
    `  violations     ${s.violations}`,
    `  stalls         ${s.stalls} (longest gap with quorum: mutex ${s.longestGapMs.mutex} ms, rw ${s.longestGapMs.rw} ms, semaphore ${s.longestGapMs.sem} ms; limit ${s.stallLimitMs} ms)`,
    `  orphans        ${s.orphans}`,
    `  watches left   ${s.lingeringWatches}`,
    `  hung           ${s.hung}`,
    `  odd errors     ${s.unexpectedErrors}`,
    `  leases lost    ${s.leasesLost} (signal fired while held); unfinished holds ${s.unfinishedHolds}`,
    `  no quorum      ${s.noQuorumSeconds} s; sessions opened ${s.sessionsOpened}; max event-loop lag ${s.maxEventLoopLagMs} ms`,
    `  expiries       ${s.expiries}, renewed ${s.renewals}, stuck after expiry ${s.stuckAfterExpiry}; expiry to renewal p50 ${s.expiryToRenewalMs.p50} / p99 ${s.expiryToRenewalMs.p99} ms, to the slot's next lock p50 ${s.expiryToAcquisitionMs.p50} / p99 ${s.expiryToAcquisitionMs.p99} ms`,
    `  errors         ${
      Object.entries(s.errors)
        .sort((a, b) => b[1] - a[1])
        .map(([k, n]) => `${k} ${n}`)
        .join(', ') || 'none'
    }`,
  ];
  for (const [title, items] of Object.entries(s.details)) {
    if (items.length === 0) continue;
    lines.push(`  ${title}:`);
    for (const item of items) lines.push(`    - ${item}`);
  }
  return lines.join('\n');
}
