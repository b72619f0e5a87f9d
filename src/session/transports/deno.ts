// Deno's own sockets: Deno.connect / Deno.connectTls, used through their WHATWG streams. Needs
// `--allow-net` (as node:net on Deno does); TLS trusts `ca` through `caCerts`.
import { makeError } from '../../protocol/errors.js';
import type { Transport } from '../transport.js';
import { webStreamTransport } from './web.js';

// The slice of the Deno namespace used here, so the project type-checks without Deno's types.
interface DenoConn {
  readonly readable: ReadableStream<Uint8Array>;
  readonly writable: WritableStream<Uint8Array>;
  close(): void;
  setNoDelay?(noDelay?: boolean): void;
  handshake?(): Promise<unknown>;
}

interface DenoNet {
  connect(options: { hostname: string; port: number; transport?: 'tcp' }): Promise<DenoConn>;
  connectTls(options: {
    hostname: string;
    port: number;
    caCerts?: string[];
    cert?: string;
    key?: string;
  }): Promise<DenoConn>;
}

function denoNamespace(): DenoNet {
  const deno = (globalThis as { Deno?: DenoNet }).Deno;
  if (!deno) {
    throw makeError('BADARGUMENTS', 'the deno transport needs the Deno runtime');
  }
  return deno;
}

/** Transport over Deno.connect / Deno.connectTls. */
export const denoTransport: Transport = webStreamTransport(async ({ host, port, tls }) => {
  const deno = denoNamespace();
  if (!tls) {
    const conn = await deno.connect({ hostname: host, port, transport: 'tcp' });
    conn.setNoDelay?.(true);
    return conn;
  }
  if (tls.rejectUnauthorized === false) {
    throw makeError(
      'BADARGUMENTS',
      'Deno.connectTls cannot skip certificate checks per connection (rejectUnauthorized: false); pass the server certificate as `ca`',
    );
  }
  if (tls.servername !== undefined && tls.servername !== host) {
    throw makeError(
      'BADARGUMENTS',
      'Deno.connectTls verifies the host it connects to; connect to the servername instead of setting `servername`',
    );
  }
  const conn = await deno.connectTls({
    hostname: host,
    port,
    caCerts: tls.ca === undefined ? undefined : Array.isArray(tls.ca) ? tls.ca : [tls.ca],
    cert: tls.cert,
    key: tls.key,
  });
  // Handshake now, so a certificate problem fails the connect instead of the first write.
  try {
    await conn.handshake?.();
  } catch (error) {
    try {
      conn.close();
    } catch {
      // Closed by the failed handshake already.
    }
    throw error;
  }
  return conn;
});
