// rm [-R] [-v VERSION] PATH: delete a node, or a whole subtree (children first).
import { type Client, ZooKeeperError } from '../../index.js';
import type { Options } from '../args.js';
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
  run: (ctx, { options, positionals }) =>
    remove(ctx, positionals[0]!, options.has('recursive'), versionOf(options)),
};

function versionOf(options: Options): number {
  return options.integer('version', -1, 0x7fffffff) ?? -1;
}

async function remove(
  ctx: CommandContext,
  path: string,
  recursive: boolean,
  version: number,
): Promise<number> {
  const client = await ctx.client();
  let deleted: string[];
  if (recursive) {
    if (path === '/') throw new UsageError('refusing to delete / recursively');
    deleted = await deleteTree(ctx, client, path, version);
  } else {
    await client.delete(path, version, ctx.call());
    deleted = [path];
  }
  if (ctx.out.json) ctx.out.emit({ deleted });
  return 0;
}

/** zkCli's `delete [-v VERSION] PATH`: `rm` under the name zkCli users type. */
export const deleteNode: Command = {
  name: 'delete',
  usage: 'delete [-v VERSION] PATH',
  summary: 'delete a node without children (zkCli’s name; rm -R deletes a subtree)',
  details: 'The same as `rm PATH`. NOTEMPTY (exit 6) if it has children: use deleteall.',
  options: [
    { ...VERSION_OPTION, help: 'only if PATH is at this version (BADVERSION otherwise)' },
    JSON_OPTION,
  ],
  args: { min: 1, max: 1 },
  run: (ctx, { options, positionals }) => remove(ctx, positionals[0]!, false, versionOf(options)),
};

/** zkCli's `deleteall PATH`: `rm -R` under the name zkCli users type. */
export const deleteAll: Command = {
  name: 'deleteall',
  usage: 'deleteall PATH',
  summary: 'delete a node and all its descendants (zkCli’s name for rm -R)',
  details: 'The same as `rm -R PATH`.',
  options: [JSON_OPTION],
  args: { min: 1, max: 1 },
  run: (ctx, { positionals }) => remove(ctx, positionals[0]!, true, -1),
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
