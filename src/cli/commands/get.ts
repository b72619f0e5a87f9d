// get [--json|--hex] PATH: a node's data, as stored.

import { toBase64, toHex, utf8OrUndefined } from '../data.js';
import { UsageError } from '../errors.js';
import { statJson, statRows } from '../output.js';
import { type Command, JSON_OPTION } from './types.js';

export const get: Command = {
  name: 'get',
  usage: 'get [-s] [--json|--hex] PATH',
  summary: 'print the data of a node',
  details:
    'The bytes are written as stored. On a terminal, data that is not UTF-8 text is shown as hex\n' +
    'and a newline is added (in the shell too, so that replies stay apart). -s (zkCli) adds the\n' +
    'stat after the data. --json gives {path, data (UTF-8 text or null), base64, stat}.',
  options: [
    { long: 'hex', short: 'x', help: 'the data as hexadecimal' },
    { long: 'stat', short: 's', help: 'also the stat, after the data (zkCli get -s)' },
    JSON_OPTION,
  ],
  args: { min: 1, max: 1 },
  async run(ctx, { options, positionals }) {
    const path = positionals[0]!;
    if (options.has('hex') && ctx.out.json) throw new UsageError('choose one of --hex and --json');
    const client = await ctx.client();
    const { data, stat } = await client.getData(path, ctx.call());
    const text = utf8OrUndefined(data);
    if (ctx.out.json) {
      ctx.out.emit({ path, data: text ?? null, base64: toBase64(data), stat: statJson(stat) });
      return 0;
    }
    // Separated lines where more follows (the stat) or where replies follow each other (shell).
    const asLines = ctx.out.stream.isTTY === true || ctx.inShell || options.has('stat');
    if (options.has('hex') || (asLines && text === undefined)) {
      ctx.out.line(toHex(data));
    } else if (asLines) {
      if (text) ctx.out.line(text.endsWith('\n') ? text.slice(0, -1) : text);
      else if (!ctx.out.stream.isTTY) ctx.out.line();
    } else {
      ctx.out.bytes(data);
    }
    if (options.has('stat')) {
      ctx.out.table(statRows(stat).map(([name, value]) => [ctx.out.dim(name), value]));
    }
    return 0;
  },
};
