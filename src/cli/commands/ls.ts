// ls [-R] [-l] PATH: children, the whole subtree, with or without their stats.
import { type Stat, ZooKeeperError } from '../../index.js';
import type { CommandContext } from '../context.js';
import { toBase64, toHex, utf8OrUndefined } from '../data.js';
import { UsageError } from '../errors.js';
import { hex, type Output, statJson, statRows } from '../output.js';
import { childPath, Limiter, preorder, walkTree } from '../tree.js';
import { type Command, JSON_OPTION } from './types.js';

interface Entry {
  name: string;
  path: string;
  stat: Stat;
}

export const ls: Command = {
  name: 'ls',
  usage: 'ls [-R [-d]] [-l] [-s] [PATH]',
  summary: 'list the children of a node (default /)',
  details:
    '-R lists the node and every descendant as full paths, parents first (like find).\n' +
    '-l adds version, data length, number of children, modification time and ephemeral owner.\n' +
    '-R -d dumps the subtree: each path, a tab, and its data (UTF-8 with \\n, \\t and \\\\ escaped,\n' +
    'or 0x and hex for binary data). -s (zkCli) adds the stat of PATH after the children.',
  options: [
    { long: 'recursive', short: 'R', help: 'the whole subtree, as full paths' },
    { long: 'data', short: 'd', help: 'with -R: each node’s data beside its path (a dump)' },
    { long: 'long', short: 'l', help: 'a table with each node’s stat' },
    { long: 'stat', short: 's', help: 'also the stat of PATH (zkCli ls -s)' },
    JSON_OPTION,
  ],
  args: { min: 0, max: 1 },
  async run(ctx, { options, positionals }) {
    const path = positionals[0] ?? '/';
    const long = options.has('long');
    if (options.has('data') && !options.has('recursive')) {
      throw new UsageError('-d dumps a subtree: give it with -R (or use get for one node)');
    }
    if (options.has('stat') && (options.has('recursive') || ctx.out.json)) {
      throw new UsageError('-s goes with a plain listing (--json and -R -l carry stats already)');
    }
    if (options.has('data')) await dumpTree(ctx, path);
    else if (options.has('recursive')) await listTree(ctx, path, long);
    else if (long) await listLong(ctx, path);
    else await listNames(ctx, path);
    if (options.has('stat')) {
      const client = await ctx.client();
      const found = await client.exists(path, ctx.call());
      if (found) ctx.out.table(statRows(found).map(([name, value]) => [ctx.out.dim(name), value]));
    }
    return 0;
  },
};

async function listNames(ctx: CommandContext, path: string): Promise<void> {
  const client = await ctx.client();
  const children = (await client.getChildren(path, ctx.call())).sort();
  if (ctx.out.json) ctx.out.emit({ path, children });
  else for (const name of children) ctx.out.line(name);
}

async function listLong(ctx: CommandContext, path: string): Promise<void> {
  const client = await ctx.client();
  const names = (await client.getChildren(path, ctx.call())).sort();
  const limiter = new Limiter();
  const found = await Promise.all(
    names.map(async (name): Promise<Entry | null> => {
      const child = childPath(path, name);
      const stat = await limiter.run(() => client.exists(child, ctx.call()));
      return stat ? { name, path: child, stat } : null;
    }),
  );
  const entries = found.filter((entry): entry is Entry => entry !== null);
  if (ctx.out.json) {
    ctx.out.emit({
      path,
      children: entries.map((e) => ({ name: e.name, path: e.path, stat: statJson(e.stat) })),
    });
  } else {
    longTable(ctx.out, 'NAME', entries, (e) => e.name);
  }
}

async function listTree(ctx: CommandContext, path: string, long: boolean): Promise<void> {
  const client = await ctx.client();
  const nodes = [...preorder(await walkTree(client, path, () => ctx.call()))];
  const entries = nodes.map((n) => ({ name: n.path, path: n.path, stat: n.stat }));
  if (ctx.out.json) {
    ctx.out.emit({
      path,
      nodes: long
        ? entries.map((e) => ({ path: e.path, stat: statJson(e.stat) }))
        : nodes.map((n) => n.path),
    });
  } else if (long) {
    longTable(ctx.out, 'PATH', entries, (e) => e.path);
  } else {
    for (const node of nodes) ctx.out.line(node.path);
  }
}

/** `ls -R -d`: every node under PATH with its data, fetched a few at a time. */
async function dumpTree(ctx: CommandContext, path: string): Promise<void> {
  const client = await ctx.client();
  const nodes = [...preorder(await walkTree(client, path, () => ctx.call()))];
  const limiter = new Limiter();
  const found = await Promise.all(
    nodes.map((node) =>
      limiter.run(() =>
        client.getData(node.path, ctx.call()).then(
          ({ data }) => ({ path: node.path, data }),
          // Deleted while we walked: left out, as the walk would have.
          (error: unknown) => {
            if (error instanceof ZooKeeperError && error.code === 'NONODE') return null;
            throw error;
          },
        ),
      ),
    ),
  );
  const entries = found.filter((e): e is { path: string; data: Uint8Array } => e !== null);
  if (ctx.out.json) {
    ctx.out.emit({
      path,
      nodes: entries.map(({ path: p, data }) => ({
        path: p,
        data: utf8OrUndefined(data) ?? null,
        base64: toBase64(data),
      })),
    });
    return;
  }
  for (const { path: p, data } of entries) ctx.out.line(`${p}\t${dumpValue(data)}`);
}

/** One line's worth of data: UTF-8 text with the separators escaped, else `0x` and hex. */
function dumpValue(data: Uint8Array): string {
  const text = utf8OrUndefined(data);
  if (text === undefined) return `0x${toHex(data)}`;
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\t/g, '\\t');
}

function longTable(
  out: Output,
  title: string,
  entries: Entry[],
  label: (e: Entry) => string,
): void {
  if (entries.length === 0) return;
  const header = [title, 'VERSION', 'LENGTH', 'CHILDREN', 'MODIFIED (UTC)', 'EPHEMERAL'].map(
    out.dim,
  );
  const rows = entries.map((e) => [
    e.stat.numChildren > 0 ? out.blue(label(e)) : label(e),
    String(e.stat.version),
    String(e.stat.dataLength),
    String(e.stat.numChildren),
    new Date(e.stat.mtime).toISOString().slice(0, 19).replace('T', ' '),
    e.stat.ephemeralOwner === 0n ? '-' : out.cyan(hex(e.stat.ephemeralOwner)),
  ]);
  out.table([header, ...rows], ['left', 'right', 'right', 'right', 'left', 'left']);
}
