// Recorders for the watch registry tests: a one-shot watcher and a persistent listener that keep
// what they were given.
import type { WatchedEvent } from '../../../src/session/types.js';
import type { PersistentListener } from '../../../src/session/watches.js';

/** A one-shot watcher and the events it received. */
export function recorder() {
  const events: WatchedEvent[] = [];
  return { events, watcher: (e: WatchedEvent) => events.push(e) };
}

/** A persistent listener (`l`), its events, and the errors (or null) it was ended with. */
export function listener() {
  const events: WatchedEvent[] = [];
  const ends: (Error | null)[] = [];
  const l: PersistentListener = { event: (e) => events.push(e), end: (e) => ends.push(e) };
  return { events, ends, l };
}
