/**
 * The client's own CPU per lock acquisition: Mutex contenders on an in-memory ZooKeeper
 * (bench/in-memory-zookeeper.ts), so no kernel, network or server shares the measurement. On a
 * machine where client and server share two cores, the client CPU per acquisition bounds the
 * handoff rate (every microsecond is taken from the server); this figure isolates it from the
 * noise of the full benchmark, for before/after comparisons of the hot path.
 *
 *   npx tsx bench/lock-cost.ts                        # 1 and 16 sessions, 5 runs each
 *   npx tsx bench/lock-cost.ts --sessions 16 --runs 9 --acquisitions 20000
 *   npx tsx bench/lock-cost.ts --subscribe            # with no-op telemetry subscribers attached
 *   npx tsx bench/lock-cost.ts --pipelined 256        # also pipelined getData, 256 in flight
 *   npx tsx bench/lock-cost.ts --sessions 256 --per-path 4   # 64 paths, 4 sessions on each
 *   npx tsx bench/lock-cost.ts --timeout              # acquire({ timeout: 30_000 }), as users call it
 *   npx tsx bench/lock-cost.ts --signal               # acquire({ signal }), one long-lived signal
 *   npx tsx bench/lock-cost.ts --lateness             # how late timeouts reject, 16 contenders
 *
 * Under tsx every closure pays esbuild's keepNames helper; for the figures users would see, run
 * an esbuild bundle of this file with plain node (bench/README.md).
 *
 * Prints, per case, the median and the lowest run in µs of process CPU (user + system) per
 * acquisition, the in-memory server's share included (the same for any client version, so a
 * difference between two versions is the client's).
 */
import diagnostics from 'node:diagnostics_channel';
import { parseArgs } from 'node:util';
import { type Client, connect } from '../src/index.js';
import { Mutex } from '../src/locks/index.js';
import { InMemoryZooKeeper } from './in-memory-zookeeper.js';

const { values } = parseArgs({
  options: {
    sessions: { type: 'string', default: '1,16' },
    runs: { type: 'string', default: '5' },
    acquisitions: { type: 'string', default: '20000' },
    subscribe: { type: 'boolean', default: false },
    pipelined: { type: 'string', default: '0' },
    'per-path': { type: 'string', default: '0' },
    timeout: { type: 'boolean', default: false },
    signal: { type: 'boolean', default: false },
    lateness: { type: 'boolean', default: false },
  },
});

/** How each acquisition is called: bare, with the Quick start's timeout, or with a signal. */
const stop = new AbortController();
const acquireOptions = values.timeout
  ? values.signal
    ? { timeout: 30_000, signal: stop.signal }
    : { timeout: 30_000 }
  : values.signal
    ? { signal: stop.signal }
    : undefined;
const mode = `${values.timeout ? ' timeout 30s' : ''}${values.signal ? ' signal' : ''}`;

if (values.subscribe) {
  // What an APM agent costs at the least: every channel listened to, nothing done with it.
  const ignore = () => {};
  diagnostics.subscribe('zookeeper-ts:session', ignore);
  diagnostics.subscribe('zookeeper-ts:lock', ignore);
  diagnostics.subscribe('zookeeper-ts:watch', ignore);
  diagnostics
    .tracingChannel('zookeeper-ts:request')
    .subscribe({ start: ignore, end: ignore, asyncStart: ignore, asyncEnd: ignore, error: ignore });
}

