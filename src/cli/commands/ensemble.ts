// The zkCli commands people reach for by habit: getAllChildrenNumber, config, reconfig and
// removewatches, with zkCli's names and flags.
import type { WatcherKind } from '../../index.js';
import { UsageError } from '../errors.js';
import { statJson } from '../output.js';
import { type Command, JSON_OPTION } from './types.js';

export const getAllChildrenNumber: Command = {
  name: 'getAllChildrenNumber',
  usage: 'getAllChildrenNumber PATH',
  summary: 'count every descendant of a node (zkCli getAllChildrenNumber)',
  options: [JSON_OPTION],
  args: { min: 1, max: 1 },
  async run(ctx, { positionals }) {
    const path = positionals[0]!;
    const client = await ctx.client();
    const count = await client.getAllChildrenNumber(path, ctx.call());
    if (ctx.out.json) ctx.out.emit({ path, count });
    else ctx.out.line(String(count));
    return 0;
  },
};

export const config: Command = {
  name: 'config',
  usage: 'config [-s]',
  summary: 'print the ensemble configuration (zkCli config)',
  details: 'The dynamic configuration: server.N lines and version. -s adds the config node’s stat.',
  options: [{ long: 'stat', short: 's', help: 'also the stat of the config node' }, JSON_OPTION],
  args: { min: 0, max: 0 },
  async run(ctx, { options }) {
    const client = await ctx.client();
    const { config: text, stat } = await client.getConfig(ctx.call());
    if (ctx.out.json) {
      ctx.out.emit({ config: text, ...(options.has('stat') ? { stat: statJson(stat) } : {}) });
      return 0;
    }
    ctx.out.line(text.replace(/\n+$/, ''));
    if (options.has('stat')) {
      for (const [name, value] of Object.entries(statJson(stat)))
        ctx.out.line(`${name} = ${value}`);
    }
    return 0;
  },
};

export const reconfig: Command = {
  name: 'reconfig',
  usage: 'reconfig (--add SERVERS | --remove IDS | --members SERVERS)... [-v VERSION]',
  summary: 'change the ensemble membership (zkCli reconfig)',
  details:
    'Needs reconfigEnabled=true and a session allowed to write /zookeeper/config (e.g. --auth\n' +
    'digest:super:...). SERVERS: server.4=host:2888:3888;2181 entries, comma separated; IDS: server\n' +
    'ids, comma separated. --members replaces the whole list. Prints the new configuration.',
  options: [
    { long: 'add', value: 'SERVERS', help: 'servers joining (zkCli -add)' },
    { long: 'remove', value: 'IDS', help: 'server ids leaving (zkCli -remove)' },
    { long: 'members', value: 'SERVERS', help: 'the new member list (zkCli -members)' },
    {
      long: 'version',
      short: 'v',
      value: 'VERSION',
      help: 'only if the config is at this version (hex, as config prints it)',
    },
    JSON_OPTION,
  ],
  args: { min: 0, max: 0 },
  async run(ctx, { options }) {
    const joining = options.string('add');
    const leaving = options.string('remove');
    const newMembers = options.string('members');
    if (joining === undefined && leaving === undefined && newMembers === undefined) {
      throw new UsageError('reconfig needs --add, --remove or --members');
    }
    if (newMembers !== undefined && (joining !== undefined || leaving !== undefined)) {
      throw new UsageError('--members replaces the list: give it without --add and --remove');
    }
    const version = options.string('version');
    let fromConfig: bigint | undefined;
    if (version !== undefined) {
      if (!/^(0x)?[0-9a-f]+$/i.test(version)) {
        throw new UsageError(`--version must be a hex config version, got "${version}"`);
      }
      fromConfig = BigInt(version.startsWith('0x') ? version : `0x${version}`);
    }
    const client = await ctx.client();
    const { config: text } = await client.reconfig({
      ...ctx.call(),
      ...(joining === undefined ? {} : { joining }),
      ...(leaving === undefined ? {} : { leaving }),
      ...(newMembers === undefined ? {} : { newMembers }),
      ...(fromConfig === undefined ? {} : { fromConfig }),
    });
    if (ctx.out.json) ctx.out.emit({ config: text });
    else ctx.out.line(text.replace(/\n+$/, ''));
    return 0;
  },
};

const KINDS: Record<string, WatcherKind> = {
  children: 'children',
  data: 'data',
  any: 'any',
  persistent: 'persistent',
  recursive: 'persistentRecursive',
};

export const removewatches: Command = {
  name: 'removewatches',
  usage: 'removewatches PATH [-c|-d|-a|-p|-r] [-l]',
  summary: 'remove the watches on a node (zkCli removewatches)',
  details:
    'Of this session (in the shell: the watches its commands set). -c child watches, -d data\n' +
    'watches, -a any (default), -p persistent, -r persistent recursive; -l removes them locally\n' +
    'even when the server cannot be reached. NOWATCHER (status 1) when there is none.',
  options: [
    { long: 'children', short: 'c', help: 'child watches' },
    { long: 'data', short: 'd', help: 'data watches' },
    { long: 'any', short: 'a', help: 'every kind (default)' },
    { long: 'persistent', short: 'p', help: 'persistent watches' },
    { long: 'recursive', short: 'r', help: 'persistent recursive watches' },
    { long: 'local', short: 'l', help: 'also without a server' },
    JSON_OPTION,
  ],
  args: { min: 1, max: 1 },
  async run(ctx, { options, positionals }) {
    const path = positionals[0]!;
    const chosen = Object.keys(KINDS).filter((name) => options.has(name));
    if (chosen.length > 1) throw new UsageError(`choose one kind, got --${chosen.join(' --')}`);
    const kind = KINDS[chosen[0] ?? 'any']!;
    const client = await ctx.client();
    await client.removeWatches(path, kind, { ...ctx.call(), local: options.has('local') });
    if (ctx.out.json) ctx.out.emit({ path, removed: kind });
    return 0;
  },
};
