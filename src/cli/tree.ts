// Walking a subtree: every descendant of a node, with its stat, fetched a bounded number at a time.
import type { Client, Stat } from '../index.js';
import { joinPath, ZooKeeperError } from '../index.js';

/** A child's path under `parent` (the public {@link joinPath}: one path rule for the library). */
export const childPath = (parent: string, name: string): string => joinPath(parent, name);

export interface TreeNode {
  path: string;
  stat: Stat;
  children: TreeNode[];
}

/** Requests in flight at once: enough to hide the round trip, few enough to spare the server. */
const IN_FLIGHT = 32;

/** Runs `task`s with at most `limit` of them pending at a time. */
export class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit = IN_FLIGHT) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

/**
 * The subtree under `path` (children sorted by name), or null when `path` does not exist. Nodes
 * deleted while the walk runs are left out; `path` itself missing is NONODE.
 */
export async function walkTree(
  client: Client,
  path: string,
  call: () => { signal: AbortSignal },
  limiter = new Limiter(),
): Promise<TreeNode> {
  const visit = async (nodePath: string): Promise<TreeNode | null> => {
    let listing: { children: string[]; stat: Stat };
    try {
      listing = await limiter.run(() => client.getChildren2(nodePath, call()));
    } catch (error) {
      if (nodePath !== path && error instanceof ZooKeeperError && error.code === 'NONODE') {
        return null;
      }
      throw error;
    }
    const names = [...listing.children].sort();
    const children = await Promise.all(names.map((name) => visit(childPath(nodePath, name))));
    return {
      path: nodePath,
      stat: listing.stat,
      children: children.filter((c): c is TreeNode => c !== null),
    };
  };
  return (await visit(path))!;
}

/** Depth first, parents before children (as `find` prints). */
export function* preorder(node: TreeNode): Generator<TreeNode> {
  yield node;
  for (const child of node.children) yield* preorder(child);
}