/** CPU µs per acquisition of `count` acquisitions by `locks` contending in a loop. */
async function measure(locks: readonly Mutex[], count: number): Promise<number> {
  let left = count;
  const before = process.cpuUsage();
  await Promise.all(
    locks.map(async (lock) => {
      while (left > 0) {
        left--;
        const lease = await lock.acquire(acquireOptions);
        await lease.release();
      }
    }),
  );
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

async function run(
  sessions: number,
  perPath: number,
  runs: number,
  acquisitions: number,
): Promise<void> {
  const server = new InMemoryZooKeeper();
  const clients: Client[] = await Promise.all(
    Array.from({ length: sessions }, () =>
      connect('memory:1', { transport: server.transport, sessionTimeout: 30_000 }),
    ),
  );
  try {
    // One path for all, or `perPath` sessions on each path (the many-paths benchmark's layout).
    const locks = clients.map((client, i) =>
      perPath > 0
        ? new Mutex(client, `/lock-cost/x${sessions}-by-${perPath}/${Math.floor(i / perPath)}`)
        : new Mutex(client, `/lock-cost/x${sessions}`),
    );
    const shape = perPath > 0 ? `x${sessions} (${perPath} per path)` : `x${sessions}`;
    await measure(locks, Math.max(2000, acquisitions / 4)); // warm-up
    const figures: number[] = [];
    for (let i = 0; i < runs; i++) figures.push(await measure(locks, acquisitions));
    figures.sort((a, b) => a - b);
    const median = figures[Math.floor(figures.length / 2)]!;
    console.log(
      `mutex ${shape}${mode}: ${median.toFixed(1)} µs CPU per acquisition (median of ${runs}; lowest ${figures[0]!.toFixed(1)})`,
    );
  } finally {
    await Promise.all(clients.map((client) => client.close()));
  }
}

/** CPU µs per request of `count` getData calls, `inFlight` pipelined at a time on one session. */
async function measureRequests(client: Client, count: number, inFlight: number): Promise<number> {
  const before = process.cpuUsage();
  for (let done = 0; done < count; done += inFlight) {
    await Promise.all(Array.from({ length: inFlight }, () => client.getData('/lock-cost')));
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

async function runPipelined(inFlight: number, runs: number, requests: number): Promise<void> {
  const server = new InMemoryZooKeeper();
  const client = await connect('memory:1', { transport: server.transport, sessionTimeout: 30_000 });
  try {
    await client.create('/lock-cost').catch(() => {});
    await measureRequests(client, Math.max(2000, requests / 4), inFlight); // warm-up
    const figures: number[] = [];
    for (let i = 0; i < runs; i++) figures.push(await measureRequests(client, requests, inFlight));
    figures.sort((a, b) => a - b);
    const median = figures[Math.floor(figures.length / 2)]!;
    console.log(
      `getData x${inFlight} pipelined: ${median.toFixed(2)} µs CPU per request (median of ${runs}; lowest ${figures[0]!.toFixed(2)})`,
    );
  } finally {
    await client.close();
  }
}

/**
 * How late a timeout rejects: one session holds the lock while 16 others wait with timeouts of
 * 20-200 ms; each rejection's lateness is the time from its deadline to the moment the caller
 * hears of it. Prints the median, p99 and the worst, over `rounds` rounds.
 */
async function runLateness(rounds: number): Promise<void> {
  const server = new InMemoryZooKeeper();
  const clients: Client[] = await Promise.all(
    Array.from({ length: 17 }, () =>
      connect('memory:1', { transport: server.transport, sessionTimeout: 30_000 }),
    ),
  );
  try {
    const late: number[] = [];
    const held = await new Mutex(clients[0]!, '/lock-cost/late').acquire();
    for (let round = 0; round < rounds; round++) {
      await Promise.all(
        clients.slice(1).map(async (client, i) => {
          const timeout = 20 + ((round * 17 + i * 11) % 181);
          const started = performance.now();
          try {
            (await new Mutex(client, '/lock-cost/late').acquire({ timeout })).release();
          } catch {
            late.push(performance.now() - started - timeout);
          }
        }),
      );
    }
    await held.release();
    late.sort((a, b) => a - b);
    const at = (q: number) => late[Math.min(late.length - 1, Math.floor(q * late.length))]!;
    console.log(
      `timeout lateness x16: median ${at(0.5).toFixed(2)} ms, p99 ${at(0.99).toFixed(2)} ms, worst ${late.at(-1)!.toFixed(2)} ms (${late.length} timeouts)`,
    );
  } finally {
    await Promise.all(clients.map((client) => client.close()));
  }
}

if (values.lateness) await runLateness(Math.max(10, Number(values.runs) * 6));
for (const sessions of values.sessions.split(',').map(Number)) {
  await run(sessions, Number(values['per-path']), Number(values.runs), Number(values.acquisitions));
}
if (Number(values.pipelined) > 0) {
  await runPipelined(
    Number(values.pipelined),
    Number(values.runs),
    Number(values.acquisitions) * 5,
  );
}
