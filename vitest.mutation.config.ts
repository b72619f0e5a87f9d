// The tests the mutation run (`npm run mutation`, stryker.config.json) uses to kill mutants: the
// unit tests that need no ZooKeeper server, and a slice of the simulator's CI seeds (through
// test/sim/stryker-bridge.ts, which carries the active mutant into the simulator's process).
// Integration, interop and chaos tests need the harness's real servers and are left out.
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The unit tests first, the simulator's slice last: a mutant runs only the tests that reach it,
 * stopping at the first failure, and most mutants a unit test kills in milliseconds would
 * otherwise wait for the worlds' child process first (vitest runs long and failed files first).
 */
class SimulatorLast extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const isSim = (file: TestSpecification) => file.moduleId.endsWith('mutation-seeds.ts');
    return [...sorted.filter((file) => !isSim(file)), ...sorted.filter(isSim)];
  }
}

export default defineConfig({
  test: {
    include: [
      'test/unit/locks/**/*.test.ts',
      'test/unit/session/**/*.test.ts',
      'test/unit/client/**/*.test.ts',
      'test/sim/mutation-seeds.ts',
    ],
    exclude: ['**/node_modules/**'],
    setupFiles: ['test/guard/setup.ts'],
    pool: 'forks',
    // One process for all the files a mutant runs: a fresh process per test file costs more than
    // most mutants' tests (the files share no state that outlives a test).
    isolate: false,
    sequence: { sequencer: SimulatorLast },
    testTimeout: 120_000,
  },
});
