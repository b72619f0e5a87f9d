// The shape every command has: its usage, options and the function that runs it.
import type { OptionSpec, Options } from '../args.js';
import type { CommandContext } from '../context.js';

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
