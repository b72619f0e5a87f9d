// Every planted bug is found within the CI seed budget: proof that the invariants can fail. Each
// plant lives in test/sim/plants.ts and reaches the real recipes only through public seams.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

interface Failure {
  seed: number;
  violations: string[];
}

function firstFailure(plant: string, count: number): Failure | undefined {
  const run = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      'test/sim/main.ts',
      '--json',
      '--stop-at-first',
      '--plant',
      plant,
      '--from',
      '1',
      '--count',
      String(count),
      '--duration',
      '20000',
    ],
    { encoding: 'utf8', timeout: 120_000 },
  );
  const line = run.stdout.trim().split('\n').pop() ?? '';
  if (!line.startsWith('{')) throw new Error(`sim gave no summary: ${run.stderr}${run.stdout}`);
  return (JSON.parse(line) as { failures: Failure[] }).failures[0];
}

describe('planted bugs are found', () => {
  const cases: [string, RegExp][] = [
    ['skip-relist', /two mutex holders/],
    ['cleanup-gives-up', /stuck queue/],
    [
      'restore-forgets-chroot',
      /watch on \/locks\/flag-mutex reported NodeDeleted, but no such change/,
    ],
    ['wrap-text-order', /two mutex holders|fencing token went back|stuck queue/],
  ];
  for (const [plant, expected] of cases) {
    it(`${plant}: a violation within 12 seeds`, () => {
      const failure = firstFailure(plant, 12);
      expect(failure, `${plant} was not found in seeds 1..12`).toBeDefined();
      expect(failure!.violations.join('\n')).toMatch(expected);
    }, 120_000);
  }
});
