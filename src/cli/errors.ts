// Exit statuses and the one-line error report. Scripts branch on the status, people read the line.
import { TimeoutError, ZooKeeperError } from '../index.js';

/** Exit statuses of `zkts` (listed in `zkts --help`). */
export const ExitCode = {
  OK: 0,
  /** Any ZooKeeper error without a status of its own. */
  ERROR: 1,
  /** Bad command line, bad path or ACL (BADARGUMENTS, INVALIDACL). */
  USAGE: 2,
  NONODE: 3,
  NODEEXISTS: 4,
  BADVERSION: 5,
  NOTEMPTY: 6,
  /** NOAUTH, AUTHFAILED. */
  NOAUTH: 7,
  /** No session, connection lost, session expired, no reply in time. */
  UNAVAILABLE: 69,
  /** `lock`: not acquired within --timeout (or at once with --no-wait). */
  LOCK_TIMEOUT: 73,
  /** `lock`: the lease was lost while the command ran; the command was stopped. */
  LOCK_LOST: 75,
  /** `lock`: the command could not be executed. */
  CANNOT_EXECUTE: 126,
  /** `lock`: the command was not found. */
  NOT_FOUND: 127,
} as const;

const BY_CODE: Record<string, number> = {
  BADARGUMENTS: ExitCode.USAGE,
  INVALIDACL: ExitCode.USAGE,
  NONODE: ExitCode.NONODE,
  NODEEXISTS: ExitCode.NODEEXISTS,
  BADVERSION: ExitCode.BADVERSION,
  NOTEMPTY: ExitCode.NOTEMPTY,
  NOAUTH: ExitCode.NOAUTH,
  AUTHFAILED: ExitCode.NOAUTH,
  CONNECTIONLOSS: ExitCode.UNAVAILABLE,
  SESSIONEXPIRED: ExitCode.UNAVAILABLE,
  SESSIONMOVED: ExitCode.UNAVAILABLE,
  OPERATIONTIMEOUT: ExitCode.UNAVAILABLE,
  // A request that got no reply within --timeout (the client's own limit, not the server's code).
  TIMEOUT: ExitCode.UNAVAILABLE,
  REQUESTTIMEOUT: ExitCode.UNAVAILABLE,
  NOTREADONLY: ExitCode.UNAVAILABLE,
};

/** An error of the CLI itself (not from the client), with the code shown and the exit status. */
export class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode: number = ExitCode.ERROR,
  ) {
    super(message);
  }
}

/** A bad command line: exit status 2. */
export class UsageError extends CliError {
  constructor(message: string) {
    super('USAGE', message, ExitCode.USAGE);
  }
}

export function exitCodeFor(error: unknown): number {
  if (error instanceof CliError) return error.exitCode;
  if (error instanceof ZooKeeperError) return BY_CODE[error.code] ?? ExitCode.ERROR;
  if (isTimeout(error)) return ExitCode.UNAVAILABLE;
  return ExitCode.ERROR;
}

/** What to type instead, for the errors a command's own option would have avoided. */
function hintFor(error: ZooKeeperError, command: string | undefined): string | undefined {
  if (command === 'create' && error.code === 'NONODE' && / its parent /.test(error.message))
    return 'create -p makes the missing parents';
  if (command === 'rm' && error.code === 'NOTEMPTY')
    return 'rm -R deletes it with all its descendants';
  return undefined;
}

/** A time limit that ran out: the library's TimeoutError, or the platform's `AbortSignal.timeout()` reason. */
function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === 'TimeoutError';
}

/**
 * The signal for one request under `--timeout`: it aborts after `ms` with the library's
 * {@link TimeoutError} (code `TIMEOUT`), the error every time limit of the client and its recipes
 * rejects with. The timer does not keep the process alive.
 */
export function requestDeadline(ms: number): AbortSignal {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new TimeoutError(ms, `no reply within ${ms} ms (--timeout)`)),
    ms,
  );
  timer.unref?.();
  return controller.signal;
}

/** `zkts: NONODE: no node at /a (get)`: the one line an error gets on stderr. */
export function formatError(error: unknown, command: string | undefined): string {
  return `zkts: ${describeError(error, command)}`;
}

/**
 * The error line for stderr: `formatError`'s, or under `--json` one JSON object,
 * `{"error":{"code","message","status","command","path"}}`, so that a script reading JSON reads
 * its errors the same way.
 */
export function errorLine(error: unknown, command: string | undefined, json: boolean): string {
  if (!json) return formatError(error, command);
  const code =
    error instanceof CliError || error instanceof ZooKeeperError
      ? error.code
      : isTimeout(error)
        ? 'TIMEOUT'
        : 'ERROR';
  const line = describeError(error, undefined);
  const message = line.startsWith(`${code}: `) ? line.slice(code.length + 2) : line;
  const path = error instanceof ZooKeeperError ? error.path : undefined;
  return JSON.stringify({
    error: {
      code,
      message,
      status: exitCodeFor(error),
      ...(command === undefined ? {} : { command }),
      ...(path === undefined ? {} : { path }),
    },
  });
}

/** Whether a command line asks for JSON (`--json` before any `--`). */
export function wantsJson(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).includes('--json');
}

/**
 * `NONODE: no node at /a (get)`. The client's messages start with the code and end with the
 * client operation; the code is shown once and the operation is replaced by the command.
 */
export function describeError(error: unknown, command: string | undefined): string {
  const where = command === undefined ? '' : ` (${command})`;
  if (error instanceof UsageError) {
    const hint = command === undefined ? 'zkts --help' : `zkts ${command} --help`;
    return `${error.message} (see ${hint})`;
  }
  if (error instanceof CliError) return `${error.code}: ${error.message}${where}`;
  if (error instanceof ZooKeeperError) {
    let message = error.message;
    if (message.startsWith(`${error.code}: `)) message = message.slice(error.code.length + 2);
    if (error.op !== undefined && message.endsWith(` (${error.op})`)) {
      message = message.slice(0, -(error.op.length + 3));
    }
    const hint = hintFor(error, command);
    return `${error.code}: ${message}${hint === undefined ? '' : `; ${hint}`}${where}`;
  }
  if (isTimeout(error)) return `TIMEOUT: no reply in time (--timeout)${where}`;
  const message = error instanceof Error ? error.message : String(error);
  return `${message}${where}`;
}
