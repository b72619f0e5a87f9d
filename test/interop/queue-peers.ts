// kazoo's queues and SetPartitioner (python/queue_peer.py) and Curator's queues
// (java/QueuePeer.java), one command per process, with the line protocol of the recipe peers.
import { type CuratorRecipeRun, startJavaCommand, startPythonCommand } from './curator-recipes.js';

/** The commands of python/queue_peer.py. */
export type KazooQueueCommand =
  | 'locking-put'
  | 'locking-take'
  | 'locking-hold'
  | 'locking-none'
  | 'queue-put'
  | 'queue-take'
  | 'partition';

/** The commands of java/QueuePeer.java. */
export type CuratorQueueCommand =
  | 'simple-offer'
  | 'simple-take'
  | 'queue-put'
  | 'queue-put-multi'
  | 'queue-consume';

/** Starts `queue_peer.py <shared server> <command> <path> [arg]`; resolves once connected. */
export function startKazooQueue(command: KazooQueueCommand, path: string, ...arg: [] | [string]) {
  return startPythonCommand('queue_peer.py', command, path, arg);
}

/** Starts `java QueuePeer <shared server> <command> <path> [arg]`; resolves once connected. */
export function startCuratorQueue(
  command: CuratorQueueCommand,
  path: string,
  ...arg: [] | [string]
) {
  return startJavaCommand('QueuePeer', command, path, arg);
}

/** The next `count` lines starting with `prefix`, without the prefix. */
export async function linesOf(
  run: CuratorRecipeRun,
  prefix: string,
  count: number,
): Promise<string[]> {
  const lines: string[] = [];
  for (let i = 0; i < count; i++)
    lines.push((await run.line(`${prefix} `)).slice(prefix.length + 1));
  return lines;
}
