// Server event codes to the public event names.
import type { EventType } from './types.js';

const EVENT_TYPES: Readonly<Record<number, EventType>> = {
  1: 'NodeCreated',
  2: 'NodeDeleted',
  3: 'NodeDataChanged',
  4: 'NodeChildrenChanged',
  5: 'DataWatchRemoved',
  6: 'ChildWatchRemoved',
  7: 'PersistentWatchRemoved',
};

/** The event's name, or null for codes a server should never send in a notification. */
export function eventTypeName(code: number): EventType | null {
  return EVENT_TYPES[code] ?? null;
}
