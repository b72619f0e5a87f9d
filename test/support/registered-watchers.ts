// A count the lock tests, unit and integration, take of a client's private watch registry.
import type { Client } from '../../src/index.js';

/**
 * One-shot watchers the client has registered on `path`, of every kind. The registry is private
 * to the client; tests read it to count closures, which no timing can show.
 */
export function registeredWatchers(client: Client, path: string): number {
  type OneShotMap = Map<string, unknown>;
  const registry = (
    client as unknown as {
      session: { watches: { data: OneShotMap; exist: OneShotMap; child: OneShotMap } };
    }
  ).session.watches;
  let count = 0;
  // The registry's one-shot maps, one field per kind.
  for (const kind of [registry.data, registry.exist, registry.child]) {
    // One watcher is kept as it is, several as a set (see WatchRegistry).
    const entry = kind.get(path);
    if (typeof entry === 'function') count += 1;
    else if (entry instanceof Set) count += entry.size;
  }
  return count;
}
