// The team's targets, evaluated against figures of the same run. Reported, never asserted: a
// target that does not hold changes no exit code.

import { CEILING_CASE } from './scenarios/ceiling.js';
import { MANY_PATHS_CASE } from './scenarios/many-paths.js';
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
}

function ratioTarget(
  name: string,
  goal: string,
  ours: number | undefined,
  baseline: number | undefined,
  holds: (ratio: number) => boolean,
  { format = times, floor }: RatioOptions = {},
): TargetResult {
  if (ours === undefined || baseline === undefined || !(baseline > 0)) {
    return { name, goal, measured: 'n/a (not measured)', holds: undefined };
  }
  const ratio = ours / baseline;
  const beside = floor === undefined ? '' : ` (floor ${format(floor / baseline)})`;
  return { name, goal, measured: `${format(ratio)}${beside}`, holds: holds(ratio) };
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
  const mutex1 = mutexCaseName(1);
  const mutex16 = mutexCaseName(16);
  const getDataPipelined = rawCaseName('getData', PIPELINE_WINDOW);
  const ceilings = [IMPL.ours, IMPL.java]
    .map((impl) => value('ceiling', CEILING_CASE, impl))
    .filter((v): v is number => v !== undefined);
  const ceiling = ceilings.length > 0 ? Math.max(...ceilings) : undefined;
  const percent = (r: number) => `${(r * 100).toFixed(0)}%`;
  const rawBaselines = [IMPL.java, IMPL.nzk]
    .map((impl) => value('raw', getDataPipelined, impl))
    .filter((v): v is number => v !== undefined);
  const lockExtra = (name: string, impl: Impl, key: string) =>
    findFigure(figures, 'mutex', name, impl)?.extra?.[key];
  const cpu = (impl: Impl) =>
    findFigure(figures, 'raw', getDataPipelined, impl)?.extra?.cpuMicrosPerOp;
  return [
    ratioTarget(
      'uncontended lock cycle (mutex x1) vs Curator',
      '>= 1.5x',
      value('mutex', mutex1, IMPL.ours),
      value('mutex', mutex1, IMPL.curator),
      (r) => r >= 1.5,
    ),
    ratioTarget(
      '16-way contended handoffs/s vs Curator',
      '>= 1.8x',
      value('mutex', mutex16, IMPL.ours),
      value('mutex', mutex16, IMPL.curator),
      (r) => r >= 1.8,
      { floor: value('mutex', mutex16, IMPL.floor) },
    ),
    ratioTarget(
      '16-way contended handoffs/s vs node-zookeeper-client official recipe',
      '>= 1.3x',
      value('mutex', mutex16, IMPL.ours),
      value('mutex', mutex16, IMPL.nzk),
      (r) => r >= 1.3,
      { floor: value('mutex', mutex16, IMPL.floor) },
    ),
    ratioTarget(
      'client CPU per 16-way contended acquisition vs the official recipe',
      '<= 0.5x',
      lockExtra(mutex16, IMPL.ours, 'cpuMicrosPerOp'),
      lockExtra(mutex16, IMPL.nzk, 'cpuMicrosPerOp'),
      (r) => r <= 0.5,
      { floor: lockExtra(mutex16, IMPL.floor, 'cpuMicrosPerOp') },
    ),
    ratioTarget(
      'server requests per 16-way handoff vs the official recipe',
      '<= 1.0x',
      lockExtra(mutex16, IMPL.ours, 'serverRequestsPerOp'),
      lockExtra(mutex16, IMPL.nzk, 'serverRequestsPerOp'),
      (r) => r <= 1.005,
    ),
    ratioTarget(
      'server watch events per 16-way handoff vs the official recipe',
      '<= 1.0x',
      lockExtra(mutex16, IMPL.ours, 'serverWatchEventsPerOp'),
      lockExtra(mutex16, IMPL.nzk, 'serverWatchEventsPerOp'),
      (r) => r <= 1.005,
    ),
    ratioTarget(
      'many-path aggregate vs server write ceiling (best of ours/Java, pairs/s)',
      '>= 45%',
      value('many-paths', MANY_PATHS_CASE, IMPL.ours),
      ceiling,
      (r) => r >= 0.45,
      { format: percent, floor: value('many-paths', MANY_PATHS_CASE, IMPL.floor) },
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
      'heap per idle session',
      '<= 50 KiB',
      figures.find((f) => f.scenario === 'heap' && f.impl === IMPL.ours)?.value,
      50 * KIB,
    ),
    valueTarget(
      'min+gzip size, client + locks',
      '<= 25 KiB',
      value('size', SIZE_CASES.clientAndLocks, IMPL.ours),
      25 * KIB,
    ),
  ];
}
