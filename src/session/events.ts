// Server event codes to the public event names, read off the protocol's one table.
import { EventTypeCode, type EventTypeName } from '../protocol/ops.js';
import type { EventType } from './types.js';

const namesByCode = new Map<number, EventType>(
  (Object.entries(EventTypeCode) as [EventTypeName, number][])
    // `None` (-1) is the client's own notice that a session ended, never a node event.
    .filter(([name]) => name !== 'None')
    .map(([name, code]) => [code, name]),
);

/** The event's name, or null for codes a server should never send in a notification. */
export function eventTypeName(code: number): EventType | null {
  return namesByCode.get(code) ?? null;
}
