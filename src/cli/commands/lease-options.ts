// What `lock` and `elect` share: they run a command under a lease (a lock's, or a leader's term),
// so they take the same options for the wait, the lease's loss and what the command leaves
// running, and read them, and the path, the same way.
import { hostname } from 'node:os';
import type { Client } from '../../index.js';
import { checkRecipePath } from '../../locks/errors.js';
import type { LossPolicy } from '../../locks/index.js';
import type { OptionSpec, Options } from '../args.js';
import type { CommandContext } from '../context.js';
import { UsageError } from '../errors.js';
import type { Leftovers } from '../supervise.js';
import { JSON_OPTION } from './types.js';

/**
 * How long `lock` and `elect` wait (`--wait`: its own name, so that `-t` means the connect
 * timeout), and its old spelling `--timeout`/`-t` after the command, kept so that scripts written
 * for it still time out; everywhere else, and before the command, -t is the connect timeout.
 */
export const WAIT_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'wait',
    value: 'MS',
    help: 'give up waiting after MS (exit 73); default: wait until interrupted',
  },
  {
    long: 'timeout',
    short: 't',
    value: 'MS',
    help: 'old spelling of --wait (here only; elsewhere -t is the connect timeout)',
  },
];

/** `--leftovers`, `--loss-policy` and `--json`: the last options of `lock` and `elect`. */
export const LEASE_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'leftovers',
    value: 'WHAT',
    help: 'wait (default: keep the lease until what the command left in its process group ends) | stop (SIGTERM it, SIGKILL after --grace)',
  },
  {
    long: 'loss-policy',
    value: 'POLICY',
    help: 'suspended (default: lost when the connection drops) | expired (when the session expires)',
  },
  JSON_OPTION,
];

/** The value of option `name`: one of `choices`, the first by default; else a usage error. */
function choiceOf<C extends string>(options: Options, name: string, choices: readonly [C, C]): C {
  const value = options.string(name) ?? choices[0];
  if (!(choices as readonly string[]).includes(value)) {
    throw new UsageError(`--${name} must be ${choices[0]} or ${choices[1]}, got "${value}"`);
  }
  return value as C;
}

/** The wait given by --wait (or its old spelling, with a note); undefined: wait forever. */
function waitOf(options: Options, note: (text: string) => void): number | undefined {
  const wait = options.integer('wait', 0);
  const old = options.integer('timeout', 0);
  if (wait !== undefined && old !== undefined) {
    throw new UsageError('give --wait only (--timeout is its old spelling)');
  }
  if (old !== undefined) note('--timeout after the command is the old spelling of --wait');
  return wait ?? old;
}

/** The settings of a run under a lease that `lock` and `elect` read alike from their options. */
export interface LeaseRun {
  path: string;
  /** Who takes part (`--id`, default `HOST:PID`), stored in its node. */
  id: string;
  /** Give up waiting after this many ms (undefined: wait forever). */
  timeout: number | undefined;
  /** SIGTERM to SIGKILL delay when the lease is lost (`--grace`, default 5000). */
  grace: number;
  leftovers: Leftovers;
  lossPolicy: LossPolicy;
  note(text: string): void;
}

/**
 * Checks `--loss-policy` and the path (a bad path is refused before connecting, in the words the
 * user typed), connects, and reads the rest of the run's common settings.
 */
export async function startLeaseRun(
  ctx: CommandContext,
  options: Options,
  path: string | undefined,
  command: 'lock' | 'elect',
): Promise<{ client: Client; run: LeaseRun }> {
  const lossPolicy = choiceOf(options, 'loss-policy', ['suspended', 'expired']);
  checkRecipePath(path, command);
  const client = await ctx.client();
  const note = (text: string) => ctx.note(text);
  const run: LeaseRun = {
    path: path!,
    id: options.string('id') ?? `${hostname()}:${process.pid}`,
    timeout: waitOf(options, note),
    grace: options.integer('grace', 0) ?? 5_000,
    leftovers: choiceOf(options, 'leftovers', ['wait', 'stop']),
    lossPolicy,
    note,
  };
  return { client, run };
}
