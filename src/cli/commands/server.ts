// server: the in-process ZooKeeper of zookeeper-ts/testing on a TCP port, for trying the library
// and for development on a machine with only Node. Not durable: the tree lives in memory and is
// gone when the command ends. Not for production.
import { startServer } from '../../testing/index.js';
import { type Command, JSON_OPTION } from './types.js';

export const server: Command = {
  name: 'server',
  usage: 'server [--port PORT] [--host HOST] [--members N] [--tick-time MS]',
  summary:
    'run an in-process ZooKeeper for development (in memory: not durable, not for production)',
  details: [
    'Serves the ZooKeeper protocol from a model of the server kept in memory, until interrupted.',
    'Everything is lost when it stops; there is no disk, no authentication beyond digest, no TLS.',
    'For development and tests only: use a real ZooKeeper for anything you need to keep.',
    'Example: zkts server &   then   zkts -s 127.0.0.1:2181 ls /',
  ].join('\n'),
  options: [
    { long: 'port', value: 'PORT', help: 'first member port (default 2181; 0: any free port)' },
    { long: 'host', value: 'HOST', help: 'address to listen on (default 127.0.0.1)' },
    { long: 'members', value: 'N', help: 'members of the ensemble, one port each (default 1)' },
    { long: 'tick-time', value: 'MS', help: "ZooKeeper's tickTime (default 2000)" },
    JSON_OPTION,
  ],
  args: { min: 0, max: 0 },
  sessionless: true,
  interruptible: true,
  notInShell: 'it runs a server until interrupted',
  async run(ctx, { options }) {
    const port = options.integer('port', 0, 65535) ?? 2181;
    const members = options.integer('members', 1, 15) ?? 1;
    const tickTime = options.integer('tick-time', 1, 60_000) ?? 2000;
    const host = options.string('host') ?? '127.0.0.1';
    const running = await startServer({ listen: true, host, port, members, tickTime });
    try {
      if (ctx.out.json) {
        ctx.out.emit({ connectString: running.connectString, durable: false });
      } else {
        ctx.out.line(`in-process ZooKeeper listening on ${running.connectString}`);
        ctx.note(
          'zkts server keeps everything in memory: not durable, not for production (Ctrl-C stops it)',
        );
      }
      await new Promise<void>((resolve) => {
        if (ctx.interrupt.aborted) resolve();
        else ctx.interrupt.addEventListener('abort', () => resolve(), { once: true });
      });
      return 0;
    } finally {
      await running.close();
    }
  },
};
