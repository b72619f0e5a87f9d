// Shared by the LeaderSelector unit tests: a bounded wait, and a task whose term the test ends.
import type { Leadership } from '../../../src/locks/index.js';

export async function until(check: () => boolean, what = 'the condition'): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 1));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

/** A task that records its term and runs until `end()` or its signal aborts. */
export function controlledTask() {
  const terms: Leadership[] = [];
  let end = () => {};
  const task = (leadership: Leadership) =>
    new Promise<void>((resolve) => {
      terms.push(leadership);
      end = resolve;
      leadership.signal.addEventListener('abort', () => resolve(), { once: true });
    });
  return { terms, task, end: () => end() };
}
