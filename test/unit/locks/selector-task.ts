// Shared by the LeaderSelector unit tests: a task whose term the test ends.
import type { Leadership } from '../../../src/locks/index.js';

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
