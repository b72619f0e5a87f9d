// Options given before the command, and the environment they default from.
import { type OptionSpec, Options, parseArgs } from './args.js';
import { DEFAULT_SERVERS, type GlobalOptions, parseAuth, parseSasl } from './context.js';

export const GLOBAL_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'server',
    short: 's',
    value: 'HOSTS',
    help: `host:port[,host:port...][/chroot] (default $ZOOKEEPER_SERVERS or ${DEFAULT_SERVERS})`,
  },
  {
    long: 'timeout',
    short: 't',
    value: 'MS',
    help: 'connect timeout, and the limit for each request (default 10000)',
  },
  { long: 'session-timeout', value: 'MS', help: 'requested session timeout (default 30000)' },
  {
    long: 'auth',
    short: 'a',
    value: 'SCHEME:CRED',
    repeat: true,
    help: 'credentials sent before the command, e.g. digest:user:password (repeatable)',
  },
  {
    long: 'sasl',
    value: 'USER:PASSWORD',
    help: 'SASL DIGEST-MD5 login, run on every connection before anything else (default $ZKTS_SASL)',
  },
  { long: 'read-only', short: 'r', help: 'accept read-only servers' },
  { long: 'json', help: 'machine-readable output (JSON; one object per line for watch)' },
  { long: 'help', short: 'h', help: 'this help (or: zkts COMMAND --help)' },
  { long: 'version', short: 'V', help: 'print the version' },
];

export interface GlobalParse {
  globals: GlobalOptions;
  help: boolean;
  version: boolean;
  /** The command and its arguments (empty when none was given). */
  command: string[];
}

export function parseGlobals(argv: readonly string[], env: NodeJS.ProcessEnv): GlobalParse {
  const parsed = parseArgs(argv, GLOBAL_OPTIONS, { command: 'zkts', stopAtPositional: true });
  const options = new Options(parsed.options);
  const servers = options.string('server') ?? (env.ZOOKEEPER_SERVERS || DEFAULT_SERVERS);
  return {
    globals: {
      servers,
      timeout: options.integer('timeout', 1) ?? 10_000,
      sessionTimeout: options.integer('session-timeout', 1) ?? 30_000,
      auth: options.strings('auth').map(parseAuth),
      sasl: parseSasl(options.string('sasl') ?? env.ZKTS_SASL),
      readOnly: options.has('read-only'),
      json: options.has('json'),
    },
    help: options.has('help'),
    version: options.has('version'),
    command: parsed.rest ?? [],
  };
}
