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
 *   npx tsx bench/lock-cost.ts --compare --runs 9     # bare, timeout, signal interleaved: the tax
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
import { type AcquireOptions, LockTimeoutError, Mutex } from '../src/locks/index.js';
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
    compare: { type: 'boolean', default: false },
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
async function measure(
  locks: readonly Mutex[],
  count: number,
  options: AcquireOptions | undefined = acquireOptions,
): Promise<number> {
  let left = count;
  const before = process.cpuUsage();
  await Promise.all(
    locks.map(async (lock) => {
      while (left > 0) {
        left--;
        const lease = await lock.acquire(options);
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

/** The three ways of calling acquire that `--compare` puts side by side. */
const compared: readonly { name: string; options: AcquireOptions | undefined }[] = [
  { name: 'acquire()', options: undefined },
  { name: 'acquire({ timeout: 30_000 })', options: { timeout: 30_000 } },
  { name: 'acquire({ signal })', options: { signal: stop.signal } },
];

const medianOf = (figures: readonly number[]): number =>
  [...figures].sort((a, b) => a - b)[Math.floor(figures.length / 2)]!;

/**
 * `--compare`: the bare, the timeout and the signal call on the same sessions in one process,
 * interleaved run by run (each run starts one call further along), so a slow spell of a shared
 * machine hits all three alike. The tax of an option is the median over runs of its figure minus
 * the bare call's in the same run: a difference of a few µs that separate processes, 10-20%
 * apart from each other on a loaded host, cannot show.
 */
async function runCompared(sessions: number, runs: number, acquisitions: number): Promise<void> {
  const server = new InMemoryZooKeeper();
  const clients: Client[] = await Promise.all(
    Array.from({ length: sessions }, () =>
      connect('memory:1', { transport: server.transport, sessionTimeout: 30_000 }),
    ),
  );
  try {
    const locks = clients.map((client) => new Mutex(client, `/lock-cost/c${sessions}`));
    for (const { options } of compared) {
      await measure(locks, Math.max(2000, acquisitions / 4), options); // warm-up
    }
    const figures: number[][] = compared.map(() => []);
    for (let run = 0; run < runs; run++) {
      for (let k = 0; k < compared.length; k++) {
        const which = (run + k) % compared.length;
        figures[which]!.push(await measure(locks, acquisitions, compared[which]!.options));
      }
    }
    compared.forEach(({ name }, which) => {
      const own = figures[which]!;
      const tax = own.map((figure, run) => figure - figures[0]![run]!);
      const taxWords = which === 0 ? '' : `; tax ${medianOf(tax).toFixed(1)} µs`;
      console.log(
        `mutex x${sessions} ${name}: ${medianOf(own).toFixed(1)} µs CPU per acquisition (median of ${runs}${taxWords}; runs ${own.map((f) => f.toFixed(1)).join(' ')})`,
      );
    });
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
 * hears of it. Beside each wait a plain setTimeout of the same length measures how late the
 * machine itself runs a timer at that moment (on a loaded host most of the lateness is the
 * process waiting for a core, which no library can help). Prints the median, p99 and the worst of
 * both, over `rounds` rounds after one warm-up round.
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
    const plain: number[] = [];
    /** Per wait, its lateness minus its plain timer's: what the library adds. */
    const added: number[] = [];
    const held = await new Mutex(clients[0]!, '/lock-cost/late').acquire();
    for (let round = 0; round <= rounds; round++) {
      const counted = round > 0; // round 0 warms up
      await Promise.all(
        clients.slice(1).map(async (client, i) => {
          const timeout = 20 + ((round * 17 + i * 11) % 181);
          const started = performance.now();
          let plainLateness = 0;
          const timer = new Promise<void>((resolve) => {
            setTimeout(() => {
              plainLateness = performance.now() - started - timeout;
              resolve();
            }, timeout);
          });
          let lateness = Number.NaN;
          try {
            (await new Mutex(client, '/lock-cost/late').acquire({ timeout })).release();
          } catch (error) {
            if (!(error instanceof LockTimeoutError)) throw error;
            lateness = performance.now() - started - timeout;
          }
          await timer;
          if (counted && !Number.isNaN(lateness)) {
            late.push(lateness);
            plain.push(plainLateness);
            added.push(lateness - plainLateness);
          }
        }),
      );
    }
    await held.release();
    console.log(`timeout lateness x16: ${spread(late)} (${late.length} timeouts)`);
    console.log(`plain setTimeout lateness beside them: ${spread(plain)}`);
    console.log(`what the library adds, wait by wait: ${spread(added)}`);
  } finally {
    await Promise.all(clients.map((client) => client.close()));
  }
}

/** Median, p99 and worst of `figures` in ms. */
function spread(figures: number[]): string {
  figures.sort((a, b) => a - b);
  const at = (q: number) => figures[Math.min(figures.length - 1, Math.floor(q * figures.length))]!;
  return `median ${at(0.5).toFixed(2)} ms, p99 ${at(0.99).toFixed(2)} ms, worst ${figures.at(-1)!.toFixed(2)} ms`;
}

if (values.lateness) await runLateness(Math.max(10, Number(values.runs) * 6));
for (const sessions of values.sessions.split(',').map(Number)) {
  if (values.compare) {
    await runCompared(sessions, Number(values.runs), Number(values.acquisitions));
    continue;
  }
  await run(sessions, Number(values['per-path']), Number(values.runs), Number(values.acquisitions));
}
if (Number(values.pipelined) > 0) {
  await runPipelined(
    Number(values.pipelined),
    Number(values.runs),
    Number(values.acquisitions) * 5,
  );
}
