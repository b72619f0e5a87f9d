// The testing guide's Jest example (docs/testing-your-code.md, examples/testing/jest.test.ts) run
// as the guide runs it: Jest in its own Node process with NODE_OPTIONS=--experimental-vm-modules,
// the guide's jest.config.js and its esbuild transform, on the in-process server. The other
// runners' examples run on their own runtimes in npm run test:runtimes; Jest runs on Node, so its
// example runs here, in the unit tier (a few seconds, most of them Jest starting). The same file on
// a real ZooKeeper: test/integration/testing/jest-real.test.ts.
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { REPO } from '../../runtimes/processes.js';
import { JEST_EXAMPLE, runJestExample } from '../../support/jest-example.js';

it('runs examples/testing/jest.test.ts under Jest, and it passes', async () => {
  const run = await runJestExample({ ZKTS_TEST_SERVER: 'model' });
  expect(run.outcome.code, run.outcome.describe()).toBe(0);
  expect(run.files).toEqual([
    {
      file: join(REPO, JEST_EXAMPLE),
      tests: ['passed: a worker is listed while its session lives'],
    },
  ]);
  expect(run.success).toBe(true);
}, 120_000);
