// The testing guide's Jest example (docs/testing-your-code.md, examples/testing/jest.test.ts) run
// as the guide runs it: Jest in its own Node process with NODE_OPTIONS=--experimental-vm-modules,
// the guide's jest.config.js and its esbuild transform. The other runners' examples run on their
// own runtimes in npm run test:runtimes; Jest runs on Node, so its example runs here, in the unit
// tier (a few seconds, most of them Jest starting).
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { REPO, runIn } from '../../runtimes/processes.js';

/** What this test reads of Jest's --json report. */
interface JestReport {
  success: boolean;
  numTotalTests: number;
  numFailedTests: number;
  testResults: { name: string; assertionResults: { title: string; status: string }[] }[];
}

it('runs examples/testing/jest.test.ts under Jest, and it passes', async () => {
  const outcome = await runIn(
    REPO,
    process.execPath,
    [
      join(REPO, 'node_modules/jest/bin/jest.js'),
      '--config',
      'examples/testing/jest.config.js',
      '--ci',
      // Jest's cache key leaves the transform's own source out: a stale entry would hide a change.
      '--no-cache',
      '--json',
      '--runTestsByPath',
      'examples/testing/jest.test.ts',
    ],
    90_000,
    { ...process.env, NODE_OPTIONS: '--experimental-vm-modules' },
  );
  expect(outcome.code, outcome.describe()).toBe(0);
  const report = JSON.parse(outcome.stdout) as JestReport;
  const results = report.testResults.map((file) => ({
    file: file.name,
    tests: file.assertionResults.map((test) => `${test.status}: ${test.title}`),
  }));
  expect(results).toEqual([
    {
      file: join(REPO, 'examples/testing/jest.test.ts'),
      tests: ['passed: a worker is listed while its session lives'],
    },
  ]);
  expect(report).toMatchObject({ success: true, numTotalTests: 1, numFailedTests: 0 });
}, 120_000);
