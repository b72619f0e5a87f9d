// The closing line of `npm test`: every vitest test counted, and each other step (type check and
// lint, docs check, package, runtimes, prerequisites) as one test, so that the line never reads
// as a pass when a step failed.
import type { RunCounts } from '../summary-reporter.js';

/** How one step of the run ended. */
export interface Outcome {
  readonly name: string;
  readonly ok: boolean;
  readonly seconds: number;
  readonly note?: string;
}

/**
 * `tests: N passed, N failed` for `outcomes`, where the steps named in `vitestSteps` each wrote
 * one entry of `runs`, in step order (vitest runs one at a time).
 */
export function tally(
  outcomes: readonly Outcome[],
  runs: readonly RunCounts[],
  vitestSteps: ReadonlySet<string>,
): string {
  const queue = [...runs];
  let passed = 0;
  let failed = 0;
  for (const outcome of outcomes) {
    if (!vitestSteps.has(outcome.name)) {
      if (outcome.ok) passed++;
      else failed++;
      continue;
    }
    const counts = queue.shift();
    passed += counts?.passed ?? 0;
    failed += counts?.failed ?? 0;
    // A vitest run that failed with no failed test (a crash, an error outside the tests, a bad
    // config) counts as one failure.
    if (!outcome.ok && (counts?.failed ?? 0) === 0) failed++;
  }
  return `tests: ${passed} passed, ${failed} failed`;
}
