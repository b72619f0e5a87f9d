// rm [-R] [-v VERSION] PATH: delete a node, or a whole subtree (children first).
import { type Client, ZooKeeperError } from '../../index.js';
import type { CommandContext } from '../context.js';
import { UsageError } from '../errors.js';
import { Limiter, type TreeNode, walkTree } from '../tree.js';
import { VERSION_OPTION } from './set.js';
import { type Command, JSON_OPTION } from './types.js';

/** Walks again when someone adds a child while we delete (NOTEMPTY), this many times at most. */
const ATTEMPTS = 5;

export const rm: Command = {
  name: 'rm',
  usage: 'rm [-R] [-v VERSION] PATH',
  summary: 'delete a node (-R: with all its descendants)',
  details:
    'With -R and -v, the version applies to PATH itself. Prints nothing; --json prints {deleted}.',
  options: [
    { long: 'recursive', short: 'R', help: 'delete the whole subtree' },
    { ...VERSION_OPTION, help: 'only if PATH is at this version (BADVERSION otherwise)' },
    JSON_OPTION,
  ],
  args: { min: 1, max: 1 },
  async run(ctx, { options, positionals }) {
    const path = positionals[0]!;
    const version = options.integer('version', -1, 0x7fffffff) ?? -1;
    const client = await ctx.client();
    let deleted: string[];
    if (options.has('recursive')) {
      if (path === '/') throw new UsageError('refusing to delete / recursively');
      deleted = await deleteTree(ctx, client, path, version);
    } else {
      await client.delete(path, version, ctx.call());
      deleted = [path];
    }
    if (ctx.out.json) ctx.out.emit({ deleted });
    return 0;
  },
};

async function deleteTree(
  ctx: CommandContext,
  client: Client,
  path: string,
  version: number,
): Promise<string[]> {
  const deleted: string[] = [];
  const limiter = new Limiter();
  const remove = async (node: TreeNode, nodeVersion: number): Promise<void> => {
    await Promise.all(node.children.map((child) => remove(child, -1)));
    try {
      await limiter.run(() => client.delete(node.path, nodeVersion, ctx.call()));
      deleted.push(node.path);
    } catch (error) {
      // Someone else deleted it meanwhile: the goal is reached.
      if (!(node.path !== path && isCode(error, 'NONODE'))) throw error;
    }
  };
  for (let attempt = 1; ; attempt++) {
    const tree = await walkTree(client, path, () => ctx.call(), limiter);
    try {
      await remove(tree, version);
      return deleted;
    } catch (error) {
      if (!isCode(error, 'NOTEMPTY') || attempt >= ATTEMPTS) throw error;
    }
  }
}

function isCode(error: unknown, code: string): boolean {
  return error instanceof ZooKeeperError && error.code === code;
}
