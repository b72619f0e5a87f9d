// What a synchronous call threw, for tests that check several things about one error.

/** Runs `run` and answers what it threw, or undefined when it returned. */
export function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}
