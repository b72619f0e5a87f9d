// stat PATH: a node's metadata.
import { ZooKeeperError } from '../../index.js';
import { statJson, statRows } from '../output.js';
import { type Command, JSON_OPTION } from './types.js';

export const stat: Command = {
  name: 'stat',
  usage: 'stat PATH',
  summary: 'show the stat (versions, zxids, times, owner) of a node',
  options: [JSON_OPTION],
  args: { min: 1, max: 1 },
  async run(ctx, { positionals }) {
    const path = positionals[0]!;
    const client = await ctx.client();
    const found = await client.exists(path, ctx.call());
    if (found === null) throw new ZooKeeperError('NONODE', `no node at ${path}`, { path });
    if (ctx.out.json) ctx.out.emit({ path, stat: statJson(found) });
    else ctx.out.table(statRows(found).map(([name, value]) => [ctx.out.dim(name), value]));
    return 0;
  },
};
