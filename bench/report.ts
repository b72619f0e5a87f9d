// The run's output: a table of figures, a table of ratios against the baselines of the same run,
// the targets, the JSON files and the chart.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lockChartSvg } from './chart.js';
import { MODEL_BANNER } from './model-banner.js';
import { REPO_DIR } from './paths.js';
import type { RoundResult } from './stats.js';
import { evaluateTargets, type TargetResult } from './targets.js';
import { type Figure, IMPL, type Results } from './types.js';

export interface RunMeta {
  startedAt: string;
  finishedAt: string;
  command: string;
  node: string;
  platform: string;
  cpus: number;
  /** 1-minute load average at the start and end of the run. */
  loadAverage: { start: number; end: number };
  server: {
    connectString: string;
    origin: string;
    fsync: boolean | undefined;
    version: string | undefined;
    /** JVM flags of a server the run started (`--server-jvm`). */
    jvm?: 'bench' | 'test';
    /** Set when the server was the in-process model, not ZooKeeper: why. */
    model?: string;
  };
  java: string | undefined;
  timing: { warmupMs: number; durationMs: number; rounds: number };
  quick: boolean;
  seed: number;
  scenarios: string[];
  /**
   * `--neighbour`: the busy processes beside the run, the share each aimed at, and the cores'
   * worth of CPU they actually got over the run (their CPU time / wall time, summed).
   */
  neighbour?: { share: number; processes: number; cores: number | undefined };
}

export interface Ratio {
  scenario: string;
  case: string;
  /** What is compared: the headline value, or client CPU per op. */
  figure: 'value' | 'cpuMicrosPerOp';
  /** Unit of the headline value. */
  unit: string;
  baseline: string;
  ours: number;
  theirs: number;
  /** ours / theirs. Higher is better for throughput, lower for CPU and bytes. */
  ratio: number;
  /** Interleaved cases: the same ratio round by round (round i of each ran back to back). */
  perRound?: number[];
  /** Both figures measured beside the CPU-bound neighbour at this share (`--neighbour`). */
  loaded?: number;
}

/** Round-by-round ratios of two interleaved figures (undefined when not both interleaved). */
function roundRatios(
  ours: Figure,
  theirs: Figure,
  pick: (round: RoundResult) => number | undefined,
): number[] | undefined {
  const a = ours.summary?.rounds;
  const b = theirs.summary?.rounds;
  if (!ours.interleaved || !theirs.interleaved || !a || !b || a.length !== b.length) return;
  return a.map((round, i) => (pick(round) ?? Number.NaN) / (pick(b[i]!) ?? Number.NaN));
}

/** ours / baseline for every case measured for both. */
export function ratios(figures: readonly Figure[]): Ratio[] {
  const out: Ratio[] = [];
  for (const ours of figures.filter((f) => f.impl === IMPL.ours)) {
    for (const theirs of figures) {
      if (theirs.impl === IMPL.ours || theirs.scenario !== ours.scenario) continue;
      if (theirs.case !== ours.case) continue;
      const base = {
        scenario: ours.scenario,
        case: ours.case,
        unit: ours.unit,
        baseline: theirs.impl,
        ...(ours.loaded === undefined ? {} : { loaded: ours.loaded }),
      };
      const value: Ratio = {
        ...base,
        figure: 'value',
        ours: ours.value,
        theirs: theirs.value,
        ratio: ours.value / theirs.value,
      };
      const valueRounds = roundRatios(ours, theirs, (r) => r.throughput);
      if (valueRounds) value.perRound = valueRounds;
      out.push(value);
      const cpuOurs = ours.extra?.cpuMicrosPerOp;
      const cpuTheirs = theirs.extra?.cpuMicrosPerOp;
      if (cpuOurs !== undefined && cpuTheirs !== undefined) {
        const cpu: Ratio = {
          ...base,
          figure: 'cpuMicrosPerOp',
          ours: cpuOurs,
          theirs: cpuTheirs,
          ratio: cpuOurs / cpuTheirs,
        };
        const cpuRounds = roundRatios(ours, theirs, (r) => r.cpuMicrosPerOp);
        if (cpuRounds) cpu.perRound = cpuRounds;
        out.push(cpu);
      }
    }
  }
  return out;
}

