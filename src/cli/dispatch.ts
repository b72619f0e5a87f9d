// Runs one command line (`ls -l /a`) to its exit status: the shared path of the CLI and the shell.
import { Options, parseArgs } from './args.js';
import { COMMANDS, findCommand } from './commands/index.js';
import { type Command, JSON_OPTION } from './commands/types.js';
import type { CommandContext, SessionProvider } from './context.js';
import { errorLine, exitCodeFor, requestDeadline, UsageError, wantsJson } from './errors.js';
import { changesSession, globalsAfterCommand, withGlobals } from './globals.js';
import { commandHelp } from './help.js';
import { Output } from './output.js';

export interface Invocation {
  provider: SessionProvider;
  /** Inside the interactive shell. */
  inShell: boolean;
  /**
   * Aborted when the user interrupts. The shell passes its own (Ctrl-C at the prompt); without
   * one, an interruptible command gets SIGINT/SIGTERM/SIGHUP of this process.
   */
  interrupt?: AbortSignal;
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export async function runCommand(argv: readonly string[], invocation: Invocation): Promise<number> {
  const [name, ...args] = argv;
  const command = name === undefined ? undefined : findCommand(name);
  try {
    if (command === undefined) {
      throw new UsageError(
        `unknown command "${name}"; commands: ${COMMANDS.map((c) => c.name).join(', ')}`,
      );
    }
    return await runParsed(command, args, invocation);
  } catch (error) {
    const json = invocation.provider.globals.json || wantsJson(args);
    process.stderr.write(`${errorLine(error, command?.name, json)}\n`);
    if (process.env.ZKTS_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    return exitCodeFor(error);
  }
}

async function runParsed(
  command: Command,
  args: readonly string[],
  invocation: Invocation,
): Promise<number> {
  const specs = [...command.options, { long: 'help', short: 'h', help: '' }];
  if (!specs.some((s) => s.long === JSON_OPTION.long)) specs.push(JSON_OPTION);
  const globalsHere = globalsAfterCommand(specs);
  specs.push(...globalsHere);
  // The global options here: not those the command has an option of the same name for.
  const globalNames = new Set(globalsHere.map((spec) => spec.long));
  const parsed = parseArgs(args, specs, { command: command.name });
  const options = new Options(parsed.options);
  if (options.has('help')) {
    process.stdout.write(`${commandHelp(command)}\n`);
    return 0;
  }
  const { provider } = invocation;
  if (changesSession(options, globalNames)) {
    if (invocation.inShell) {
      throw new UsageError(
        'the shell has one session: give -s, -t, --auth, --sasl when starting zkts',
      );
    }
    provider.setGlobals(withGlobals(provider.globals, options, globalNames));
  }
  if (invocation.inShell && command.notInShell) {
    throw new UsageError(`${command.name} is not available in the shell: ${command.notInShell}`);
  }
  const positionals = command.rest
    ? parsed.positionals
    : [...parsed.positionals, ...(parsed.rest ?? [])];
  const { min, max } = command.args;
  if (positionals.length < min || positionals.length > max) {
    throw new UsageError(`usage: zkts ${command.usage}`);
  }
  const interrupts = new AbortController();
  const ctx: CommandContext = {
    out: new Output(process.stdout, provider.globals.json || options.has('json')),
    globals: provider.globals,
    client: () => provider.client(),
    call: () => ({ signal: requestDeadline(provider.globals.timeout) }),
    interrupt: invocation.interrupt ?? interrupts.signal,
    inShell: invocation.inShell,
    note: (text) => process.stderr.write(`zkts: ${text}\n`),
  };
  const listen = command.interruptible && invocation.interrupt === undefined;
  const onSignal = (signal: NodeJS.Signals) => interrupts.abort(signal);
  if (listen) for (const signal of SIGNALS) process.on(signal, onSignal);
  try {
    return (
      (await command.run(ctx, {
        options,
        positionals,
        rest: command.rest ? parsed.rest : undefined,
      })) ?? 0
    );
  } finally {
    if (listen) for (const signal of SIGNALS) process.off(signal, onSignal);
  }
}
