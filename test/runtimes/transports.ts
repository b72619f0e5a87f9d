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
import type { EntryConfig } from './protocol.js';
import type { SmokeOptions } from './smoke.js';

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

/**
 * The smoke run of `config` over the transport `name`, logging to `log`; over TLS (when `config`
 * has a TLS port) with the options `tlsOptions` gives for it: a CA per connection, or `true` for a
 * runtime that trusts the test CA itself.
 */
export function smokeOptionsFor(
  config: EntryConfig,
  name: string,
  tlsOptions: (tls: NonNullable<EntryConfig['tls']>) => NonNullable<SmokeOptions['tls']>['options'],
  log: (line: string) => void,
): SmokeOptions {
  return {
    connectString: config.connectString,
    transportName: name,
    transport: transportNamed(name),
    roundTrips: config.roundTrips,
    ...(config.tls
      ? { tls: { connectString: config.tls.connectString, options: tlsOptions(config.tls) } }
      : {}),
    ...(config.sasl ? { sasl: config.sasl } : {}),
    log,
  };
}
