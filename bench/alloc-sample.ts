/**
 * Bytes allocated per lock acquisition, and where: loaded before a lock probe (bench/lock-probe.ts,
 * with its usual JSON spec), it runs the probe under V8's sampling heap profiler, counting every
 * sampled allocation whether a collection took it or not, and prints the total and the sites that
 * allocate most, per acquisition, in place of the probe's result. Unlike heap figures, this is
 * what the garbage collector has to work through; unlike timings, it barely moves with the
 * machine's load, so a before/after of a hot-path change shows at a glance.
 *
 *   npx esbuild bench/alloc-sample.ts --bundle --platform=node --format=esm \
 *     --outfile=node_modules/.cache/probe/alloc-sample.mjs
 *   (and the probe's bundle, node_modules/.cache/probe/lock-probe.mjs: bench/README.md)
 *   node --import ./node_modules/.cache/probe/alloc-sample.mjs node_modules/.cache/probe/lock-probe.mjs \
 *     '{"lock":"mutex","server":"127.0.0.1:2181","path":"/bench/m","sessions":16,"seed":1,
 *       "timing":{"warmupMs":3000,"durationMs":5000,"rounds":1}}'
 *
 * A preload (--import) rather than a wrapper that imports the probe: the probe awaits at its top
 * level, so a bundle would run it before anything else in the file. The floor's figures (lock
 * "floor", "floor-named", "floor-many-paths") are the ones to hold ours against. Sites are
 * function:line of the bundle; tsx would add its own helpers' allocations.
 */
import { Session } from 'node:inspector/promises';

/** A sampling interval well below one request's allocations: stable totals in a 5 s run. */
const SAMPLING_INTERVAL_BYTES = 512;
const TOP_SITES = Number(process.env.TOP_SITES ?? 25);

interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SamplingNode[];
}

const session = new Session();
session.connect();
// The two include flags are V8's (Node's typings omit them): without them samples of objects
// already collected are dropped, and short-lived garbage, the point here, would not count.
await session.post('HeapProfiler.startSampling', {
  samplingInterval: SAMPLING_INTERVAL_BYTES,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
} as { samplingInterval: number });

// The probe writes its result and exits: keep the result, read the profile, then report and exit.
const exit = process.exit.bind(process);
const written: string[] = [];
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = ((chunk: string | Uint8Array) => {
  written.push(String(chunk));
  return true;
}) as typeof process.stdout.write;
process.exit = ((code?: number) => {
  void report().finally(() => exit(code));
}) as typeof process.exit;

async function report(): Promise<void> {
  const { profile } = await session.post('HeapProfiler.stopSampling');
  const result = JSON.parse(written.join('')) as { acquisitions: number };
  const bySite = new Map<string, number>();
  let total = 0;
  // A built-in (Map, Set, a typed array's constructor) has no script of its own: it is named with
  // the nearest caller that has one, which says whose Map it is.
  const walk = (node: SamplingNode, caller: string): void => {
    const { functionName, url, lineNumber } = node.callFrame;
    const own = `${functionName || '(anonymous)'} ${url.split('/').pop()}:${lineNumber + 1}`;
    const site = url === '' && caller !== '' ? `${functionName} <- ${caller}` : own;
    total += node.selfSize;
    if (node.selfSize > 0) bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
    for (const child of node.children) walk(child, url === '' ? caller : own);
  };
  walk(profile.head as SamplingNode, '');
  const per = (bytes: number) => Math.round(bytes / result.acquisitions);
  const log = (line: string) => write(`${line}\n`);
  log(`${result.acquisitions} acquisitions, ${per(total)} bytes allocated per acquisition`);
  const top = [...bySite].sort((a, b) => b[1] - a[1]).slice(0, TOP_SITES);
  for (const [site, bytes] of top) log(`${String(per(bytes)).padStart(8)}  ${site}`);
}
