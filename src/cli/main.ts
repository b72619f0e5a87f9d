#!/usr/bin/env node
// zkts: the command-line client of zookeeper-ts. Global options, then one command or the shell.
import { COMMANDS, findCommand } from './commands/index.js';
import { SessionProvider } from './context.js';
import { runCommand } from './dispatch.js';
import { errorLine, exitCodeFor, formatError, UsageError, wantsJson } from './errors.js';
import { parseGlobals } from './globals.js';
import { commandHelp, globalHelp } from './help.js';
import { runShell } from './shell.js';
import { packageVersion } from './version.js';

async function main(argv: readonly string[]): Promise<number> {
  let parsed: ReturnType<typeof parseGlobals>;
  try {
    parsed = parseGlobals(argv, process.env);
  } catch (error) {
    process.stderr.write(`${errorLine(error, undefined, wantsJson(argv))}\n`);
    return exitCodeFor(error);
  }
  if (parsed.version) {
    process.stdout.write(`zkts ${packageVersion()}\n`);
    return 0;
  }
  const [name, ...args] = parsed.command;
  if (parsed.help || name === 'help') {
    const command = args[0] === undefined ? undefined : findCommand(args[0]);
    process.stdout.write(`${command ? commandHelp(command) : globalHelp(COMMANDS)}\n`);
    return 0;
  }
  const provider = new SessionProvider(parsed.globals);
  try {
    if (name === undefined || name === 'shell') {
      if (args.length > 0) throw new UsageError('shell takes no arguments');
      if (name === undefined && !process.stdin.isTTY) {
        throw new UsageError('no command given (`zkts shell` reads commands from stdin)');
      }
      return await runShell(provider);
    }
    return await runCommand(parsed.command, { provider, inShell: false });
  } catch (error) {
    process.stderr.write(`${errorLine(error, undefined, parsed.globals.json)}\n`);
    return exitCodeFor(error);
  } finally {
    await provider.close();
  }
}

/** Exits once everything written has been handed to the OS (pipes are asynchronous on some systems). */
function exit(code: number): void {
  process.exitCode = code;
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

// `zkts ls -R / | head`: a reader that went away is not an error worth a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

main(process.argv.slice(2)).then(exit, (error: unknown) => {
  process.stderr.write(`${formatError(error, undefined)}\n`);
  exit(1);
});
