// Sessions that could not connect while others did: most often the server's limit of connections
// from one address (maxClientCnxns, 60 by default), which `--sessions 64` from one machine reaches.
// The server just closes such connections after reading the request, so the client sees a close
// during the handshake; this turns that into what to change.
import { ZooKeeperError } from '../../index.js';
import { CliError, ExitCode } from '../errors.js';

/** The error to report when some of `wanted` sessions of a bench part could not connect. */
export function explainFailedSessions(error: unknown, connected: number, wanted: number): unknown {
  // connect() gives up with a TimeoutError when its limit runs out (CONNECTIONLOSS when refused).
  if (!(error instanceof ZooKeeperError) || !['CONNECTIONLOSS', 'TIMEOUT'].includes(error.code)) {
    return error;
  }
  // Nothing listening is not a limit.
  if (error.message.includes('ECONNREFUSED')) return error;
  return new CliError(
    'CONNECTIONLOSS',
    `${wanted - connected} of ${wanted} sessions could not connect (${connected} did). A server ` +
      'that closes connections as they open (a reset, a broken pipe, a close during the ' +
      'handshake) is most likely at its limit of connections from one address (maxClientCnxns ' +
      'in zoo.cfg, 60 by default; 0 lifts it): use fewer --sessions from this machine, or raise ' +
      `the limit. The first failure: ${error.message}`,
    ExitCode.UNAVAILABLE,
  );
}
