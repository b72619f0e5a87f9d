// Queue order that stays creation order when sequence numbers stop telling it (see SequenceOrder).

import type { Client } from '../client/client.js';
import type { OwnNode } from './naming.js';
import { type Contender, childPath } from './naming.js';
import { byCreation, pastSequenceLimit, type SequenceOrder, sortContenders } from './order.js';
import { retry } from './retry.js';

/**
 * The contenders among `children` of `dir` in queue order. With `'numeric'` and a set past the
 * sequence limit, each contender's creation zxid is read (in parallel; `known` remembers them
 * across calls of one acquire, since a node's czxid never changes; `own`, our node if we have
 * one, needs no read) and contenders that vanished meanwhile are left out.
 */
export async function queueOrder(
  client: Pick<Client, 'exists'>,
  dir: string,
  children: readonly string[],
  lockNames: readonly string[],
  order: SequenceOrder,
  own: OwnNode | undefined,
  known: Map<string, bigint>,
  signal: AbortSignal | undefined,
): Promise<Contender[]> {
  const sorted = sortContenders(children, lockNames, order);
  if (order !== 'numeric' || !pastSequenceLimit(sorted)) return sorted;
  if (own) known.set(own.name, own.stat.czxid);
  const present = new Map<string, bigint>();
  await Promise.all(
    sorted.map(async ({ name }) => {
      const cached = known.get(name);
      if (cached !== undefined) return void present.set(name, cached);
      const path = childPath(dir, name);
      const stat = await retry(() => client.exists(path, { signal }), { signal });
      if (stat) present.set(name, stat.czxid);
    }),
  );
  // Forget nodes that are no longer listed: the map stays as small as the queue.
  for (const name of known.keys()) if (!present.has(name)) known.delete(name);
  for (const [name, czxid] of present) known.set(name, czxid);
  return byCreation(sorted, present);
}
