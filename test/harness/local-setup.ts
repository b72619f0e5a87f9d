import type { LocalInstall } from './install.js';
import { type TlsMaterial, tlsMaterial } from './tls.js';
import type { ServerOptions } from './types.js';

/** How many times a start is retried with fresh ports when another process grabbed one meanwhile. */
export const BIND_RETRIES = 3;

/** TLS material for these options; `want` degrades to no client certificate when openssl is missing. */
export async function tlsFor(
  install: LocalInstall,
  opts: ServerOptions,
): Promise<TlsMaterial | undefined> {
  if (!opts.tls) return undefined;
  const clientAuth = opts.tlsClientAuth ?? 'none';
  if (clientAuth === 'none') return tlsMaterial(install, false);
  try {
    return await tlsMaterial(install, true);
  } catch (err) {
    if (clientAuth === 'need') throw err;
    return tlsMaterial(install, false);
  }
}
