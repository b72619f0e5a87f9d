import { connect } from 'node:net';

/**
 * Sends a four-letter word (`ruok`, `srvr`, `mntr`, `isro`, ...) on a fresh plaintext connection and
 * returns everything the server writes before it closes the connection.
 * The server reads the 4 bytes where a frame length would be, so no length prefix is sent.
 */
export function fourLetterWord(
  host: string,
  port: number,
  cmd: string,
  timeoutMs = 3000,
): Promise<string> {
  if (cmd.length !== 4) return Promise.reject(new Error(`not a four-letter word: ${cmd}`));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(`four-letter word ${cmd} to ${host}:${port} timed out after ${timeoutMs} ms`),
      );
    }, timeoutMs);
    socket.on('connect', () => socket.end(cmd));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on('close', (hadError) => {
      clearTimeout(timer);
      if (!hadError) resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}

/** Server roles as printed on the `Mode:` line of `srvr`/`stat`. */
export const SERVER_MODES = ['standalone', 'leader', 'follower', 'observer', 'read-only'] as const;
export type ServerMode = (typeof SERVER_MODES)[number];

/** The `Mode:` of a `srvr` answer, or `undefined` when the server is not serving (e.g. electing). */
export function parseMode(srvr: string): ServerMode | undefined {
  const match = /^Mode: (\S+)/m.exec(srvr);
  const mode = match?.[1];
  return SERVER_MODES.find((m) => m === mode);
}

/** `mntr` answers with `key<TAB>value` lines. */
export function parseMntr(text: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const tab = line.indexOf('\t');
    if (tab > 0) result[line.slice(0, tab)] = line.slice(tab + 1).trim();
  }
  return result;
}

/** The server's mode, or `undefined` if it does not answer or is not serving. Never throws. */
export async function serverMode(host: string, port: number): Promise<ServerMode | undefined> {
  try {
    return parseMode(await fourLetterWord(host, port, 'srvr', 2000));
  } catch {
    return undefined;
  }
}
