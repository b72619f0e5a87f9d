// The transport used when the caller names none, chosen by runtime detection (not package.json
// conditions): it works unbundled, from source and in any bundler without configuration. Each
// adapter reaches its runtime module only through a lazy import, so a bundle for one runtime
// never evaluates another's (no `cloudflare:sockets` on Node, no `node:net` on workerd).
import type { Transport } from '../transport.js';
import { detectRuntime } from './runtime.js';

/**
 * The transport `connect()` uses when given none: {@link cloudflareTransport} on workerd,
 * {@link nodeTransport} elsewhere. Rejects on a runtime with neither (no TCP sockets).
 */
export async function defaultTransport(): Promise<Transport> {
  if (detectRuntime() === 'workerd') {
    const { cloudflareTransport, loadCloudflareSockets } = await import('./cloudflare.js');
    await loadCloudflareSockets();
    return cloudflareTransport;
  }
  // Node, and Bun and Deno through their node:net: against a stub server (no ZooKeeper cost) it
  // was as fast as Bun.connect and faster than Deno.connect, and it honours every TLS option.
  // bunTransport and denoTransport stay available as explicit choices.
  const { nodeTransport, loadNodeSockets } = await import('./node.js');
  // Fails here, with a clear message, in a runtime without node:net (a browser, Vercel Edge).
  await loadNodeSockets();
  return nodeTransport;
}
