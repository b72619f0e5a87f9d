// Which signal the recipes hand each read of a scripted client (the tests of who honours the
// caller's signal).
import type { ScriptedClient } from './scripted-client.js';

/**
 * Records the signal each of `ops` of `client` is given, by op, as a real client would honour it;
 * the calls go on as before.
 */
export function recordSignals(
  client: ScriptedClient,
  ops: readonly ('getChildren' | 'getData' | 'exists' | 'sync')[],
): Map<string, (AbortSignal | undefined)[]> {
  const seen = new Map<string, (AbortSignal | undefined)[]>();
  for (const op of ops) {
    const original = client[op].bind(client) as (
      path: string,
      options?: { signal?: AbortSignal },
    ) => Promise<unknown>;
    (client as unknown as Record<string, unknown>)[op] = (
      path: string,
      options?: { signal?: AbortSignal },
    ) => {
      seen.set(op, [...(seen.get(op) ?? []), options?.signal]);
      return original(path, options);
    };
  }
  return seen;
}
