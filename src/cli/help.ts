// `zkts --help` and `zkts COMMAND --help`.
import type { OptionSpec } from './args.js';
import type { Command } from './commands/types.js';
import { ExitCode } from './errors.js';
import { GLOBAL_OPTIONS } from './globals.js';

function optionLines(options: readonly OptionSpec[]): string[] {
  const rows = options.map((o) => {
    const names = [o.short ? `-${o.short}` : undefined, `--${o.long}`].filter(Boolean).join(', ');
    return [`  ${names}${o.value ? ` ${o.value}` : ''}`, o.help] as const;
  });
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, help]) => `${left.padEnd(width)}  ${help}`);
}

export const EXIT_STATUS_HELP: readonly [number | string, string][] = [
  [ExitCode.OK, 'success'],
  [ExitCode.ERROR, 'other ZooKeeper error'],
  [ExitCode.USAGE, 'bad command line, path or ACL (BADARGUMENTS, INVALIDACL)'],
  [ExitCode.NONODE, 'NONODE: no such node'],
  [ExitCode.NODEEXISTS, 'NODEEXISTS: the node exists'],
  [ExitCode.BADVERSION, 'BADVERSION: version mismatch (-v)'],
  [ExitCode.NOTEMPTY, 'NOTEMPTY: the node has children (use rm -R)'],
  [ExitCode.NOAUTH, 'NOAUTH, AUTHFAILED: not allowed'],
  [ExitCode.UNAVAILABLE, 'no session, connection lost, session expired, or no reply in time'],
  [
    ExitCode.LOCK_TIMEOUT,
    'lock: not acquired within --wait (or held, with -n); elect: not leader in time',
  ],
  [ExitCode.LOCK_LOST, 'lock/elect: lock or leadership lost while the command ran; it was stopped'],
  [ExitCode.CANNOT_EXECUTE, 'lock/elect: the command cannot be executed'],
  [ExitCode.NOT_FOUND, 'lock/elect: the command was not found'],
  ['128+N', 'lock/elect: interrupted by signal N while waiting; bench: interrupted'],
];

export function globalHelp(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.usage.length), 'shell'.length);
  const statusWidth = Math.max(...EXIT_STATUS_HELP.map(([code]) => String(code).length));
  return [
    'zkts: a ZooKeeper shell and a cluster-wide flock',
    '',
    'Usage: zkts [OPTIONS] COMMAND [ARGS...]',
    '       zkts [OPTIONS] [shell]        interactive shell (the default on a terminal)',
    '',
    'Options:',
    ...optionLines(GLOBAL_OPTIONS),
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`),
    `  ${'shell'.padEnd(width)}  interactive shell with history and path completion`,
    '',
    'Every command takes --json (errors are then JSON on stderr too); `zkts COMMAND --help`',
    'tells more. The options above may also follow the command (`zkts bench -s zk1:2181 mutex`)',
    'with the same meaning, in the long form always and in the short form where the command has no',
    'short option of that letter (`create -s` is sequential: use --server there).',
    '',
    'Exit status:',
    ...EXIT_STATUS_HELP.map(([code, text]) => `  ${String(code).padStart(statusWidth)}  ${text}`),
    '',
    'Environment: ZOOKEEPER_SERVERS (default servers), NO_COLOR (no colours),',
    '             ZKTS_HISTORY (shell history file, default ~/.zkts_history; empty: none),',
    '             ZKTS_SASL (user:password for --sasl, kept out of the process list).',
    '',
    'Examples:',
    '  zkts -s zk1:2181,zk2:2181/app ls -l /',
    '  zkts get --json /config | jq -r .data',
    '  echo -n on | zkts set /flags/feature -',
    '  zkts lock /locks/backup --wait 60000 -- ./backup.sh',
    '  zkts locks -R /locks',
    '  zkts bench mutex --sessions 64 --processes 2',
  ].join('\n');
}

export function commandHelp(command: Command): string {
  return [
    `Usage: zkts [OPTIONS] ${command.usage}`,
    '',
    `${command.summary[0]!.toUpperCase()}${command.summary.slice(1)}.`,
    ...(command.details ? ['', command.details] : []),
    '',
    'Options:',
    ...optionLines([...command.options, { long: 'help', short: 'h', help: 'this help' }]),
    '',
    'The global options (zkts --help) may be given here too.',
  ].join('\n');
}
