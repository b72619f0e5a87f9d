// The simulator's share of the mutation run (`npm run mutation`, see stryker.config.json): a
// compact slice of the CI seeds, stopping at the first violation so that a killed mutant costs
// little. Not a `*.test.ts` file, so `npm test` does not run it (sim.test.ts covers these seeds
// and more there); vitest.mutation.config.ts includes it by name.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { childEnvironment } from './stryker-bridge.js';
// The worlds import the library in their own process; this import puts the whole library in this
// file's module graph, so the mutation runner counts this file among the tests related to every
// mutated source file.
import '../../src/index.js';
import '../../src/locks/index.js';

function violationsOf(args: string[]): string {
  const child = childEnvironment();
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'test/sim/main.ts', '--json', '--stop-at-first', ...args],
    { encoding: 'utf8', timeout: 120_000, env: child.env },
  );
  child.collect();
  const line = run.stdout.trim().split('\n').pop() ?? '';
  if (!line.startsWith('{')) throw new Error(`sim gave no summary: ${run.stderr}${run.stdout}`);
  const summary = JSON.parse(line) as { failures: { seed: number; violations: string[] }[] };
  return summary.failures.map((f) => `seed ${f.seed}: ${f.violations.join('; ')}`).join('\n');
}

describe('simulated worlds (mutation slice)', () => {
  // One process (its start-up is most of a killed mutant's cost): twelve worlds of the usual mix,
  // then four with the sequence counters at their limit.
  it('keeps every invariant over a slice of the CI seeds, the last four at the sequence limit', () => {
    const args = ['--from', '1', '--count', '16', '--wrap-last', '4', '--duration', '10000'];
    expect(violationsOf(args)).toBe('');
  }, 120_000);
});
