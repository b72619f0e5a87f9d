// The testing guide's Jest example on a real ZooKeeper, chosen as the guide says a user chooses
// it: ZKTS_TEST_SERVER=real in the environment of `npx jest`, the test file unchanged. Jest runs
// the file in a VM context of its own, and there startServer() reads the environment, loads its
// Node built-ins and starts the JVM of the local install. The same file on the model:
// test/unit/testing/jest-example.test.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requireManaged } from '../../harness/index.js';
import { REPO } from '../../runtimes/processes.js';
import { JEST_EXAMPLE, runJestExample } from '../../support/jest-example.js';

describe('the Jest example with ZKTS_TEST_SERVER=real', () => {
  it('passes on a real ZooKeeper of the local install', async () => {
    requireManaged('a real ZooKeeper started by zookeeper-ts/testing');
    const run = await runJestExample({ ZKTS_TEST_SERVER: 'real' });
    expect(run.outcome.code, run.outcome.describe()).toBe(0);
    expect(run.files).toEqual([
      {
        file: join(REPO, JEST_EXAMPLE),
        tests: ['passed: a worker is listed while its session lives'],
      },
    ]);
  }, 120_000);

  it('fails, saying why, where no real ZooKeeper can be found (so the variable was read)', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'zkts-no-zookeeper-'));
    try {
      const run = await runJestExample({ ZKTS_TEST_SERVER: 'real', ZOOKEEPER_HOME: empty });
      expect(run.outcome.code).toBe(1);
      expect(run.success).toBe(false);
      expect(run.outcome.stderr).toContain(`ZOOKEEPER_HOME=${empty} has no lib/*.jar`);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  }, 120_000);
});
