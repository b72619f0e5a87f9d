// elect PATH [options] -- COMMAND...: run a command while this process is the elected leader.
import { hostname } from 'node:os';
import { checkRecipePath } from '../../locks/errors.js';
import type { Leadership } from '../../locks/index.js';
import { runElected } from '../elect.js';
import { UsageError } from '../errors.js';
import {
  type Command,
  JSON_OPTION,
  LOSS_POLICY_OPTION,
  lossPolicyOf,
  OLD_WAIT_OPTION,
  WAIT_OPTION,
  waitOf,
} from './types.js';

export const elect: Command = {
  name: 'elect',
  usage: 'elect PATH [OPTIONS] -- COMMAND [ARG...]',
  summary: 'run a command while elected leader (Curator LeaderLatch compatible)',
  details:
    'Joins the election at PATH (Curator LeaderLatch nodes: Java LeaderLatch processes take part\n' +
    'in the same election), waits to lead, runs COMMAND (no shell), then steps down and exits with\n' +
    'the command’s status. SIGINT, SIGTERM and SIGHUP are forwarded to the command.\n' +
    'The command gets ZKTS_LOCK_PATH (its election node) and ZKTS_FENCING_TOKEN (strictly\n' +
    'increasing across leaders: hand it to the resource you protect).\n' +
    'If leadership is lost while the command runs (connection suspended, session expired, node\n' +
    'deleted), the command gets SIGTERM, then SIGKILL after --grace ms, and zkts exits 75.\n' +
    'Statuses: 73 not leader within --wait, 75 leadership lost, 126/127 command not executable\n' +
    '/ not found, 128+N interrupted by signal N while waiting; else the command’s own.',
  options: [
    { long: 'id', value: 'ID', help: 'participant id stored in the node (default HOST:PID)' },
    WAIT_OPTION,
    OLD_WAIT_OPTION,
    {
      long: 'grace',
      value: 'MS',
      help: 'SIGTERM to SIGKILL delay on lost leadership (default 5000)',
    },
    LOSS_POLICY_OPTION,
    JSON_OPTION,
  ],
  args: { min: 1, max: 1 },
  rest: true,
  notInShell: 'run `zkts elect` from your system shell',
  async run(ctx, { options, positionals, rest }) {
    if (rest === undefined || rest.length === 0) {
      throw new UsageError(
        'elect needs a command after --, e.g. zkts elect /election/job -- ./job.sh',
      );
    }
    const lossPolicy = lossPolicyOf(options);
    // A bad path is refused before connecting, in the words the user typed.
    checkRecipePath(positionals[0], 'elect');
    const client = await ctx.client();
    return runElected(client, {
      path: positionals[0]!,
      id: options.string('id') ?? `${hostname()}:${process.pid}`,
      timeout: waitOf(options, (text) => ctx.note(text)),
      grace: options.integer('grace', 0) ?? 5_000,
      lossPolicy,
      command: rest,
      note: (text) => ctx.note(text),
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
