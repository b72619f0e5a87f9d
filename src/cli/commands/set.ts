// set [-v VERSION] PATH DATA: replace a node's data (optionally only at a known version).
import { readDataArgument } from '../data.js';
import { statJson } from '../output.js';
import { type Command, JSON_OPTION } from './types.js';

export const VERSION_OPTION = {
  long: 'version',
  short: 'v',
  value: 'VERSION',
  help: 'only if the node is at this version (BADVERSION otherwise)',
} as const;

export const set: Command = {
  name: 'set',
  usage: 'set [-v VERSION] PATH DATA',
  summary: 'set the data of a node (DATA "-" reads stdin)',
  details: 'Prints nothing; --json prints {path, stat} with the new version.',
  options: [VERSION_OPTION, JSON_OPTION],
  args: { min: 2, max: 2 },
  async run(ctx, { options, positionals }) {
    const [path, text] = positionals as [string, string];
    const version = options.integer('version', -1, 0x7fffffff) ?? -1;
    const data = await readDataArgument(ctx, text);
    const client = await ctx.client();
    const stat = await client.setData(path, data, version, ctx.call());
    if (ctx.out.json) ctx.out.emit({ path, stat: statJson(stat) });
    return 0;
  },
};
