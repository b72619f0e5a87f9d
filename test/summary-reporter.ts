// Prints one plain closing line, `tests: N passed, N failed[, N skipped]`, after vitest's own
// summary: the form CI reads to know how many tests ran. Under `npm test` (test/tiers/run.ts,
// which runs vitest more than once) the counts go to the file named by COUNTS_FILE_ENV instead,
// and the runner prints the one closing line for the whole run.
import { appendFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

/** Set by test/tiers/run.ts: the file each vitest run appends its counts to, one JSON line each. */
export const COUNTS_FILE_ENV = 'ZKTS_TEST_COUNTS_FILE';

/** One vitest run's counts, as written to the counts file. */
export interface RunCounts {
  passed: number;
  failed: number;
  skipped: number;
}

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      if (module.state() === 'failed' && module.children.size === 0) failed++;
    }
    const countsFile = process.env[COUNTS_FILE_ENV];
    if (countsFile) {
      const counts: RunCounts = { passed, failed, skipped };
      appendFileSync(countsFile, `${JSON.stringify(counts)}\n`);
      console.log(`vitest: ${passed} passed, ${failed} failed, ${skipped} skipped`);
      return;
    }
    const tail = skipped > 0 ? `, ${skipped} skipped` : '';
    console.log(`tests: ${passed} passed, ${failed} failed${tail}`);
  }
}
