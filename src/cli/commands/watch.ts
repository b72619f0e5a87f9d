// watch [-R] PATH: stream the events of a persistent watch until interrupted.
import { ZooKeeperError } from '../../index.js';
import { isoTime } from '../output.js';
import { type Command, JSON_OPTION } from './types.js';

export const watch: Command = {
  name: 'watch',
  usage: 'watch [-R] PATH',
  summary: 'print events on a node (-R: and its descendants) until Ctrl-C',
  details:
    'A persistent watch (ZooKeeper 3.6+): it stays set across reconnects, so no event is missed\n' +
    'between two events. --json prints one JSON object per line: {time, type, path}.\n' +
    'After a reconnect or a new session (the old one expired) it prints Resync: changes made\n' +
    'meanwhile may have been missed. Ends with status 0 on Ctrl-C/SIGTERM, 69 if the client ends.',
  options: [{ long: 'recursive', short: 'R', help: 'also every descendant' }, JSON_OPTION],
  args: { min: 1, max: 1 },
  interruptible: true,
  async run(ctx, { options, positionals }) {
    const path = positionals[0]!;
    const recursive = options.has('recursive');
    const client = await ctx.client();
    const events = client.watch(path, { recursive, signal: ctx.interrupt });
    try {
      // Replies come in request order: once this one is back, the watch is set on the server.
      await client.exists(path, ctx.call());
      ctx.note(`watching ${path}${recursive ? ' and its descendants' : ''} (Ctrl-C to stop)`);
      for await (const event of events) {
        if (event.type === 'None') {
          throw new ZooKeeperError('SESSIONEXPIRED', `the session ended (${event.state})`, {
            path,
          });
        }
        const time = isoTime(Date.now());
        const cause = event.cause === undefined ? {} : { cause: event.cause };
        if (ctx.out.json) ctx.out.emit({ time, type: event.type, path: event.path, ...cause });
        else
          ctx.out.line(
            `${ctx.out.dim(time)}  ${ctx.out.yellow(event.type.padEnd(19))}  ${event.path}${event.cause ? `  (${event.cause})` : ''}`,
          );
      }
    } catch (error) {
      if (ctx.interrupt.aborted) return 0;
      throw error;
    } finally {
      await events.return?.();
    }
    return 0;
  },
};
