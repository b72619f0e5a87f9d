// Transports by name, for the runtime entries. Each name maps to one adapter; `default` lets the
// library pick (what users get without a `transport` option).
import type { Transport } from '../../src/index.js';
import {
  bunTransport,
  cloudflareTransport,
  denoTransport,
  nodeTransport,
  webStreamTransport,
} from '../../src/session/transports/index.js';

export const TRANSPORT_NAMES = [
  'default',
  'node',
  'node-web',
  'bun',
  'deno',
  'cloudflare',
] as const;
export type TransportName = (typeof TRANSPORT_NAMES)[number];

/**
 * node:net seen through `Duplex.toWeb`: runs the web-streams adapter (the one workerd and Deno use)
 * under Node, where its behaviour is easiest to compare with the node:net adapter.
 */
const nodeWebTransport: Transport = webStreamTransport(async ({ host, port, tls }) => {
  const net = await import('node:net');
  const { Duplex } = await import('node:stream');
  const socket = tls
    ? (await import('node:tls')).connect({ host, port, ca: tls.ca, cert: tls.cert, key: tls.key })
    : net.connect({ host, port });
  socket.setNoDelay(true);
  await new Promise<void>((resolve, reject) => {
    socket.once(tls ? 'secureConnect' : 'connect', resolve);
    socket.once('error', reject);
  });
  const { readable, writable } = Duplex.toWeb(socket);
  return {
    readable: readable as ReadableStream<Uint8Array>,
    writable: writable as WritableStream<Uint8Array>,
    close: () => socket.destroy(),
  };
});

export function transportNamed(name: string): Transport | undefined {
  switch (name as TransportName) {
    case 'default':
      return undefined;
    case 'node':
      return nodeTransport;
    case 'node-web':
      return nodeWebTransport;
    case 'bun':
      return bunTransport;
    case 'deno':
      return denoTransport;
    case 'cloudflare':
      return cloudflareTransport;
  }
  throw new Error(`unknown transport "${name}" (known: ${TRANSPORT_NAMES.join(', ')})`);
}
