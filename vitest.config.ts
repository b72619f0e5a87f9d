// The test tiers as vitest projects (test/tiers/tiers.ts lists their files):
//   npx vitest run --project unit     no server, no JVM (npm run test:unit)
//   npx vitest run path/to/x.test.ts  one file, in whichever tier holds it
// Only the tiers that use a server have the global setup that starts the shared ZooKeeper, and
// vitest runs a project's global setup only when one of its files is in the run.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { externalConnectString } from './test/harness/source.js';
import { filesNeedingManagedServer } from './test/tiers/managed-only.js';
import { globs, TIERS } from './test/tiers/tiers.js';

const root = fileURLToPath(new URL('.', import.meta.url));

// With ZOOKEEPER_CONNECT the harness cannot start, stop or kill servers: the files that need
// that are left out, and said so (test/tiers/managed-only.ts finds them).
const external = externalConnectString();
const leftOut = external === undefined ? [] : filesNeedingManagedServer(root);
if (leftOut.length > 0) {
  console.log(
    `[tiers] ZOOKEEPER_CONNECT=${external}: leaving out ${leftOut.length} test files that start, ` +
      'stop or kill their own servers (they need a local ZooKeeper install or Docker; unset ' +
      `ZOOKEEPER_CONNECT to run them):\n  ${leftOut.join('\n  ')}`,
  );
}

// The unit tier runs no server and spends most of its time waiting on timers of a few ms (its whole
// run takes about 25 s of CPU), so it runs four files at a time even on two cores. The server tiers
// keep two: their files share the cores with the ZooKeeper JVMs.
const UNIT_WORKERS = 4;

export default defineConfig({
  test: {
    projects: TIERS.map((tier) => ({
      extends: true,
      test: {
        name: tier.name,
        include: globs(tier.include),
        exclude: [...globs(tier.exclude), ...leftOut, '**/node_modules/**'],
        // One shared standalone ZooKeeper per run (or ZOOKEEPER_CONNECT); see test/harness.
        globalSetup: tier.sharedServer ? ['test/harness/global-setup.ts'] : [],
        isolate: tier.isolate,
        ...(tier.sharedServer ? {} : { maxWorkers: UNIT_WORKERS }),
      },
    })),
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
