// The reading and queueing steps of lock inspection: contender nodes read with their stats, put
// in line and decided by the recipes' rules. inspect.ts assembles them into a view.
import type { Stat } from '../client/types.js';
import {
  type Contender,
  childPath,
  LockName,
  type NamingStyle,
  parseContender,
} from '../coordination/naming.js';
import {
  byCreation,
  type Decision,
  pastSequenceLimit,
  predecessorDecision,
  readerDecision,
  type SequenceOrder,
  sortContenders,
} from '../coordination/order.js';
import { LATCH_NAME } from './election-types.js';
import { hasCode } from './errors.js';
import type { ContenderKind, InspectClient } from './inspect.js';

/** kazoo's `ReadLock` node name (its `Lock` and `WriteLock` use {@link LockName.kazooMutex}). */
export const KAZOO_READ_NAME = LockName.kazooRead;

/** A node as read: its data and stat. */
export interface NodeRead {
  data: Uint8Array;
  stat: Stat;
}

export interface Planned {
  name: string;
  dir: string;
  kind: ContenderKind;
  naming: NamingStyle | undefined;
  sequence: number | undefined;
  decision: Decision;
  node: NodeRead;
}

export const CURATOR_NAMES = [LockName.mutex, LockName.read, LockName.write];
export const KAZOO_NAMES: readonly string[] = [LockName.kazooMutex, KAZOO_READ_NAME];
export const LOCK_NAMES = [...CURATOR_NAMES, ...KAZOO_NAMES];

/** Kind of a contender from its lock name. */
export function kindOf(lockName: string): ContenderKind {
  switch (lockName) {
    case LATCH_NAME:
      return 'candidate';
    case LockName.read:
    case KAZOO_READ_NAME:
      return 'read';
    case LockName.write:
      return 'write';
    case LockName.lease:
      return 'lease';
    default:
      return 'mutex';
  }
}

/**
 * Reads the children of `dir` that are contenders of `names` (in parallel): their data, and the
 * stat whose czxid orders them past the sequence limit. Those gone meanwhile are left out.
 */
export async function readContenders(
  client: InspectClient,
  dir: string,
  children: readonly string[],
  names: readonly string[],
  signal: AbortSignal | undefined,
): Promise<Map<string, NodeRead>> {
  const nodes = new Map<string, NodeRead>();
  await Promise.all(
    children
      .filter((name) => parseContender(name, names) !== undefined)
      .map(async (name) => {
        const node = await readNode(client, childPath(dir, name), signal);
        if (node) nodes.set(name, node);
      }),
  );
  return nodes;
}

/**
 * The contenders of `names` among `nodes` in queue order, as the recipes order them: with
 * `'numeric'`, by creation zxid once any is at the sequence limit or past a wrap.
 */
export function queueOf(
  nodes: ReadonlyMap<string, NodeRead>,
  names: readonly string[],
  order: SequenceOrder,
): Contender[] {
  const sorted = sortContenders([...nodes.keys()], names, order);
  if (order !== 'numeric' || !pastSequenceLimit(sorted)) return sorted;
  const czxids = new Map(sorted.map(({ name }) => [name, nodes.get(name)!.stat.czxid] as const));
  return byCreation(sorted, czxids);
}

/** A reader is kept waiting by a contender of any other kind (a writer, a mutex node). */
const blocksReader = (lockName: string) => kindOf(lockName) !== 'read';

/**
 * One queue of sequential contenders (named with `names`), decided as the recipes decide: a
 * reader holds when no writer is ahead of it; anything else holds at the head of the queue.
 */
export function planQueue(
  dir: string,
  nodes: ReadonlyMap<string, NodeRead>,
  names: readonly string[],
  order: SequenceOrder,
): Planned[] {
  const sorted = queueOf(nodes, names, order);
  return sorted.map((contender, own) => {
    const kind = kindOf(contender.lockName);
    const decision =
      kind === 'read'
        ? readerDecision(sorted, own, blocksReader)
        : predecessorDecision(sorted, own);
    return {
      name: contender.name,
      dir,
      kind,
      naming: KAZOO_NAMES.includes(contender.lockName) ? 'kazoo' : 'curator',
      sequence: contender.sequence,
      decision,
      node: nodes.get(contender.name)!,
    };
  });
}

/** Children of `path`, or [] when it does not exist. */
export async function childrenOf(
  client: InspectClient,
  path: string,
  signal?: AbortSignal,
): Promise<string[]> {
  try {
    return await client.getChildren(path, { signal });
  } catch (error) {
    if (hasCode(error, 'NONODE')) return [];
    throw error;
  }
}

export async function readNode(
  client: InspectClient,
  path: string,
  signal: AbortSignal | undefined,
): Promise<NodeRead | undefined> {
  try {
    return await client.getData(path, { signal });
  } catch (error) {
    if (hasCode(error, 'NONODE')) return undefined; // released meanwhile
    throw error;
  }
}
