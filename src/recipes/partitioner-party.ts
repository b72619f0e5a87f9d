// The party of a SetPartitioner, in kazoo's ShallowParty layout: one ephemeral node per member,
// `<path>/party/<uuid hex>-<id>`, its data the id; a member's id is its name after the first
// `-`. Kept apart from the group-membership recipe so that the partitioner's protocol (kazoo's)
// is read in one place.
import type { RecipeClient } from '../client/recipe-client.js';
import { CreateMode } from '../client/types.js';
import { hasCode } from '../coordination/codes.js';
import { childPath } from '../coordination/naming.js';
import { retry } from '../coordination/retry.js';
import { ensurePath } from './paths.js';

/** The ids of the members in a listing of the party (kazoo's `ShallowParty` iteration). */
export function memberIds(children: readonly string[]): string[] {
  return children.map((child) => child.slice(child.indexOf('-') + 1));
}

/**
 * Makes sure this member has a node made by the client's current session, and returns its path:
 * `known` when it is still there and this session's, else a new node (a fresh name: the node of
 * an ended session may linger on a server that has not yet expired it), whose path `claim` is
 * told before it is sent. A create whose reply was lost is found again by its unique name.
 */
export async function joinParty(
  client: RecipeClient,
  partyPath: string,
  id: string,
  known: string | undefined,
  signal: AbortSignal,
  claim: (path: string) => void,
): Promise<string> {
  if (known !== undefined) {
    const stat = await retry(() => client.exists(known, { signal }), { signal });
    if (stat !== null && stat.ephemeralOwner === client.sessionId) return known;
  }
  await ensurePath(client, partyPath, { containers: false, signal });
  const session = client.sessionId;
  const path = childPath(partyPath, `${crypto.randomUUID().replaceAll('-', '')}-${id}`);
  // Named before it is sent: a create cut off by `signal` may still be applied, and leaving
  // deletes this name.
  claim(path);
  try {
    await retry(() => client.create2(path, id, { mode: CreateMode.EPHEMERAL, signal }), {
      signal,
    });
  } catch (error) {
    // Our own create, applied before its reply was lost (the name is unique to this call).
    if (!hasCode(error, 'NODEEXISTS') || client.sessionId !== session) throw error;
  }
  return path;
}

/** Leaves the party: deletes the member node (gone already is fine). */
export async function leaveParty(client: RecipeClient, path: string | undefined): Promise<void> {
  if (path === undefined || client.closing) return;
  try {
    await retry(() => client.delete(path));
  } catch (error) {
    if (!hasCode(error, 'NONODE', 'SESSIONEXPIRED')) throw error;
  }
}

/** Compares by Unicode code point, as Python's `sorted` orders strings (kazoo's partitioning). */
export function byCodePoint(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const diff = left[i]!.codePointAt(0)! - right[i]!.codePointAt(0)!;
    if (diff !== 0) return diff;
  }
  return left.length - right.length;
}

/**
 * kazoo's default partition: the items and the members sorted, and this member's share every
 * `members.length`-th item from its own place in the member list.
 */
export function roundRobinPartition(
  id: string,
  members: readonly string[],
  items: readonly string[],
): string[] {
  const workers = [...members].sort(byCodePoint);
  const at = workers.indexOf(id);
  if (at < 0) return [];
  return [...items].sort(byCodePoint).filter((_, i) => i % workers.length === at);
}
