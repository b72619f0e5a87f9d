// The team's targets, evaluated against figures of the same run. Reported, never asserted: a
// target that does not hold changes no exit code.

import { MANY_PATHS_CASE, MANY_SESSIONS_CASE } from './scenarios/many-paths.js';
import { mutexCaseName } from './scenarios/mutex.js';
import { PIPELINE_WINDOW, rawCaseName } from './scenarios/raw.js';
import { SIZE_CASES } from './scenarios/size.js';
import { type Figure, IMPL, type Impl } from './types.js';

export interface TargetResult {
  name: string;
  /** e.g. `>= 1.5x Curator` */
  goal: string;
  /** The measured ratio or value, formatted. */
  measured: string;
  /** undefined when a figure is missing (scenario not run, baseline skipped or failed). */
  holds: boolean | undefined;
}

export const KIB = 1024;

export function findFigure(
  figures: readonly Figure[],
  scenario: string,
  name: string,
  impl: Impl,
): Figure | undefined {
  return figures.find((f) => f.scenario === scenario && f.case === name && f.impl === impl);
}

const times = (r: number) => `${r.toFixed(2)}x`;

interface RatioOptions {
  /** How the ratio is printed (default `1.23x`). */
  format?: (ratio: number) => string;
  /**
   * The floor's figure (the same safe recipe with the least client work, same run), printed as
   * its own ratio beside ours: where the floor misses a target too, the target asks for more than
   * the recipe's requests allow on this machine, whatever the client.
   */
  floor?: number | undefined;
  /** Per-round ratios of interleaved figures: the target must hold in each of them too. */
  rounds?: number[] | undefined;
}

function ratioTarget(
  name: string,
  goal: string,
  ours: number | undefined,
  baseline: number | undefined,
  holds: (ratio: number) => boolean,
  { format = times, floor, rounds }: RatioOptions = {},
): TargetResult {
  if (ours === undefined || baseline === undefined || !(baseline > 0)) {
    return { name, goal, measured: 'n/a (not measured)', holds: undefined };
  }
  const ratio = ours / baseline;
  const beside = floor === undefined ? '' : ` (floor ${format(floor / baseline)})`;
  if (rounds === undefined) {
    return { name, goal, measured: `${format(ratio)}${beside}`, holds: holds(ratio) };
  }
  // "In every round": the median and the worst interleaved round must both meet the goal.
  const worst = rounds.length > 0 ? Math.min(...rounds) : Number.NaN;
  return {
    name,
    goal: `${goal} in every round`,
    measured: `${format(ratio)}, worst round ${format(worst)}${beside}`,
    holds: holds(ratio) && rounds.length > 0 && rounds.every(holds),
  };
}

function valueTarget(
  name: string,
  goal: string,
  value: number | undefined,
  limit: number,
): TargetResult {
  if (value === undefined) return { name, goal, measured: 'n/a (not measured)', holds: undefined };
  return { name, goal, measured: `${(value / KIB).toFixed(1)} KiB`, holds: value <= limit };
}

