// The shape every command has: its usage, options and the function that runs it.
import type { LossPolicy } from '../../locks/index.js';
import type { OptionSpec, Options } from '../args.js';
import type { CommandContext } from '../context.js';
import { UsageError } from '../errors.js';
import type { Leftovers } from '../supervise.js';

export interface CommandInput {
  options: Options;
  positionals: string[];
  /** Words after `--` (only for commands with `rest`). */
  rest: string[] | undefined;
}

export interface Command {
  name: string;
  /** `ls [-R] [-l] PATH` */
  usage: string;
  summary: string;
  /** More help text, shown by `zkts <command> --help`. */
  details?: string;
  options: readonly OptionSpec[];
  /** How many positionals it takes. */
  args: { min: number; max: number };
  /** Takes a command line after `--`. */
  rest?: boolean;
  /** Needs no ZooKeeper session (four-letter words, digest). */
  sessionless?: boolean;
  /** Runs until interrupted: the one-shot CLI turns SIGINT/SIGTERM/SIGHUP into `ctx.interrupt`. */
  interruptible?: boolean;
  /** Not available in the interactive shell (the reason is shown). */
  notInShell?: string;
  /** Resolves the exit status (0 when omitted). */
  run(ctx: CommandContext, input: CommandInput): Promise<number | undefined>;
}

/** `--json`, accepted by every command (as well as before the command). */
export const JSON_OPTION: OptionSpec = {
  long: 'json',
  help: 'machine-readable output',
};

/** `--loss-policy`, for the commands that run something under a lease (`lock`, `elect`). */
export const LOSS_POLICY_OPTION: OptionSpec = {
  long: 'loss-policy',
  value: 'POLICY',
  help: 'suspended (default: lost when the connection drops) | expired (when the session expires)',
};

/** The `--loss-policy` given (default `suspended`); anything else is a usage error. */
export function lossPolicyOf(options: Options): LossPolicy {
  const lossPolicy = options.string('loss-policy') ?? 'suspended';
  if (lossPolicy !== 'suspended' && lossPolicy !== 'expired') {
    throw new UsageError(`--loss-policy must be suspended or expired, got "${lossPolicy}"`);
  }
  return lossPolicy;
}

/** `--leftovers`, for `lock` and `elect`: what the command leaves running in its group. */
export const LEFTOVERS_OPTION: OptionSpec = {
  long: 'leftovers',
  value: 'WHAT',
  help: 'wait (default: keep the lease until what the command left in its process group ends) | stop (SIGTERM it, SIGKILL after --grace)',
};

/** The `--leftovers` given (default `wait`); anything else is a usage error. */
export function leftoversOf(options: Options): Leftovers {
  const leftovers = options.string('leftovers') ?? 'wait';
  if (leftovers !== 'wait' && leftovers !== 'stop') {
    throw new UsageError(`--leftovers must be wait or stop, got "${leftovers}"`);
  }
  return leftovers;
}

/** How long `lock` and `elect` wait: its own name, so that `-t` means the connect timeout. */
export const WAIT_OPTION: OptionSpec = {
  long: 'wait',
  value: 'MS',
  help: 'give up waiting after MS (exit 73); default: wait until interrupted',
};

/**
 * The old spelling of --wait after `lock`/`elect` (`--timeout`, `-t`), kept so that scripts
 * written for it still time out; everywhere else, and before the command, -t is the connect
 * timeout.
 */
export const OLD_WAIT_OPTION: OptionSpec = {
  long: 'timeout',
  short: 't',
  value: 'MS',
  help: 'old spelling of --wait (here only; elsewhere -t is the connect timeout)',
};

/** The wait given by --wait (or its old spelling, with a note); undefined: wait forever. */
export function waitOf(options: Options, note: (text: string) => void): number | undefined {
  const wait = options.integer('wait', 0);
  const old = options.integer('timeout', 0);
  if (wait !== undefined && old !== undefined) {
    throw new UsageError('give --wait only (--timeout is its old spelling)');
  }
  if (old !== undefined) note('--timeout after the command is the old spelling of --wait');
  return wait ?? old;
}
