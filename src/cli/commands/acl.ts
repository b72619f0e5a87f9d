// acl get PATH | acl set [-v VERSION] PATH ACL
import { aclWarnings, formatAclEntry, parseAcl, permsToString } from '../acl.js';
import { UsageError } from '../errors.js';
import { statJson } from '../output.js';
import { type Command, JSON_OPTION } from './types.js';

export const acl: Command = {
  name: 'acl',
  usage: 'acl get PATH | acl set PATH ACL',
  summary: 'show or replace the ACL of a node',
  details:
    'ACL: scheme:id:perms[,...] with perms from cdrwa, e.g.\n' +
    '  world:anyone:r,digest:admin:x1nq8J5GOJVPY6zgzhtTtA9izLc=:cdrwa,ip:10.0.0.0/8:rw\n' +
    '`zkts digest user:password` prints the id of a digest entry. -v checks the ACL version (aversion).',
  options: [
    { long: 'version', short: 'v', value: 'VERSION', help: 'only if the ACL is at this version' },
    JSON_OPTION,
  ],
  args: { min: 2, max: 3 },
  async run(ctx, { options, positionals }) {
    const [action, path, text] = positionals as [string, string, string | undefined];
    const client = await ctx.client();
    if (action === 'get') {
      if (text !== undefined) throw new UsageError('acl get takes one PATH');
      const { acl: entries, stat } = await client.getACL(path, ctx.call());
      if (ctx.out.json) {
        ctx.out.emit({
          path,
          acl: entries.map((e) => ({
            scheme: e.id.scheme,
            id: e.id.id,
            perms: permsToString(e.perms),
          })),
          stat: statJson(stat),
        });
      } else {
        for (const entry of entries) ctx.out.line(formatAclEntry(entry));
      }
      return 0;
    }
    if (action === 'set') {
      if (text === undefined) throw new UsageError('acl set needs PATH and ACL');
      const version = options.integer('version', -1, 0x7fffffff) ?? -1;
      const entries = parseAcl(text);
      for (const warning of aclWarnings(entries)) ctx.note(`warning: ${warning}`);
      const stat = await client.setACL(path, entries, version, ctx.call());
      if (ctx.out.json) ctx.out.emit({ path, stat: statJson(stat) });
      return 0;
    }
    throw new UsageError(`acl takes "get" or "set", not "${action}"`);
  },
};
