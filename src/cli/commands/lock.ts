// lock PATH [options] -- COMMAND...: flock(1) for a cluster.
import { checkRecipePath } from '../../locks/errors.js';
import { UsageError } from '../errors.js';
import { parseLockKind, runLocked } from '../lock.js';
import {
  type Command,
  JSON_OPTION,
  LOSS_POLICY_OPTION,
  lossPolicyOf,
  OLD_WAIT_OPTION,
  WAIT_OPTION,
  waitOf,
} from './types.js';

export const lock: Command = {
  name: 'lock',
  usage: 'lock PATH [OPTIONS] -- COMMAND [ARG...]',
  summary: 'run a command while holding a lock (flock for a cluster)',
  details:
    'Waits for the lock, runs COMMAND (no shell: use -- sh -c "..." for one), releases the lock\n' +
    'and exits with the command’s status. SIGINT, SIGTERM and SIGHUP are forwarded to the command.\n' +
    'The command gets ZKTS_LOCK_PATH (its lock node) and ZKTS_FENCING_TOKEN (strictly increasing\n' +
    'across holders: hand it to the resource you protect).\n' +
    'If the lock is lost while the command runs (connection suspended, session expired, lock node\n' +
    'deleted), the command gets SIGTERM, then SIGKILL after --grace ms, and zkts exits 75.\n' +
    'Kinds: mutex (default; Curator InterProcessMutex), read / write (Curator read-write lock),\n' +
    'semaphore:N (N holders; Curator InterProcessSemaphoreV2), exclusive (one plain ephemeral node).\n' +
    'Statuses: 73 lock not acquired in time (or held, with -n), 75 lock lost, 126/127 command not\n' +
    'executable / not found, 128+N interrupted by signal N while waiting; else the command’s own.',
  options: [
    WAIT_OPTION,
    OLD_WAIT_OPTION,
    {
      long: 'kind',
      short: 'k',
      value: 'KIND',
      help: 'mutex | read | write | semaphore:N | exclusive',
    },
    { long: 'no-wait', short: 'n', help: 'fail at once (exit 73) if the lock is held' },
    { long: 'grace', value: 'MS', help: 'SIGTERM to SIGKILL delay on a lost lock (default 5000)' },
    LOSS_POLICY_OPTION,
    JSON_OPTION,
  ],
  args: { min: 1, max: 1 },
  rest: true,
  notInShell: 'run `zkts lock` from your system shell',
  async run(ctx, { options, positionals, rest }) {
    if (rest === undefined || rest.length === 0) {
      throw new UsageError('lock needs a command after --, e.g. zkts lock /locks/job -- ./job.sh');
    }
    const lossPolicy = lossPolicyOf(options);
    // A bad path is refused before connecting, in the words the user typed.
    checkRecipePath(positionals[0], 'lock');
    const client = await ctx.client();
    return runLocked(client, {
      path: positionals[0]!,
      kind: parseLockKind(options.string('kind') ?? 'mutex'),
      timeout: waitOf(options, (text) => ctx.note(text)),
      noWait: options.has('no-wait'),
      grace: options.integer('grace', 0) ?? 5_000,
      lossPolicy,
      command: rest,
      note: (text) => ctx.note(text),
    });
  },
};
