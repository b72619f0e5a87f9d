// digest USER:PASSWORD: the id of a digest ACL entry, computed locally.
import { createHash } from 'node:crypto';
import { UsageError } from '../errors.js';
import { type Command, JSON_OPTION } from './types.js';

export const digest: Command = {
  name: 'digest',
  usage: 'digest USER:PASSWORD',
  summary: 'print user:base64(sha1(user:password)), the id for a digest ACL entry',
  details: 'Example: zkts acl set /app "digest:$(zkts digest admin:secret):cdrwa"',
  options: [JSON_OPTION],
  args: { min: 1, max: 1 },
  sessionless: true,
  async run(ctx, { positionals }) {
    const credentials = positionals[0]!;
    const colon = credentials.indexOf(':');
    if (colon <= 0) throw new UsageError('digest takes USER:PASSWORD');
    const user = credentials.slice(0, colon);
    const id = `${user}:${createHash('sha1').update(credentials).digest('base64')}`;
    if (ctx.out.json) ctx.out.emit({ id });
    else ctx.out.line(id);
    return 0;
  },
};
