// Four-letter words (srvr, mntr, ruok, ...) over a raw TCP connection, one per server.
import { connect } from 'node:net';
import { CliError, ExitCode, UsageError } from './errors.js';

export interface ServerAddress {
  host: string;
  port: number;
  /** As written in messages: `host:port`, IPv6 in brackets. */
  label: string;
}

/** The servers of a connect string (its chroot ignored); default port 2181. */
export function serversOf(connectString: string): ServerAddress[] {
  const slash = connectString.indexOf('/');
  const hostPart = slash >= 0 ? connectString.slice(0, slash) : connectString;
  const servers = hostPart
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
      const plain = /^([^:]+)(?::(\d+))?$/.exec(entry);
      const match = bracketed ?? plain;
      if (!match) throw new UsageError(`bad server "${entry}" (want host:port, IPv6 in brackets)`);
      const host = match[1]!;
      const port = Number(match[2] ?? 2181);
      return { host, port, label: host.includes(':') ? `[${host}]:${port}` : `${host}:${port}` };
    });
  if (servers.length === 0) throw new UsageError(`no servers in "${connectString}"`);
  return servers;
}

/**
 * Sends `word` and returns everything the server writes before it closes the connection. The
 * server reads the four bytes where a request length would be, so nothing else is sent.
 */
export function fourLetterWord(
  server: ServerAddress,
  word: string,
  timeoutMs: number,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: server.host, port: server.port });
    const fail = (message: string) => {
      socket.destroy();
      reject(new CliError('CONNECTIONLOSS', `${server.label}: ${message}`, ExitCode.UNAVAILABLE));
    };
    socket.setTimeout(timeoutMs, () => fail(`no answer to ${word} within ${timeoutMs} ms`));
    socket.on('connect', () => socket.end(word));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => fail(error.code ?? error.message));
    socket.on('close', (hadError) => {
      if (hadError) return;
      const text = Buffer.concat(chunks).toString('utf8');
      if (/is not executed because it is not in the whitelist/.test(text)) {
        reject(
          new CliError(
            'NOTALLOWED',
            `${server.label}: ${word} is not in the server's 4lw.commands.whitelist`,
          ),
        );
      } else resolve(text);
    });
  });
}

/** `srvr`/`stat` answers: `Key: value` lines. */
export function parseColonLines(text: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const colon = line.indexOf(': ');
    if (colon > 0) result[line.slice(0, colon).trim()] = line.slice(colon + 2).trim();
  }
  return result;
}

/** `mntr` answers: `key<TAB>value` lines; numbers become numbers. */
export function parseTabLines(text: string): Record<string, string | number> {
  const result: Record<string, string | number> = {};
  for (const line of text.split('\n')) {
    const tab = line.indexOf('\t');
    if (tab <= 0) continue;
    const value = line.slice(tab + 1).trim();
    result[line.slice(0, tab)] = /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  }
  return result;
}
