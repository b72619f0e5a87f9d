// The transport used when the caller names none. Loaded lazily so that the session core never
// imports a runtime module itself (workerd bundles must not pull in node:net).
import type { Transport } from '../transport.js';

export async function defaultTransport(): Promise<Transport> {
  const { nodeTransport } = await import('./node.js');
  return nodeTransport;
}
