// The version of the server a session is on. ZooKeeper's handshake does not carry it; the server
// prints it in answer to the `srvr` four-letter word (on by default in every 3.5+ whitelist) and
// to `envi` (its `zookeeper.version=` line), each asked on a fresh connection to the same server,
// over the client's own transport and TLS settings, as kazoo's `server_version()` asks `envi`.
import { makeError, TimeoutError } from '../protocol/errors.js';
import { formatHost, type HostAddress } from '../session/hosts.js';
import type { Transport } from '../session/transport.js';
import type { TlsOptions } from '../session/types.js';
import type { ClientCore } from './core.js';
import type { ServerVersion, ServerVersionOptions } from './types.js';

const DEFAULT_TIMEOUT = 10_000;
/** `srvr`'s line (`Zookeeper version: …`) and `envi`'s (`zookeeper.version=…`). */
const VERSION_LINE = /^zookeeper(?: version: |\.version=)(\d+)\.(\d+)\.(\d+)([^\r\n]*)$/im;

/** Asks the server the session is connected to for its version; see {@link ServerVersion}. */
export async function serverVersion(
  core: ClientCore,
  options: ServerVersionOptions = {},
): Promise<ServerVersion> {
  const timeout = options.timeout ?? DEFAULT_TIMEOUT;
  if (!Number.isFinite(timeout) || timeout <= 0) {
    throw makeError('BADARGUMENTS', `timeout must be a positive number of ms, got ${timeout}`, {
      op: 'serverVersion',
    });
  }
  options.signal?.throwIfAborted();
  const host = core.session.server;
  if (!host) {
    throw makeError('CONNECTIONLOSS', 'not connected to a server: no server to ask', {
      op: 'serverVersion',
    });
  }
  const { transport, tls } = core.dial;
  const server = formatHost(host);
  const refusals: string[] = [];
  for (const word of ['srvr', 'envi']) {
    const text = await ask(transport, host, tls, word, timeout, options.signal);
    const parsed = parseVersion(text, server);
    if (parsed) return parsed;
    refusals.push(`${word}: ${firstLine(text)}`);
  }
  throw makeError(
    'UNIMPLEMENTED',
    `${server} did not tell its version (${refusals.join('; ')}): allow srvr or envi in its 4lw.commands.whitelist`,
    { op: 'serverVersion' },
  );
}

/** The version in a `srvr` or `envi` answer, or undefined when the answer has none. */
export function parseVersion(text: string, server: string): ServerVersion | undefined {
  const match = VERSION_LINE.exec(text);
  if (!match) return undefined;
  const [, major, minor, patch, rest] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
  ];
  const version = `${major}.${minor}.${patch}`;
  return {
    version,
    major: Number(major),
    minor: Number(minor),
    patch: Number(patch),
    full: `${version}${rest}`.trim(),
    server,
  };
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0]?.trim() ?? '';
  return line === '' ? 'no answer' : line;
}

/** Sends one four-letter word on a fresh connection; resolves with all the server wrote. */
async function ask(
  transport: Transport,
  host: HostAddress,
  tls: TlsOptions | undefined,
  word: string,
  timeout: number,
  signal: AbortSignal | undefined,
): Promise<string> {
  const expiry = AbortSignal.timeout(timeout);
  const stop = signal ? AbortSignal.any([signal, expiry]) : expiry;
  const failure = () =>
    signal?.aborted
      ? signal.reason
      : new TimeoutError(
          timeout,
          `${formatHost(host)} did not answer ${word} within ${timeout} ms`,
          {
            op: 'serverVersion',
          },
        );
  let connection: Awaited<ReturnType<Transport['connect']>>;
  try {
    connection = await transport.connect({ ...host, tls, signal: stop });
  } catch (error) {
    if (stop.aborted) throw failure();
    throw makeError('CONNECTIONLOSS', `${formatHost(host)}: ${String(error)}`, {
      op: 'serverVersion',
      cause: error,
    });
  }
  const close = () => connection.close();
  stop.addEventListener('abort', close, { once: true });
  try {
    // The server reads these four bytes where a request's length would be, answers, and closes.
    await connection.write(new TextEncoder().encode(word));
    const decoder = new TextDecoder();
    let text = '';
    for await (const chunk of connection.chunks) text += decoder.decode(chunk, { stream: true });
    if (stop.aborted) throw failure();
    return text + decoder.decode();
  } finally {
    stop.removeEventListener('abort', close);
    connection.close();
  }
}
