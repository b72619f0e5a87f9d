// vitest setupFiles entry: every test fails when a promise rejected unhandled while it ran, and
// no test file leaves fake timers, spies or stubbed globals to the files after it.
//
// The unit tier runs with `isolate: false` (vitest.config.ts): its files share one process per
// worker and run this file once each, so the guard is made once per process (a second listener
// per file would pile up on `process`), and what a file may leave behind is undone here.
import { afterAll, afterEach, vi } from 'vitest';
import { runAfterEachTest } from '../support/after-each-test.js';
import { UnhandledRejectionGuard } from './unhandled.js';

const SHARED = Symbol.for('zookeeper-ts/test/unhandled-rejection-guard');
const shared = globalThis as { [SHARED]?: UnhandledRejectionGuard };
shared[SHARED] ??= new UnhandledRejectionGuard();
const guard = shared[SHARED];
if (!guard.installed) guard.install();

afterEach(async () => {
  // Fake timers left on by the test would also swallow the macrotask below.
  vi.useRealTimers();
  // What support modules opened for the test (clients, servers, proxies) is closed here.
  await runAfterEachTest();
  // Node reports an unhandled rejection after the microtask queue drains: give it one macrotask.
  await new Promise((resolve) => setTimeout(resolve, 0));
  guard.check();
});

afterAll(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
});
// Opt-in (docs/testing.md): Node's shared read buffer is overwritten with garbage after every
// read, so a decoded value that kept a view of a read instead of a copy fails its test.
if (process.env.ZKTS_POISON_READS) {
  const { poisonReadsForTesting } = await import('../../src/session/transports/node.js');
  poisonReadsForTesting(true);
}
