// Lets the mutation run (`npm run mutation`, StrykerJS) see through the simulator's child process.
// Stryker switches mutants with a global in the test worker, and learns which tests cover which
// mutants from counters the instrumented code bumps in that global. The worlds run in a child
// process (they replace the process's timers and clock), so the parent passes the active mutant
// down (Stryker's instrumented code reads `__STRYKER_ACTIVE_MUTANT__` from the environment) and
// merges the child's coverage counters back into the running test's. Outside a mutation run
// there is no Stryker global and both helpers do nothing.
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface StrykerGlobal {
  activeMutant?: string;
  currentTestId?: string;
  mutantCoverage?: {
    static: Record<string, number>;
    perTest: Record<string, Record<string, number>>;
  };
}

const COVERAGE_FILE_ENV = 'SIM_STRYKER_COVERAGE_FILE';

function stryker(): StrykerGlobal | undefined {
  return (globalThis as { __stryker__?: StrykerGlobal }).__stryker__;
}

/** The environment for a simulator child: the active mutant, or where to write coverage. */
export function childEnvironment(): { env: NodeJS.ProcessEnv; collect(): void } {
  const ns = stryker();
  if (!ns) return { env: process.env, collect() {} };
  if (ns.activeMutant !== undefined) {
    return {
      env: { ...process.env, __STRYKER_ACTIVE_MUTANT__: String(ns.activeMutant) },
      collect() {},
    };
  }
  const file = join(tmpdir(), `sim-coverage-${process.pid}-${Date.now()}-${Math.random()}.json`);
  return {
    env: { ...process.env, [COVERAGE_FILE_ENV]: file },
    collect() {
      let child: Record<string, number> = {};
      try {
        child = JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>;
      } catch {
        return;
      }
      rmSync(file, { force: true });
      ns.mutantCoverage ??= { static: {}, perTest: {} };
      const coverage = ns.mutantCoverage;
      const test = ns.currentTestId;
      if (test !== undefined) coverage.perTest[test] ??= {};
      const target = test === undefined ? coverage.static : coverage.perTest[test]!;
      for (const [id, hits] of Object.entries(child)) target[id] = (target[id] ?? 0) + hits;
    },
  };
}

/** In the child: write every mutant the run reached, for the parent to merge. */
export async function writeChildCoverage(): Promise<void> {
  const file = process.env[COVERAGE_FILE_ENV];
  const ns = stryker();
  if (!file || !ns?.mutantCoverage) return;
  const all: Record<string, number> = { ...ns.mutantCoverage.static };
  for (const perTest of Object.values(ns.mutantCoverage.perTest)) {
    for (const [id, hits] of Object.entries(perTest)) all[id] = (all[id] ?? 0) + hits;
  }
  const { writeFileSync } = await import('node:fs');
  writeFileSync(file, JSON.stringify(all));
}
