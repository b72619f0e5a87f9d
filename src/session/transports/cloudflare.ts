// Cloudflare Workers and Durable Objects (workerd): connect() from `cloudflare:sockets`, or the
// connect() of a binding (an ExternalServer/service binding pins the address for you).
import { makeError } from '../../protocol/errors.js';
import type { Transport } from '../transport.js';
import type { TlsOptions } from '../types.js';
import { type WebStreamSocket, webStreamTransport } from './web.js';

/** `connect` of `cloudflare:sockets`, or of a Fetcher binding such as `env.ZK`. */
export type SocketConnect = (
  address: { hostname: string; port: number },
  options: { secureTransport: 'on' | 'off'; allowHalfOpen: boolean },
) => WebStreamSocket;

let builtin: Promise<SocketConnect> | null = null;

/**
 * Loads `cloudflare:sockets` on first use. A dynamic import inside try/catch: bundles made for
 * Node, Bun or Deno then neither evaluate nor fail to resolve it (esbuild leaves it alone).
 */
export function loadCloudflareSockets(): Promise<SocketConnect> {
  builtin ??= (async () => {
    try {
      const sockets = await import('cloudflare:sockets');
      return sockets.connect as SocketConnect;
    } catch (error) {
      builtin = null;
      throw makeError(
        'BADARGUMENTS',
        'cloudflare:sockets is not available here (it exists on workerd / Cloudflare Workers only); pass another transport',
        { cause: error },
      );
    }
  })();
  return builtin;
}

/**
 * A transport over `connect` (default: the one of `cloudflare:sockets`). Sockets belong to the
 * request (or Durable Object) that opened them, like every I/O object on Workers.
 *
 * TLS is `secureTransport: "on"`: the platform's trust store decides, so the per-connection `ca`,
 * `cert`/`key`, `rejectUnauthorized: false` and a `servername` other than the host are refused
 * rather than ignored.
 */
export function cloudflareSocketsTransport(connect?: SocketConnect): Transport {
  return webStreamTransport(async ({ host, port, tls }) => {
    const secureTransport = secureTransportFor(tls, host);
    const open = connect ?? (await loadCloudflareSockets());
    return open({ hostname: host, port }, { secureTransport, allowHalfOpen: false });
  });
}

/** The default transport on workerd. */
export const cloudflareTransport: Transport = cloudflareSocketsTransport();

function secureTransportFor(tls: TlsOptions | undefined, host: string): 'on' | 'off' {
  if (!tls) return 'off';
  const unsupported: string[] = [];
  if (tls.ca !== undefined) unsupported.push('ca');
  if (tls.cert !== undefined || tls.key !== undefined) unsupported.push('cert/key');
  if (tls.rejectUnauthorized === false) unsupported.push('rejectUnauthorized: false');
  if (tls.servername !== undefined && tls.servername !== host) unsupported.push('servername');
  if (unsupported.length > 0) {
    throw makeError(
      'BADARGUMENTS',
      `TLS option(s) ${unsupported.join(', ')} cannot be set per connection on Workers: the runtime's trust store verifies the server (workerd: network tlsOptions.trustedCertificates)`,
    );
  }
  return 'on';
}
