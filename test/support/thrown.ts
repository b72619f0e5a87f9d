// What a call threw or a promise rejected with, for tests that check several things about one
// error.

/** Runs `run` and answers what it threw, or undefined when it returned. */
export function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** What `promise` rejected with; it must reject (a resolution fails the test). */
export async function rejection(
  promise: Promise<unknown>,
): Promise<Error & { code?: string; path?: string; op?: string; results?: unknown[] }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('expected a rejection');
}