function fmt(value: number | undefined, digits = 0): string {
  if (value === undefined || !Number.isFinite(value)) return '-';
  return value.toLocaleString('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

function ms(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '-';
  return value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0);
}

/** Secondary figures, in words. */
function describeExtra(figure: Figure): string {
  const e = figure.extra ?? {};
  const per = figure.unit === 'acq/s' ? 'acq' : 'op';
  const parts: string[] = [];
  const rounds = figure.summary?.rounds.map((r) => r.throughput) ?? [];
  if (rounds.length > 1) {
    // The spread tells how far to trust a ratio: on shared cores rounds differ a lot.
    const scale = figure.unit === 'pairs/s' ? 0.5 : 1;
    parts.push(`rounds ${fmt(Math.min(...rounds) * scale)}–${fmt(Math.max(...rounds) * scale)}`);
  }
  if (e.cpuMicrosPerOp !== undefined)
    parts.push(`client cpu ${fmt(e.cpuMicrosPerOp, 1)} µs/${per}`);
  const server: string[] = [];
  if (e.serverRequestsPerOp !== undefined) server.push(`${fmt(e.serverRequestsPerOp, 1)} req`);
  if (e.serverWatchEventsPerOp !== undefined)
    server.push(`${fmt(e.serverWatchEventsPerOp, 2)} watch events`);
  if (e.serverCpuMicrosPerOp !== undefined) server.push(`${fmt(e.serverCpuMicrosPerOp, 1)} µs cpu`);
  if (server.length > 0) parts.push(`server ${server.join(', ')} per ${per}`);
  if (e.pairsPerSecond !== undefined) parts.push(`${fmt(e.pairsPerSecond)} pairs/s`);
  if (e.writeOpsPerSecond !== undefined) parts.push(`${fmt(e.writeOpsPerSecond)} writes/s`);
  if (e.handoffP50Ms !== undefined) {
    parts.push(
      `handoff p50/p99/p99.9 ${ms(e.handoffP50Ms)}/${ms(e.handoffP99Ms)}/${ms(e.handoffP999Ms)} ms`,
    );
  }
  if (e.fairnessMin !== undefined && e.fairnessMax !== undefined)
    parts.push(`fairness min/max ${fmt(e.fairnessMin)}/${fmt(e.fairnessMax)}`);
  if (e.notificationsPerRelease !== undefined) {
    const own = e.ownNodeNotificationsPerRelease;
    parts.push(
      `client got ${fmt(e.notificationsPerRelease, 2)} notif/release` +
        (own !== undefined ? ` (${fmt(own, 2)} on the releaser's own node)` : ''),
    );
  }
  if (e.minifiedBytes !== undefined) parts.push(`${fmt(e.minifiedBytes)} B minified`);
  if (e.externalBytesPerSession !== undefined)
    parts.push(`external ${fmt(e.externalBytesPerSession)} B/session`);
  if (e.timersPerSession !== undefined)
    parts.push(
      `${fmt(e.timersPerSession, 2)} timers and ${fmt(e.socketsPerSession, 2)} sockets per session`,
    );
  if (figure.note) parts.push(figure.note);
  return parts.join('; ');
}

/** Sizes and memory are better when lower; everything else here is a rate. */
function unitLabel(unit: string): string {
  return unit.startsWith('bytes') ? `${unit} (lower is better)` : unit;
}

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

export function figuresTable(figures: readonly Figure[]): string {
  return table(
    ['scenario', 'case', 'client', 'value', 'unit', 'p50 ms', 'p99 ms', 'p99.9 ms', 'notes'],
    figures.map((f) => [
      f.scenario,
      caseLabel(f),
      f.impl,
      fmt(f.value),
      f.unit,
      ms(f.latency?.p50),
      ms(f.latency?.p99),
      ms(f.latency?.p999),
      describeExtra(f),
    ]),
  );
}

/** The case, marked when it ran beside the CPU-bound neighbour (the loaded variant). */
function caseLabel(figure: Pick<Figure, 'case' | 'loaded'>): string {
  return figure.loaded === undefined
    ? figure.case
    : `${figure.case} [loaded ${Math.round(figure.loaded * 100)}%]`;
}

export function ratiosTable(list: readonly Ratio[]): string {
  return table(
    ['scenario', 'case', 'figure', 'vs', 'ours', 'theirs', 'ours/theirs', 'per round'],
    list.map((r) => [
      r.scenario,
      caseLabel(r),
      r.figure === 'value' ? unitLabel(r.unit) : 'CPU µs/op (lower is better)',
      r.baseline,
      fmt(r.ours, r.figure === 'value' ? 0 : 1),
      fmt(r.theirs, r.figure === 'value' ? 0 : 1),
      `${fmt(r.ratio, 2)}x`,
      r.perRound?.map((x) => fmt(x, 2)).join(' ') ?? '-',
    ]),
  );
}

export function targetsTable(targets: readonly TargetResult[]): string {
  return table(
    ['target', 'goal', 'measured', 'status'],
    targets.map((t) => [
      t.name,
      t.goal,
      t.measured,
      t.holds === undefined ? 'not measured' : t.holds ? 'holds' : 'does not hold',
    ]),
  );
}

export interface Report {
  text: string;
  files: string[];
}

/** Prints nothing itself: returns the text for stdout and writes the files under `dir`. */
export function writeReport(meta: RunMeta, results: Results, dir: string): Report {
  const ratioList = ratios(results.figures);
  const targets = evaluateTargets(results.figures);
  const fsync =
    meta.server.fsync === undefined
      ? 'unknown'
      : meta.server.fsync
        ? 'forceSync=yes'
        : 'forceSync=no';
  const server =
    meta.server.model === undefined
      ? `server ${meta.server.connectString} (${meta.server.origin}, ZooKeeper ${meta.server.version ?? '?'}, ${fsync})`
      : `server ${meta.server.connectString} (${meta.server.origin}; ${meta.server.model})`;
  const sections = [
    `zookeeper-ts benchmark — ${meta.finishedAt}`,
    ...(meta.server.model === undefined ? [] : [MODEL_BANNER]),
    `${server}; ` +
      `node ${meta.node}; ${meta.java ?? 'no Java'}; ${meta.cpus} cpus, load ${meta.loadAverage.start.toFixed(1)} → ${meta.loadAverage.end.toFixed(1)}`,
    ...(meta.neighbour
      ? [
          `LOADED: beside a CPU-bound neighbour, ${meta.neighbour.processes} processes each busy ${Math.round(meta.neighbour.share * 100)}% of the time` +
            (meta.neighbour.cores === undefined
              ? ''
              : ` (they got ${meta.neighbour.cores.toFixed(2)} cores' worth of CPU over the run)`),
        ]
      : []),
    `warm-up ${meta.timing.warmupMs} ms, then ${meta.timing.rounds} rounds of ${meta.timing.durationMs} ms; figures are medians of rounds; seed ${meta.seed}${meta.quick ? '; --quick' : ''}`,
    '',
    '## Figures',
    figuresTable(results.figures),
    '',
    '## Ratios (ours / baseline, same run, same server)',
    ratioList.length > 0 ? ratiosTable(ratioList) : '(no baseline measured)',
    '',
    '## Targets (reported, not asserted)',
    targetsTable(targets),
  ];
  if (results.skipped.length > 0) {
    const reasons = new Map<string, string[]>();
    for (const s of results.skipped) {
      const list = reasons.get(`${s.impl}: ${s.reason}`) ?? [];
      list.push(`${s.scenario} › ${s.case}`);
      reasons.set(`${s.impl}: ${s.reason}`, list);
    }
    sections.push('', '## Skipped');
    for (const [reason, cases] of reasons) sections.push(`- ${reason} (${cases.length} case(s))`);
  }
  if (results.failures.length > 0) {
    sections.push('', '## Failures');
    for (const f of results.failures)
      sections.push(`- ${f.scenario} › ${f.case} › ${f.impl}: ${f.error.split('\n')[0]}`);
  }
  const text = sections.join('\n');

  mkdirSync(dir, { recursive: true });
  const json = `${JSON.stringify({ meta, ...results, ratios: ratioList, targets }, jsonNumbers, 2)}\n`;
  const stamp = meta.startedAt.replace(/[:.]/g, '-');
  const run = join(dir, `run-${stamp}.json`);
  writeFileSync(run, json);
  if (!isGoodRun(results)) {
    // A run whose set-up failed measured nothing: the last good results and chart stay.
    formatJson([run]);
    return {
      text: `${text}

The set-up failed, so latest.json and chart.svg still hold the last good run.`,
      files: [run],
    };
  }
  const files = [join(dir, 'latest.json'), run, join(dir, 'chart.svg')];
  writeFileSync(files[0]!, json);
  writeFileSync(files[2]!, lockChartSvg(results.figures, meta));
  formatJson(files.slice(0, 2));
  return { text, files };
}

/** A run that may replace latest.json: its set-up worked and it measured something. */
export function isGoodRun(results: Pick<Results, 'failures' | 'figures'>): boolean {
  return results.figures.length > 0 && !results.failures.some((f) => f.scenario === 'setup');
}

/**
 * The repository's formatter (biome) lays JSON out its own way; let it, so that committed results
 * pass `npm run check`. Best effort: without biome the files are still valid JSON.
 */
function formatJson(files: string[]): void {
  const biome = join(REPO_DIR, 'node_modules', '.bin', 'biome');
  if (!existsSync(biome)) return;
  spawnSync(biome, ['format', '--write', ...files], {
    cwd: REPO_DIR,
    stdio: 'ignore',
    timeout: 30_000,
  });
}

/** JSON has no NaN or Infinity: write null. */
function jsonNumbers(_key: string, value: unknown): unknown {
  return typeof value === 'number' && !Number.isFinite(value) ? null : value;
}
