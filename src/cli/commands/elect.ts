// elect PATH [options] -- COMMAND...: run a command while this process is the elected leader.
import type { Leadership } from '../../locks/index.js';
import { runElected } from '../elect.js';
import { electionJson, listElection, printElection } from '../election-view.js';
import { UsageError } from '../errors.js';
import { LEASE_OPTIONS, startLeaseRun, WAIT_OPTIONS } from './lease-options.js';
import type { Command } from './types.js';

export const elect: Command = {
  name: 'elect',
  usage: 'elect PATH [OPTIONS] -- COMMAND [ARG...]  |  elect --list PATH',
  summary: 'run a command while elected leader (Curator LeaderLatch compatible)',
  details:
    'Joins the election at PATH (Curator LeaderLatch nodes: Java LeaderLatch processes take part\n' +
    'in the same election), waits to lead, runs COMMAND (no shell), then steps down and exits with\n' +
    'the command’s status. SIGINT, SIGTERM and SIGHUP are forwarded to the command.\n' +
    'Without a terminal the command has a process group of its own: what it leaves running there\n' +
    'keeps leadership until it ends (--leftovers stop ends it instead).\n' +
    'The command gets ZKTS_LOCK_PATH (its election node) and ZKTS_FENCING_TOKEN (strictly\n' +
    'increasing across leaders: hand it to the resource you protect).\n' +
    'If leadership is lost while the command runs (connection suspended, session expired, node\n' +
    'deleted), the command gets SIGTERM, then SIGKILL after --grace ms; zkts then waits to lead\n' +
    'again (on a new session if the old one expired) and runs the command again. With\n' +
    '--exit-on-loss it exits 75 instead.\n' +
    'Statuses: 73 not leader within --wait, 75 leadership lost (--exit-on-loss), 126/127\n' +
    'command not executable / not found, 128+N interrupted by signal N while waiting; else the\n' +
    'command’s own.\n' +
    '--list PATH prints the leader and the candidates in line (no command; like etcdctl elect\n' +
    '-l): LeaderLatch candidates, or else a LeaderSelector election’s. Exit 3 if PATH is missing.',
  options: [
    { long: 'list', short: 'l', help: 'print the leader and the candidates of PATH, then exit' },
    { long: 'id', value: 'ID', help: 'participant id stored in the node (default HOST:PID)' },
    ...WAIT_OPTIONS,
    {
      long: 'grace',
      value: 'MS',
      help: 'SIGTERM to SIGKILL delay on lost leadership (default 5000)',
    },
    {
      long: 'exit-on-loss',
      help: 'exit 75 when leadership is lost, instead of waiting to lead again',
    },
    ...LEASE_OPTIONS,
  ],
  args: { min: 1, max: 1 },
  rest: true,
  notInShell: 'run `zkts elect` from your system shell',
  async run(ctx, { options, positionals, rest }) {
    if (options.has('list')) {
      if (rest !== undefined && rest.length > 0) throw new UsageError('--list takes no command');
      const client = await ctx.client();
      const view = await listElection(client, positionals[0]!, ctx.call().signal);
      if (ctx.out.json) ctx.out.emit(electionJson(view));
      else printElection(ctx.out, view);
      return 0;
    }
    if (rest === undefined || rest.length === 0) {
      throw new UsageError(
        'elect needs a command after --, e.g. zkts elect /election/job -- ./job.sh',
      );
    }
    const { client, run } = await startLeaseRun(ctx, options, positionals[0], 'elect');
    return runElected(client, {
      ...run,
      rejoin: !options.has('exit-on-loss'),
      command: rest,
      // --json: one object on stdout once leading (before the command's own output).
      ...(ctx.out.json
        ? {
            onLeading: (term: Leadership) =>
              ctx.out.emit({
                path: positionals[0]!,
                node: term.path,
                fencingToken: String(term.fencingToken),
              }),
          }
        : {}),
    });
  },
};
