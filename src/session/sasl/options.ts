// The `sasl` connect option: its public shape and the checks that turn bad input into a typed
// BADARGUMENTS at connect() instead of a failure deep inside the exchange.
import { makeError } from '../../protocol/errors.js';

/** SASL mechanisms this client implements. Kerberos (GSSAPI) is not one of them. */
export type SaslMechanism = 'DIGEST-MD5';

/**
 * SASL credentials for servers with `authProvider` = SASLAuthenticationProvider and a JAAS
 * `Server` section (DigestLoginModule with `user_<name>="<password>"` entries).
 *
 * The exchange runs after every (re)connect, before any other request; requests made meanwhile
 * wait for it. On success the session carries the identity `sasl:<username>` (usable in ACLs);
 * bad credentials end the session with AUTHFAILED.
 */
export interface SaslOptions {
  /** Only DIGEST-MD5 (RFC 2831, quality of protection `auth`). */
  mechanism: SaslMechanism;
  /** The user name, as in the server's JAAS `user_<name>` entry. */
  username: string;
  /** The user's password. */
  password: string;
}

/** Validates the option; throws BADARGUMENTS with the reason. */
export function checkSaslOptions(sasl: unknown): SaslOptions {
  const bad = (why: string) => makeError('BADARGUMENTS', `sasl: ${why}`, { op: 'connect' });
  if (typeof sasl !== 'object' || sasl === null) throw bad('must be an object');
  const { mechanism, username, password } = sasl as Record<string, unknown>;
  if (mechanism !== 'DIGEST-MD5') {
    throw bad(
      `mechanism must be "DIGEST-MD5", got ${JSON.stringify(mechanism)} (Kerberos/GSSAPI is not supported)`,
    );
  }
  if (typeof username !== 'string' || username === '')
    throw bad('username must be a non-empty string');
  if (typeof password !== 'string') throw bad('password must be a string');
  return { mechanism, username, password };
}
