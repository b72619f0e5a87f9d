// The tests the mutation run (`npm run mutation`, stryker.config.json) uses to kill mutants: the
// unit tests that need no ZooKeeper server, and a slice of the simulator's CI seeds (through
// test/sim/stryker-bridge.ts, which carries the active mutant into the simulator's process).
// Integration, interop and chaos tests need the harness's real servers and are left out.
import { defineConfig } from 'vitest/config';

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
    testTimeout: 120_000,
  },
});
