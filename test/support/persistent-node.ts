// Helpers for the PersistentNode unit tests on the scripted client
// (test/unit/locks/scripted-client.ts): a node started and not awaited, its first creation, and
// a dropped connection.
import type { BoundOptions } from '../../src/coordination/bounded.js';
import { PersistentNode, type PersistentNodeOptions } from '../../src/recipes/index.js';
import type { ScriptedClient } from '../unit/locks/scripted-client.js';

/** The text of a node's data. */
export const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);

/** A node with `start()` called (not awaited); `onError` is listened to as its `error` event. */
export function started(
  client: ScriptedClient,
  path: string,
  { onError, ...options }: PersistentNodeOptions & { onError?: (error: Error) => void } = {},
): PersistentNode {
  const node = new PersistentNode(client, path, options);
  if (onError) node.on('error', onError);
  void node.start();
  return node;
}

/** Waits for `start()` (the node's first creation) and answers the node's actual path. */
export async function createdPath(node: PersistentNode, options?: BoundOptions): Promise<string> {
  await node.start(options);
  return node.actualPath!;
}

/** Drops a connection: a watch event lost with it, the session kept; then reconnects. */
export function blip(client: ScriptedClient): void {
  client.setState('suspended');
  client.setState('connected');
}
