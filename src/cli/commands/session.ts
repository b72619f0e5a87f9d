// Session-level commands: auth, sync, ephemerals, whoami.
import { parseAuth } from '../context.js';
import { hex } from '../output.js';
import { type Command, JSON_OPTION } from './types.js';

export const auth: Command = {
  name: 'auth',
  usage: 'auth SCHEME:CREDENTIALS',
  summary: 'add credentials to the session (e.g. digest:user:password)',
  details:
    'In the shell the credentials stay for the rest of the session. On the command line, use the\n' +
    'global --auth option to apply them before a command; `zkts auth` alone only checks them.',
  options: [JSON_OPTION],
  args: { min: 1, max: 1 },
  async run(ctx, { positionals }) {
    const { scheme, credentials } = parseAuth(positionals[0]!);
    const client = await ctx.client();
    await client.addAuth(scheme, credentials);
    if (ctx.out.json) ctx.out.emit({ scheme, ok: true });
    return 0;
  },
};

export const sync: Command = {
  name: 'sync',
  usage: 'sync PATH',
  summary: 'make the connected server catch up with the leader',
  options: [JSON_OPTION],
  args: { min: 1, max: 1 },
  async run(ctx, { positionals }) {
    const path = positionals[0]!;
    const client = await ctx.client();
    await client.sync(path, ctx.call());
    if (ctx.out.json) ctx.out.emit({ path, synced: true });
    return 0;
  },
};

export const ephemerals: Command = {
  name: 'ephemerals',
  usage: 'ephemerals [PREFIX]',
  summary: "list this session's ephemeral nodes (useful in the shell)",
  options: [JSON_OPTION],
  args: { min: 0, max: 1 },
  async run(ctx, { positionals }) {
    const prefix = positionals[0] ?? '/';
    const client = await ctx.client();
    const paths = (await client.getEphemerals(prefix, ctx.call())).sort();
    if (ctx.out.json) ctx.out.emit({ prefix, ephemerals: paths });
    else for (const path of paths) ctx.out.line(path);
    return 0;
  },
};

export const whoami: Command = {
  name: 'whoami',
  usage: 'whoami',
  summary: 'show the identities the server knows this session by',
  options: [JSON_OPTION],
  args: { min: 0, max: 0 },
  async run(ctx) {
    const client = await ctx.client();
    const identities = await client.whoAmI(ctx.call());
    const session = hex(client.sessionId);
    if (ctx.out.json) {
      ctx.out.emit({
        session,
        server: client.server,
        identities: identities.map((i) => ({ scheme: i.authScheme, user: i.user })),
      });
    } else {
      ctx.out.table([
        ...identities.map((i) => [ctx.out.dim(i.authScheme), i.user]),
        [ctx.out.dim('session'), `${session} on ${client.server ?? '(disconnected)'}`],
      ]);
    }
    return 0;
  },
};
