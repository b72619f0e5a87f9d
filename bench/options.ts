// Command-line options of `npm run bench` (bench/main.ts).
import { parseArgs } from 'node:util';
import { DEFAULT_NEIGHBOUR_SHARE } from './neighbour.js';
import { SCENARIOS } from './scenarios/index.js';
import type { Timing } from './stats.js';

export interface Options {
  quick: boolean;
  scenarios: string[];
  server: string | undefined;
  timing: Timing;
  seed: number;
  fsync: boolean;
  outDir: string | undefined;
  /** Client port of the server the benchmark starts (undefined: a free port). */
  port: number | undefined;
  /** Share of each core kept busy by a CPU-bound neighbour during the run (undefined: none). */
  neighbour: number | undefined;
  /** `--contenders`: contender counts of the mutex scenario (undefined: 1, 4, 16, 64). */
  contenders: number[] | undefined;
  /** JVM flags of the server it starts: `bench` (C2, 1 GB; the default) or the harness's `test`. */
  serverJvm: 'bench' | 'test';
  /** `--model-server`: measure against the in-process model even where a ZooKeeper could start. */
  modelServer: boolean;
}

/** How long a run takes on the project's 2-core machine: said in --help and at the start. */
export const DURATION_NOTE = 'the full run takes about 14 minutes, --quick about 1 minute';

export const USAGE = `Usage: npx tsx bench/main.ts [options]   (npm run bench -- [options])

Starts its own ZooKeeper, measures our client and locks against the baselines on it, prints the
table, writes the results under bench/results/local/ (untracked) and stops the server;
${DURATION_NOTE}. With no ZooKeeper to start (no local install with Java, no Docker engine) it
measures against the in-process model server of zookeeper-ts/testing instead, and says so.

  --quick              one-minute smoke run: fewer cases, short rounds
  --scenario <name>    run only this scenario (repeatable): ${SCENARIOS.map((s) => s.name).join(', ')}
                       (${SCENARIOS.filter((s) => s.optIn)
                         .map((s) => s.name)
                         .join(', ')}: only when named, never in the default or --quick run)
  --server <hosts>     use this ensemble (host:port,...) instead of starting a server
                       (ZOOKEEPER_CONNECT is used the same way when set)
  --rounds <n>         measured rounds per case (default 5; --quick 2)
  --duration <ms>      length of one round (default 2000; --quick 700)
  --warmup <ms>        warm-up before the first round (default 2000; --quick 500)
  --seed <n>           seed for payloads and the read/write mix (default 1)
  --port <n>           client port of the server it starts (default: a free port)
  --neighbour [share]  run every case beside a CPU-bound neighbour: one busy process per core,
                       each busy for <share> of every 20 ms (default ${DEFAULT_NEIGHBOUR_SHARE}); the figures are
                       marked "loaded"
  --contenders <list>  mutex scenario: these contender counts (e.g. 1,16) instead of 1,4,16,64
  --server-jvm <flags> bench (default: C2, 1 GB heap) or test (the test harness's start-up
                       flags: C1 only, 192 MB, serial GC) for the server it starts
  --model-server       measure against the in-process model server (zookeeper-ts/testing) even
                       where a ZooKeeper could be started; the report says NOT ZOOKEEPER
  --fsync              start the server with zookeeper.forceSync=yes (default: no, the harness default)
  --out <dir>          where to write the JSON and the chart (default bench/results/local;
                       the published reference run is bench/results/reference)
  --help               this text`;

function positiveInt(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`--${name} must be a positive integer`);
  return value;
}

/** `--neighbour` takes an optional value: a bare one means the default share. */
function withNeighbourValue(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg !== '--neighbour') {
      out.push(arg);
      continue;
    }
    const next = argv[i + 1];
    if (next !== undefined && /^[0-9.]+$/.test(next)) {
      out.push(`--neighbour=${next}`);
      i++;
    } else out.push(`--neighbour=${DEFAULT_NEIGHBOUR_SHARE}`);
  }
  return out;
}

function neighbourShare(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const share = Number(text);
  if (!(share > 0 && share <= 1)) throw new Error('--neighbour must be a share in (0, 1]');
  return share;
}

function contenderCounts(text: string | undefined): number[] | undefined {
  if (text === undefined) return undefined;
  const counts = text.split(',').map((part) => positiveInt('contenders', part.trim(), 0));
  if (counts.length === 0) throw new Error('--contenders needs at least one count');
  return counts;
}

function serverJvm(text: string | undefined): 'bench' | 'test' {
  if (text === undefined || text === 'bench') return 'bench';
  if (text === 'test') return 'test';
  throw new Error('--server-jvm must be bench or test');
}

/** Parsed options, `'help'` for --help; throws with a message on bad input. */
export function parseOptions(argv: string[]): Options | 'help' {
  const { values } = parseArgs({
    args: withNeighbourValue(argv),
    options: {
      quick: { type: 'boolean', default: false },
      scenario: { type: 'string', multiple: true },
      server: { type: 'string' },
      rounds: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      seed: { type: 'string' },
      fsync: { type: 'boolean', default: false },
      out: { type: 'string' },
      port: { type: 'string' },
      neighbour: { type: 'string' },
      contenders: { type: 'string' },
      'server-jvm': { type: 'string' },
      'model-server': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return 'help';
  const quick = values.quick === true;
  const known = SCENARIOS.map((s) => s.name);
  const requested = values.scenario ?? [];
  const unknown = requested.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new Error(`unknown scenario(s) ${unknown.join(', ')}; known: ${known.join(', ')}`);
  }
  const port = values.port === undefined ? undefined : positiveInt('port', values.port, 0);
  if (port !== undefined && port > 65_535) throw new Error('--port must be at most 65535');
  if (port !== undefined && (values.server ?? process.env.ZOOKEEPER_CONNECT?.trim()))
    throw new Error(
      '--port is the port of the server the benchmark starts; with --server (or ZOOKEEPER_CONNECT) it starts none',
    );
  if (values['model-server'] && (values.server ?? process.env.ZOOKEEPER_CONNECT?.trim()))
    throw new Error(
      '--model-server starts the in-process model; with --server (or ZOOKEEPER_CONNECT) it starts none',
    );
  const scenarios =
    requested.length > 0
      ? known.filter((name) => requested.includes(name))
      : SCENARIOS.filter((s) => !s.optIn && (!quick || s.quick)).map((s) => s.name);
  return {
    quick,
    scenarios,
    server: values.server,
    timing: {
      warmupMs: positiveInt('warmup', values.warmup, quick ? 500 : 2000),
      durationMs: positiveInt('duration', values.duration, quick ? 700 : 2000),
      rounds: positiveInt('rounds', values.rounds, quick ? 2 : 5),
    },
    seed: values.seed === undefined ? 1 : positiveInt('seed', values.seed, 1),
    fsync: values.fsync === true,
    outDir: values.out,
    port,
    neighbour: neighbourShare(values.neighbour),
    contenders: contenderCounts(values.contenders),
    serverJvm: serverJvm(values['server-jvm']),
    modelServer: values['model-server'] === true,
  };
}
