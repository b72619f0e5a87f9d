// A count the lock tests, unit and integration, take of a client's private watch registry.
import type { Client } from '../../src/index.js';

/**
 * One-shot watchers the client has registered on `path`, of every kind. The registry is private
 * to the client; tests read it to count closures, which no timing can show.
 */
export function registeredWatchers(client: Client, path: string): number {
  const registry = (
    client as unknown as {
      session: { watches: { oneShot: Record<string, Map<string, unknown>> } };
    }
  ).session.watches.oneShot;
  let count = 0;
  for (const kind of Object.values(registry)) {
    // One watcher is kept as it is, several as a set (see WatchRegistry).
    const entry = kind.get(path);
    if (typeof entry === 'function') count += 1;
    else if (entry instanceof Set) count += entry.size;
  }
  return count;
}
