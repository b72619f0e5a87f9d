import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

export const LOOPBACK = '127.0.0.1';

// Ports handed out by this process, so two servers started back to back never get the same one.
const handedOut = new Set<number>();

/**
 * The lowest port of the kernel's ephemeral range. We pick server ports *below* it: a port from the
 * ephemeral range may later be taken as the source port of some client connection, and a restarted
 * server could then not bind its old port again.
 */
function ephemeralLow(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/);
    const value = Number(low);
    return Number.isInteger(value) && value > 0 ? value : 32768;
  } catch {
    return 32768; // Linux default; other systems only need "some free port"
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ host: LOOPBACK, port, exclusive: true }, () =>
      server.close(() => resolve(true)),
    );
  });
}

/** A port on 127.0.0.1 that is free right now and was not handed out before by this process. */
export async function freePort(): Promise<number> {
  const low = 10000;
  const high = ephemeralLow() - 1;
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (handedOut.has(port)) continue;
    if (await canListen(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port found on ${LOOPBACK} in ${low}-${high}`);
}

export async function freePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  for (let i = 0; i < count; i++) ports.push(await freePort());
  return ports;
}
