// Opening a session from a connect string and the user's options: defaults, checks, and the
// engine's configuration. What connect() does before there is a Client.
import { makeError } from '../protocol/errors.js';
import { HostList, parseConnectString } from '../session/hosts.js';
import { checkSaslOptions } from '../session/sasl/options.js';
import { Session } from '../session/session.js';
import type { Transport } from '../session/transport.js';
import { defaultTransport } from '../session/transports/default.js';
import { toBytes } from './bytes.js';
import type { ConnectOptions, TlsOptions } from './types.js';

const DEFAULT_SESSION_TIMEOUT = 30_000;
const DEFAULT_CONNECT_TIMEOUT = 10_000;

/** Resolves once a session is established; rejects as `connect()` documents. */
export async function openSession(
  connectString: string,
  options: ConnectOptions,
): Promise<{
  session: Session;
  chroot: string;
  dial: { transport: Transport; tls: TlsOptions | undefined };
}> {
  const { hosts, chroot } = parseConnectString(connectString);
  const sessionTimeout = options.sessionTimeout ?? DEFAULT_SESSION_TIMEOUT;
  for (const [name, value] of [
    ['sessionTimeout', sessionTimeout],
    ['connectTimeout', options.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT],
  ] as const) {
    if (!Number.isFinite(value) || value <= 0) {
      throw makeError('BADARGUMENTS', `${name} must be a positive number of ms, got ${value}`);
    }
  }
  const { timeout, signal } = checkWait(options);
  // `timeout` is the contract's name for the same limit (see ConnectOptions.timeout).
  const connectTimeout = timeout ?? options.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT;
  if (signal?.aborted) throw signal.reason;
  const transport: Transport = options.transport ?? (await defaultTransport());
  // Given up while the runtime's transport loaded: nothing was started.
  if (signal?.aborted) throw signal.reason;
  const tls = options.tls === true ? {} : options.tls || undefined;
  const session = new Session({
    hosts: new HostList(hosts, options.shuffleHosts ?? true),
    chroot,
    sessionTimeout,
    connectTimeout,
    readOnly: options.readOnly ?? false,
    auth: (options.auth ?? []).map(({ scheme, credentials }) => ({
      scheme,
      auth: toBytes(credentials, undefined, 'auth'),
    })),
    ...(options.sasl === undefined ? {} : { sasl: checkSaslOptions(options.sasl) }),
    tls,
    transport,
    maxFrameSize: options.maxFrameSize,
    requestTimeout: options.requestTimeout,
    resume: options.session,
    renew: options.renewSession ?? true,
  });
  await session.start(signal);
  return { session, chroot, dial: { transport, tls } };
}

/** The wait's own options, checked as every wait checks them (an InvalidArgumentError). */
function checkWait(options: ConnectOptions): { timeout?: number; signal?: AbortSignal } {
  const { timeout, signal } = options;
  if (
    timeout !== undefined &&
    !(typeof timeout === 'number' && Number.isFinite(timeout) && timeout >= 0)
  ) {
    throw makeError(
      'BADARGUMENTS',
      `timeout must be a non-negative number of ms, got ${String(timeout)}`,
      { op: 'connect' },
    );
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw makeError('BADARGUMENTS', 'signal must be an AbortSignal', { op: 'connect' });
  }
  return { timeout, signal };
}
