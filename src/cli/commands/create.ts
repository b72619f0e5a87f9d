// create [-e] [-s] [-c] [--ttl MS] [-p] [--acl ACL] PATH [DATA]: prints the path created.
import { type Client, CreateMode, type CreateOptions, ZooKeeperError } from '../../index.js';
import { aclWarnings, parseAcl } from '../acl.js';
import type { Options } from '../args.js';
import { readDataArgument } from '../data.js';
import { UsageError } from '../errors.js';
import { statJson } from '../output.js';
import { type Command, JSON_OPTION } from './types.js';

export const create: Command = {
  name: 'create',
  usage: 'create [-escp] [--ttl MS] [--acl ACL] PATH [DATA]',
  summary: 'create a node and print its path (DATA "-" reads stdin)',
  details:
    'An ephemeral node lives as long as the session: in one-shot mode it goes when zkts exits,\n' +
    'so -e is mostly useful in the shell. TTL nodes need a server with extendedTypesEnabled.\n' +
    'ACL: scheme:id:perms[,...], e.g. world:anyone:r,digest:user:base64hash:cdrwa.',
  options: [
    { long: 'ephemeral', short: 'e', help: 'ephemeral: deleted when the session ends' },
    { long: 'sequential', short: 's', help: 'append a sequence number to the name' },
    { long: 'container', short: 'c', help: 'container: deleted once its last child is gone' },
    { long: 'ttl', value: 'MS', help: 'persistent with a time to live, while it has no children' },
    { long: 'parents', short: 'p', help: 'create missing parents (persistent, empty)' },
    { long: 'acl', value: 'ACL', help: 'the ACL (default world:anyone:cdrwa)' },
    JSON_OPTION,
  ],
  args: { min: 1, max: 2 },
  async run(ctx, { options, positionals }) {
    const [path, text] = positionals as [string, string | undefined];
    const createOptions: CreateOptions & { signal?: AbortSignal } = { mode: modeOf(options) };
    const ttl = options.integer('ttl', 1);
    if (ttl !== undefined) createOptions.ttl = ttl;
    const acl = options.string('acl');
    if (acl !== undefined) {
      createOptions.acl = parseAcl(acl);
      for (const warning of aclWarnings(createOptions.acl)) ctx.note(`warning: ${warning}`);
    }
    const data = await readDataArgument(ctx, text);
    const client = await ctx.client();
    if (options.has('parents')) await createParents(client, path, () => ctx.call());
    const created = await client.create2(path, data, { ...createOptions, ...ctx.call() });
    if (ctx.out.json) ctx.out.emit({ path: created.path, stat: statJson(created.stat) });
    else ctx.out.line(created.path);
    return 0;
  },
};

function modeOf(options: Options): CreateMode {
  return createModeOf({
    ephemeral: options.has('ephemeral'),
    sequential: options.has('sequential'),
    container: options.has('container'),
    ttl: options.has('ttl'),
  });
}

/** The create mode for the flags -e, -s, -c and --ttl (refusing combinations ZooKeeper lacks). */
export function createModeOf(flags: {
  ephemeral: boolean;
  sequential: boolean;
  container: boolean;
  ttl: boolean;
}): CreateMode {
  const { ephemeral, sequential, container, ttl } = flags;
  if (container && (ephemeral || sequential || ttl)) {
    throw new UsageError('-c (container) does not combine with -e, -s or --ttl');
  }
  if (ephemeral && ttl) throw new UsageError('--ttl does not combine with -e (ephemeral)');
  if (container) return CreateMode.CONTAINER;
  if (ttl)
    return sequential ? CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL : CreateMode.PERSISTENT_WITH_TTL;
  if (ephemeral) return sequential ? CreateMode.EPHEMERAL_SEQUENTIAL : CreateMode.EPHEMERAL;
  return sequential ? CreateMode.PERSISTENT_SEQUENTIAL : CreateMode.PERSISTENT;
}

async function createParents(
  client: Client,
  path: string,
  call: () => { signal: AbortSignal },
): Promise<void> {
  const parts = path.split('/').slice(1, -1);
  let parent = '';
  for (const part of parts) {
    parent += `/${part}`;
    try {
      await client.create(parent, undefined, call());
    } catch (error) {
      if (!(error instanceof ZooKeeperError && error.code === 'NODEEXISTS')) throw error;
    }
  }
}