export function evaluateTargets(figures: readonly Figure[]): TargetResult[] {
  const value = (scenario: string, name: string, impl: Impl) =>
    findFigure(figures, scenario, name, impl)?.value;
  const extra = (scenario: string, name: string, impl: Impl, key: string) =>
    findFigure(figures, scenario, name, impl)?.extra?.[key];
  /** Throughput ratio of ours to `impl`, round by round (interleaved figures only). */
  const perRound = (scenario: string, name: string, impl: Impl): number[] | undefined => {
    const a = findFigure(figures, scenario, name, IMPL.ours);
    const b = findFigure(figures, scenario, name, impl);
    const ra = a?.summary?.rounds;
    const rb = b?.summary?.rounds;
    if (!a?.interleaved || !b?.interleaved || !ra || !rb || ra.length !== rb.length) return;
    return ra.map((round, i) => round.throughput / rb[i]!.throughput);
  };
  const mutex1 = mutexCaseName(1);
  const mutex16 = mutexCaseName(16);
  const getDataPipelined = rawCaseName('getData', PIPELINE_WINDOW);
  const rawBaselines = [IMPL.java, IMPL.nzk]
    .map((impl) => value('raw', getDataPipelined, impl))
    .filter((v): v is number => v !== undefined);
  const cpu = (impl: Impl) => extra('raw', getDataPipelined, impl, 'cpuMicrosPerOp');
  const loaded = figures.some((f) => f.loaded !== undefined);
  const idle = (impl: Impl) => figures.find((f) => f.scenario === 'heap' && f.impl === impl)?.value;
  const targets: TargetResult[] = [
    ratioTarget(
      '16-way contended handoffs/s vs the floor',
      '>= 0.95x',
      value('mutex', mutex16, IMPL.ours),
      value('mutex', mutex16, IMPL.floor),
      (r) => r >= 0.95,
    ),
    ratioTarget(
      '16-way contended handoffs/s vs node-zookeeper-client official recipe',
      '>= 1.2x',
      value('mutex', mutex16, IMPL.ours),
      value('mutex', mutex16, IMPL.nzk),
      (r) => r >= 1.2,
      {
        floor: value('mutex', mutex16, IMPL.floor),
        rounds: perRound('mutex', mutex16, IMPL.nzk),
      },
    ),
    ratioTarget(
      '16-way contended handoffs/s vs Curator',
      '>= 1.5x',
      value('mutex', mutex16, IMPL.ours),
      value('mutex', mutex16, IMPL.curator),
      (r) => r >= 1.5,
      {
        floor: value('mutex', mutex16, IMPL.floor),
        rounds: perRound('mutex', mutex16, IMPL.curator),
      },
    ),
    ratioTarget(
      'client CPU per 16-way contended acquisition vs the floor',
      '<= 1.2x',
      extra('mutex', mutex16, IMPL.ours, 'cpuMicrosPerOp'),
      extra('mutex', mutex16, IMPL.floor, 'cpuMicrosPerOp'),
      (r) => r <= 1.2,
    ),
    ratioTarget(
      'server requests per 16-way handoff vs the official recipe',
      '<= 1.0x',
      extra('mutex', mutex16, IMPL.ours, 'serverRequestsPerOp'),
      extra('mutex', mutex16, IMPL.nzk, 'serverRequestsPerOp'),
      (r) => r <= 1.005,
    ),
    ratioTarget(
      'server watch events per 16-way handoff vs the official recipe',
      '<= 1.0x',
      extra('mutex', mutex16, IMPL.ours, 'serverWatchEventsPerOp'),
      extra('mutex', mutex16, IMPL.nzk, 'serverWatchEventsPerOp'),
      (r) => r <= 1.005,
    ),
    ratioTarget(
      `${MANY_PATHS_CASE}: acquisitions/s vs the floor`,
      '>= 0.95x',
      value('many-paths', MANY_PATHS_CASE, IMPL.ours),
      value('many-paths', MANY_PATHS_CASE, IMPL.floor),
      (r) => r >= 0.95,
    ),
    ratioTarget(
      `${MANY_SESSIONS_CASE}: acquisitions/s vs the floor`,
      '>= 0.95x',
      value('many-paths', MANY_SESSIONS_CASE, IMPL.ours),
      value('many-paths', MANY_SESSIONS_CASE, IMPL.floor),
      (r) => r >= 0.95,
    ),
    ratioTarget(
      'uncontended lock cycle (mutex x1) vs Curator',
      '>= 1.5x',
      value('mutex', mutex1, IMPL.ours),
      value('mutex', mutex1, IMPL.curator),
      (r) => r >= 1.5,
    ),
    ratioTarget(
      'uncontended lock cycle (mutex x1) vs the floor',
      '>= 0.95x',
      value('mutex', mutex1, IMPL.ours),
      value('mutex', mutex1, IMPL.floor),
      (r) => r >= 0.95,
    ),
    ratioTarget(
      'heap per idle session vs node-zookeeper-client',
      '<= 1.0x',
      idle(IMPL.ours),
      idle(IMPL.nzk),
      (r) => r <= 1,
    ),
    ratioTarget(
      'pipelined getData vs faster of Java and node-zookeeper-client',
      '>= 1.0x',
      value('raw', getDataPipelined, IMPL.ours),
      rawBaselines.length === 2 ? Math.max(...rawBaselines) : undefined,
      (r) => r >= 1,
    ),
    ratioTarget(
      'client CPU per op (getData pipelined) vs node-zookeeper-client',
      '<= 0.5x',
      cpu(IMPL.ours),
      cpu(IMPL.nzk),
      (r) => r <= 0.5,
    ),
    valueTarget(
      'min+gzip size, client + locks',
      '<= 25 KiB',
      value('size', SIZE_CASES.clientAndLocks, IMPL.ours),
      25 * KIB,
    ),
  ];
  // Beside the neighbour (--neighbour) every figure is the loaded variant: say so on each target.
  return loaded ? targets.map((t) => ({ ...t, name: `[loaded] ${t.name}` })) : targets;
}
