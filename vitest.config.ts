import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Runtime tests run under bun/deno/workerd with their own runners.
    exclude: ['test/runtimes/**', '**/node_modules/**'],
    // One shared standalone ZooKeeper per run (or ZOOKEEPER_CONNECT); see test/harness.
    globalSetup: ['test/harness/global-setup.ts'],
    // Fails the test during which a promise rejected unhandled (see test/guard/unhandled.ts).
    setupFiles: ['test/guard/setup.ts'],
    // Processes, not threads: the harness spawns and kills JVMs and handles signals.
    pool: 'forks',
    // Two cores: two test files at a time, next to the ZooKeeper JVMs.
    maxWorkers: 2,
    reporters: ['default', './test/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
  },
});
