// lock PATH [options] -- COMMAND...: flock(1) for a cluster.
import type { Lease } from '../../locks/index.js';
import { heldJson, holdLock } from '../hold.js';
import { parseLockKind, runLocked } from '../lock.js';
import { LEASE_OPTIONS, startLeaseRun, WAIT_OPTIONS } from './lease-options.js';
import type { Command } from './types.js';

export const lock: Command = {
  name: 'lock',
  usage: 'lock PATH [OPTIONS] [-- COMMAND [ARG...]]',
  summary: 'run a command while holding a lock (flock for a cluster)',
  details:
    'Without COMMAND: takes the lock and holds it until Ctrl-C, SIGTERM or SIGHUP (exit 0), or\n' +
    'until it is lost (exit 75). --json prints {path, node, fencingToken} once the lock is held.\n' +
    'Waits for the lock, runs COMMAND (no shell: use -- sh -c "..." for one), releases the lock\n' +
    'and exits with the command’s status. SIGINT, SIGTERM and SIGHUP are forwarded to the command.\n' +
    'Without a terminal the command has a process group of its own: what it leaves running there\n' +
    'keeps the lock until it ends, as with flock(1) (--leftovers stop ends it instead).\n' +
    'The command gets ZKTS_LOCK_PATH (its lock node) and ZKTS_FENCING_TOKEN (strictly increasing\n' +
    'across holders: hand it to the resource you protect).\n' +
    'If the lock is lost while the command runs (connection suspended, session expired, lock node\n' +
    'deleted), the command gets SIGTERM, then SIGKILL after --grace ms, and zkts exits 75.\n' +
    'The lock node holds --id (default HOST:PID; `zkts locks` shows it), except with --kind exclusive.\n' +
    'Kinds: mutex (default; Curator InterProcessMutex), read / write (Curator read-write lock),\n' +
    'semaphore:N (N holders; Curator InterProcessSemaphoreV2), exclusive (one plain ephemeral node).\n' +
    'Statuses: 73 lock not acquired in time (or held, with -n), 75 lock lost, 126/127 command not\n' +
    'executable / not found, 128+N interrupted by signal N while waiting; else the command’s own.',
  options: [
    ...WAIT_OPTIONS,
    {
      long: 'kind',
      short: 'k',
      value: 'KIND',
      help: 'mutex | read | write | semaphore:N | exclusive',
    },
    { long: 'no-wait', short: 'n', help: 'fail at once (exit 73) if the lock is held' },
    {
      long: 'id',
      value: 'ID',
      help: 'who holds it, stored in the lock node for `zkts locks` (default HOST:PID)',
    },
    { long: 'grace', value: 'MS', help: 'SIGTERM to SIGKILL delay on a lost lock (default 5000)' },
    ...LEASE_OPTIONS,
  ],
  args: { min: 1, max: 1 },
  rest: true,
  notInShell: 'run `zkts lock` from your system shell',
  async run(ctx, { options, positionals, rest }) {
    const { client, run: common } = await startLeaseRun(ctx, options, positionals[0], 'lock');
    const run = {
      ...common,
      kind: parseLockKind(options.string('kind') ?? 'mutex'),
      noWait: options.has('no-wait'),
      command: rest ?? [],
      // --json: one object on stdout once the lock is held (before the command's own output).
      ...(ctx.out.json
        ? { onHeld: (lease: Lease) => ctx.out.emit(heldJson(lease, positionals[0]!)) }
        : {}),
    };
    // No command: hold the lock until interrupted, as etcdctl lock NAME does.
    return run.command.length === 0 ? holdLock(client, run) : runLocked(client, run);
  },
};
