import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerOptions } from './types.js';

const SASL_PROVIDER = 'org.apache.zookeeper.server.auth.SASLAuthenticationProvider';
const DIGEST_LOGIN_MODULE = 'org.apache.zookeeper.server.auth.DigestLoginModule';

/** JAAS string literal: backslash and double quote escaped. */
const jaasQuote = (text: string) => `"${text.replace(/[\\"]/g, (ch) => `\\${ch}`)}"`;

/**
 * Writes a JAAS file whose `Server` section (DigestLoginModule) knows these users. The server reads
 * it when it starts: rewrite it between `stop()` and `start()` to change passwords.
 */
export function writeJaasFile(file: string, users: Record<string, string>): void {
  const lines = Object.entries(users).map(
    ([name, password]) => `  user_${name}=${jaasQuote(password)}`,
  );
  writeFileSync(file, `Server {\n  ${DIGEST_LOGIN_MODULE} required\n${lines.join('\n')};\n};\n`);
}

/** `dir/jaas.conf`, the JAAS file of a server with `sasl`. */
export const jaasFileIn = (dir: string) => join(dir, 'jaas.conf');

/**
 * For a server with `sasl`: writes `dir/jaas.conf` (a `Server` section whose DigestLoginModule
 * knows every user) and returns the system properties that turn SASL on: the JAAS file, the
 * SASLAuthenticationProvider, and with `enforce` the server-side refusal of clients that did not
 * authenticate with SASL. Empty without `sasl`.
 */
export function saslSystemProperties(dir: string, opts: ServerOptions): Record<string, string> {
  const sasl = opts.sasl;
  if (!sasl) return {};
  const file = jaasFileIn(dir);
  writeJaasFile(file, sasl.users);
  return {
    'java.security.auth.login.config': file,
    'zookeeper.authProvider.sasl': SASL_PROVIDER,
    ...(sasl.enforce
      ? { 'zookeeper.enforce.auth.enabled': 'true', 'zookeeper.enforce.auth.schemes': 'sasl' }
      : {}),
  };
}
