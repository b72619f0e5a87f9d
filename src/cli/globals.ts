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

/**
 * The global options that may also follow the command (`zkts bench -s host:2181 mutex`), as the
 * command's parser should know them: every long name, and the short letters the command does not
 * use itself (`create -s` stays zkCli's sequential flag; `--server` works there). Help, version
 * and json are the command's own already.
 */
export function globalsAfterCommand(own: readonly OptionSpec[]): OptionSpec[] {
  const longs = new Set(own.map((o) => o.long));
  const shorts = new Set(own.flatMap((o) => (o.short ? [o.short] : [])));
  return GLOBAL_OPTIONS.filter(
    (o) => !longs.has(o.long) && o.long !== 'help' && o.long !== 'version',
  ).map(({ short, ...rest }) => (short && !shorts.has(short) ? { ...rest, short } : rest));
}

/**
 * `base` with the global options found in `options` applied (the others left as they were).
 * `globals`: the names that are global options where `options` was parsed (after a command, one
 * of its own options of the same name is not: `elect --timeout` is the old spelling of --wait).
 */
export function withGlobals(
  base: GlobalOptions,
  options: Options,
  globals?: ReadonlySet<string>,
): GlobalOptions {
  const given = (name: string) => (globals === undefined || globals.has(name) ? name : '');
  const sasl = options.string(given('sasl'));
  return {
    servers: options.string(given('server')) ?? base.servers,
    timeout: options.integer(given('timeout'), 1) ?? base.timeout,
    sessionTimeout: options.integer(given('session-timeout'), 1) ?? base.sessionTimeout,
    auth: [...base.auth, ...options.strings(given('auth')).map(parseAuth)],
    sasl: sasl === undefined ? base.sasl : parseSasl(sasl),
    readOnly: base.readOnly || options.has(given('read-only')),
    json: base.json || options.has('json'),
  };
}

/** Whether `options` holds any global option (of `globals`, see withGlobals) that changes the session. */
export function changesSession(options: Options, globals?: ReadonlySet<string>): boolean {
  return ['server', 'timeout', 'session-timeout', 'auth', 'sasl', 'read-only'].some(
    (name) => (globals === undefined || globals.has(name)) && options.has(name),
  );
}

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
  const defaults: GlobalOptions = {
    servers: env.ZOOKEEPER_SERVERS || DEFAULT_SERVERS,
    timeout: 10_000,
    sessionTimeout: 30_000,
    auth: [],
    sasl: parseSasl(env.ZKTS_SASL),
    readOnly: false,
    json: false,
  };
  return {
    globals: withGlobals(defaults, options),
    help: options.has('help'),
    version: options.has('version'),
    command: parsed.rest ?? [],
  };
}
