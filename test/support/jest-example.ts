// The testing guide's Jest example (examples/testing/jest.test.ts) run as the guide runs it: Jest in
// a Node process of its own with NODE_OPTIONS=--experimental-vm-modules and the guide's
// jest.config.js, its results read from Jest's --json report.
import { join } from 'node:path';
import { type Outcome, REPO, runIn } from '../runtimes/processes.js';

export const JEST_EXAMPLE = 'examples/testing/jest.test.ts';

/** What the tests read of Jest's --json report: each file's tests as `status: title`. */
export interface JestRun {
  outcome: Outcome;
  /** Absolute path of each test file Jest ran, with its tests as `status: title`. */
  files: { file: string; tests: string[] }[];
  success: boolean;
}

interface JestReport {
  success: boolean;
  testResults: { name: string; assertionResults: { title: string; status: string }[] }[];
}

/** Runs the example under Jest with `env` added to this process's environment. */
export async function runJestExample(env: NodeJS.ProcessEnv = {}): Promise<JestRun> {
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
      JEST_EXAMPLE,
    ],
    90_000,
    { ...process.env, ...env, NODE_OPTIONS: '--experimental-vm-modules' },
  );
  let report: JestReport = { success: false, testResults: [] };
  try {
    report = JSON.parse(outcome.stdout) as JestReport;
  } catch {
    // No report (Jest did not start, or was killed): the outcome says why.
  }
  const files = report.testResults.map((file) => ({
    file: file.name,
    tests: file.assertionResults.map((test) => `${test.status}: ${test.title}`),
  }));
  return { outcome, files, success: report.success };
}
