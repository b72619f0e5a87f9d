// Clean-up a support module owes after every test that used it, registered once when the module
// is first imported. A module-level afterEach() would not do: where test files share a process
// (the unit tier runs with isolate: false), a module is evaluated once, so its afterEach would
// attach to the first file that imported it and never run for the files after it.
// test/guard/setup.ts, which runs for every file, runs these after each test.

type Step = () => unknown;

const SHARED = Symbol.for('zookeeper-ts/test/after-each-test');
const shared = globalThis as { [SHARED]?: Set<Step> };
shared[SHARED] ??= new Set<Step>();
const steps = shared[SHARED];

/** Runs `step` after every test from now on, in every file (once, however often registered). */
export function afterEachTest(step: Step): void {
  steps.add(step);
}

/** Runs the registered steps, in order of registration; the first failure is thrown after all ran. */
export async function runAfterEachTest(): Promise<void> {
  let failure: { error: unknown } | undefined;
  for (const step of steps) {
    try {
      await step();
    } catch (error) {
      failure ??= { error };
    }
  }
  if (failure) throw failure.error;
}
