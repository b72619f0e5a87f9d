/**
 * What one socket read costs a Node client, by the way it reads: through 'data' events (the
 * stream machinery: a Buffer, an event and a tick per read) or through node:net's `onread` into
 * one shared buffer, each read copied out into a buffer of its own (as src/session/transports/
 * node.ts first read; it now cuts reads of up to 1 KiB from shared slabs, which the copy here
 * leaves out, so this measures the read path itself). A ping-pong of small messages with an echo server in another process, so that
 * every round trip is one write and one read of the client, and the client's CPU per round trip
 * is the figure.
 *
 *   npx tsx bench/read-path.ts                       # 100-byte messages, 5 runs per mode
 *   npx tsx bench/read-path.ts --bytes 400 --runs 7 --round-trips 40000
 *
 * Each run is a fresh process; the modes alternate (data, onread, onread, data, ...) so that a
 * slow spell of a shared machine hits both. Prints each run, then the median per mode.
 */
import { execFileSync, fork } from 'node:child_process';
import { connect, createServer, type NetConnectOpts } from 'node:net';
import { fileURLToPath } from 'node:url';

type Mode = 'data' | 'onread';

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}

/** The echo server: writes back whatever it reads, until killed. */
function serve(): void {
  const server = createServer((socket) => {
    socket.setNoDelay(true);
    socket.on('data', (chunk) => socket.write(chunk));
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (address && typeof address === 'object') process.send?.(address.port);
  });
}

/** One client run: prints its CPU per round trip, in µs. */
function client(mode: Mode, port: number, bytes: number, roundTrips: number): void {
  const message = Buffer.alloc(bytes, 1);
  let pending = bytes;
  let left = roundTrips + 1_000; // the first 1,000 warm up
  let startCpu = process.cpuUsage();
  const received = (length: number): void => {
    pending -= length;
    if (pending > 0) return;
    pending = bytes;
    if (--left === roundTrips) startCpu = process.cpuUsage();
    if (left > 0) {
      socket.write(message);
      return;
    }
    const used = process.cpuUsage(startCpu);
    process.stdout.write(`${((used.user + used.system) / roundTrips).toFixed(2)}\n`);
    socket.destroy();
  };
  const shared = new Uint8Array(64 * 1024);
  const options: NetConnectOpts =
    mode === 'onread'
      ? {
          host: '127.0.0.1',
          port,
          onread: {
            buffer: shared,
            callback: (length: number, buffer: Uint8Array): boolean => {
              const chunk = new Uint8Array(length);
              chunk.set(length === buffer.length ? buffer : buffer.subarray(0, length));
              received(chunk.length);
              return true;
            },
          },
        }
      : { host: '127.0.0.1', port };
  const socket = connect(options, () => {
    socket.setNoDelay(true);
    socket.write(message);
  });
  if (mode === 'data') socket.on('data', (chunk: Buffer) => received(chunk.length));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function drive(): Promise<void> {
  const bytes = option('bytes', 100);
  const runs = option('runs', 5);
  const roundTrips = option('round-trips', 20_000);
  const self = fileURLToPath(import.meta.url);
  const server = fork(self, ['--serve'], { execArgv: process.execArgv });
  const port = await new Promise<number>((resolve) =>
    server.once('message', (p) => resolve(Number(p))),
  );
  const figures: Record<Mode, number[]> = { data: [], onread: [] };
  try {
    for (let run = 0; run < runs; run++) {
      const order: Mode[] = run % 2 === 0 ? ['data', 'onread'] : ['onread', 'data'];
      for (const mode of order) {
        const out = execFileSync(
          process.execPath,
          [
            ...process.execArgv,
            self,
            '--client',
            mode,
            String(port),
            String(bytes),
            String(roundTrips),
          ],
          { encoding: 'utf8' },
        );
        const micros = Number(out.trim());
        figures[mode].push(micros);
        console.log(`run ${run + 1} ${mode.padEnd(6)} ${micros.toFixed(2)} µs CPU per round trip`);
      }
    }
  } finally {
    server.kill();
  }
  for (const mode of ['data', 'onread'] as const) {
    console.log(
      `${mode.padEnd(6)} median ${median(figures[mode]).toFixed(2)} µs (${bytes}-byte messages, ${runs} runs)`,
    );
  }
}

if (process.argv[2] === '--serve') serve();
else if (process.argv[2] === '--client') {
  const [, , , mode, port, bytes, roundTrips] = process.argv;
  client(mode as Mode, Number(port), Number(bytes), Number(roundTrips));
} else await drive();
