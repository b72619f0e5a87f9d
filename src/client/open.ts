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
  const connectTimeout = options.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT;
  for (const [name, value] of [
    ['sessionTimeout', sessionTimeout],
    ['connectTimeout', connectTimeout],
  ] as const) {
    if (!Number.isFinite(value) || value <= 0) {
      throw makeError('BADARGUMENTS', `${name} must be a positive number of ms, got ${value}`);
    }
  }
  const transport: Transport = options.transport ?? (await defaultTransport());
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
  await session.start();
  return { session, chroot, dial: { transport, tls } };
}
