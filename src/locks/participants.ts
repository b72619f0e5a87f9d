// An election's participants, read from the server in line: the leader first, each candidate with
// its node's data as its id, as Curator's getParticipants() reports them.

import { childPath } from '../coordination/naming.js';
import { byCreation, pastSequenceLimit, sortContenders } from '../coordination/order.js';
import { retry } from '../coordination/retry.js';
import { LATCH_NAME, type Participant } from './election-types.js';
import { hasCode } from './errors.js';
import type { LockClient } from './types.js';

/**
 * The participants of the election at `path`, the leader first, as Curator lists them: each
 * candidate node (named with one of `names`) in line with its data as the id; nodes that vanish
 * while being read are skipped.
 */
export async function participantsOf(
  client: LockClient,
  path: string,
  names: readonly string[] = [LATCH_NAME],
): Promise<Participant[]> {
  let children: string[];
  try {
    children = await retry(() => client.getChildren(path));
  } catch (error) {
    if (hasCode(error, 'NONODE')) return [];
    throw error;
  }
  const sorted = sortContenders(children, names, 'numeric');
  const read = new Map<string, { id: string; czxid: bigint }>();
  await Promise.all(
    sorted.map(async ({ name }) => {
      try {
        const { data, stat } = await retry(() => client.getData(childPath(path, name)));
        read.set(name, { id: new TextDecoder().decode(data), czxid: stat.czxid });
      } catch (error) {
        if (!hasCode(error, 'NONODE')) throw error;
      }
    }),
  );
  // The latch's own rule: creation order once the sequence numbers no longer tell it.
  const czxids = new Map([...read].map(([name, { czxid }]) => [name, czxid] as const));
  const line = pastSequenceLimit(sorted)
    ? byCreation(sorted, czxids)
    : sorted.filter(({ name }) => read.has(name));
  return line.map(({ name }, index) => ({
    id: read.get(name)!.id,
    path: childPath(path, name),
    isLeader: index === 0,
  }));
}
