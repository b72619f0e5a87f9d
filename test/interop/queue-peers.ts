// kazoo's queues and SetPartitioner (python/queue_peer.py) and Curator's queues
// (java/QueuePeer.java), one command per process, with the line protocol of the recipe peers.
import { fileURLToPath } from 'node:url';
import { classPath, compileJava, curatorPeerClasses } from './curator.js';
import { type CuratorRecipeRun, startRecipeProcess } from './curator-recipes.js';
import { PYTHON, requireKazoo } from './kazoo.js';

const PYTHON_SCRIPT = fileURLToPath(new URL('./python/queue_peer.py', import.meta.url));
const JAVA_SOURCE = fileURLToPath(new URL('./java/QueuePeer.java', import.meta.url));

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

/** Starts `queue_peer.py <connect> <command> <path> [arg]` and waits for it to connect. */
export function startKazooQueue(
  connectString: string,
  command: KazooQueueCommand,
  path: string,
  arg?: string,
): Promise<CuratorRecipeRun> {
  requireKazoo();
  const args = ['-u', PYTHON_SCRIPT, connectString, command, path];
  if (arg !== undefined) args.push(arg);
  return startRecipeProcess(`kazoo ${command}`, PYTHON, args);
}

let compiled: string | undefined;

/** Starts `java QueuePeer <connect> <command> <path> [arg]` and waits for it to connect. */
export function startCuratorQueue(
  connectString: string,
  command: CuratorQueueCommand,
  path: string,
  arg?: string,
): Promise<CuratorRecipeRun> {
  // Fails with a clear message when Curator or a JDK is missing.
  compiled ??= compileJava(JAVA_SOURCE, 'QueuePeer', 'queuepeer', curatorPeerClasses());
  const args = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-Xss512k', '-Xmx64m', '-cp'];
  args.push(classPath(compiled), 'QueuePeer', connectString, command, path);
  if (arg !== undefined) args.push(arg);
  return startRecipeProcess(`curator ${command}`, 'java', args);
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
