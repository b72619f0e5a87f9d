import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerOptions } from './types.js';

const SASL_PROVIDER = 'org.apache.zookeeper.server.auth.SASLAuthenticationProvider';
const DIGEST_LOGIN_MODULE = 'org.apache.zookeeper.server.auth.DigestLoginModule';

/** JAAS string literal: backslash and double quote escaped. */
const jaasQuote = (text: string) => `"${text.replace(/[\\"]/g, (ch) => `\\${ch}`)}"`;

/**
 * For a server with `sasl`: writes `dir/jaas.conf` (a `Server` section whose DigestLoginModule
 * knows every user) and returns the system properties that turn SASL on: the JAAS file, the
 * SASLAuthenticationProvider, and with `enforce` the server-side refusal of clients that did not
 * authenticate with SASL. Empty without `sasl`.
 */
export function saslSystemProperties(dir: string, opts: ServerOptions): Record<string, string> {
  const sasl = opts.sasl;
  if (!sasl) return {};
  const users = Object.entries(sasl.users).map(
    ([name, password]) => `  user_${name}=${jaasQuote(password)}`,
  );
  const file = join(dir, 'jaas.conf');
  writeFileSync(file, `Server {\n  ${DIGEST_LOGIN_MODULE} required\n${users.join('\n')};\n};\n`);
  return {
    'java.security.auth.login.config': file,
    'zookeeper.authProvider.sasl': SASL_PROVIDER,
    ...(sasl.enforce
      ? { 'zookeeper.enforce.auth.enabled': 'true', 'zookeeper.enforce.auth.schemes': 'sasl' }
      : {}),
  };
}
