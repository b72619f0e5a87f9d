// `npm run sim`: runs simulated worlds. The virtual globals a world installs belong to this
// process alone, which is why worlds run here and not inside a test runner's worker.
//
//   npm run sim -- --seed 42               one world, full trace
//   npm run sim -- --from 1 --count 500    many worlds, a summary, failing seeds listed
//   npm run sim -- --plant skip-relist ... with a planted bug (see plants.ts)
//   --twice (replay every seed and compare trace hashes)   --json (machine-readable summary)
//   --duration <virtual ms of workload per world>   --wrap (sequence counters start at their limit)
//   --wrap-last <n> (only the range's last n seeds start at the limit)
//   --slow-followers (a follower applies commits seconds late for a while; apply stalls)
//   --no-member-faults (no member crash/restart, no member cut off from the others)
//   --no-swarm (no per-seed draws of wrap, slow followers, auth, resets aimed at watches)
//   --faults <kind,kind> (draw faults from these kinds only: a window aimed at)
//   --workload <name> (mutex, semaphore, rwlock, or latch: an election, only run when named)
import { plants } from './plants.js';
import { writeChildCoverage } from './stryker-bridge.js';
import { runWorld } from './world.js';

interface Args {
  seed?: number;
  from: number;
  count: number;
  plant?: string;
  twice: boolean;
  json: boolean;
  duration?: number;
  stopAtFirst: boolean;
  nearWrap: boolean;
  /** The last this many seeds of the range run with the sequence counters near their limit. */
  wrapLast: number;
  slowFollowers: boolean;
  memberFaults: boolean;
  workload?: string;
  /** Draw wrap, slow followers, auth and aimed watch resets per seed (off: `--no-swarm`). */
  swarm: boolean;
  /** Draw faults from these kinds only (`--faults reset,lateRevalidation`). */
  faults?: string[];
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = {
    from: 1,
    count: 100,
    twice: false,
    json: false,
    stopAtFirst: false,
    nearWrap: false,
    wrapLast: 0,
    slowFollowers: false,
    memberFaults: true,
    swarm: true,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    if (flag === '--seed') args.seed = Number(value());
    else if (flag === '--from') args.from = Number(value());
    else if (flag === '--count') args.count = Number(value());
    else if (flag === '--plant') args.plant = value();
    else if (flag === '--workload') args.workload = value();
    else if (flag === '--duration') args.duration = Number(value());
    else if (flag === '--twice') args.twice = true;
    else if (flag === '--wrap') args.nearWrap = true;
    else if (flag === '--wrap-last') args.wrapLast = Number(value());
    else if (flag === '--slow-followers') args.slowFollowers = true;
    else if (flag === '--no-member-faults') args.memberFaults = false;
    else if (flag === '--no-swarm') args.swarm = false;
    else if (flag === '--faults') args.faults = value().split(',');
    else if (flag === '--json') args.json = true;
    else if (flag === '--stop-at-first') args.stopAtFirst = true;
    else if (flag === '--list-plants') {
      for (const p of Object.values(plants)) console.log(`${p.name}: ${p.description}`);
      process.exit(0);
    } else throw new Error(`unknown argument ${flag}`);
  }
  return args;
}

/** The world of `seed` as the command line asks for it. */
function worldOf(args: Args, seed: number, nearWrap: boolean) {
  const { plant, duration, slowFollowers, memberFaults, workload, swarm, faults } = args;
  return { seed, plant, duration, nearWrap, slowFollowers, memberFaults, workload, swarm, faults };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (args.seed !== undefined) {
    const result = await runWorld({ ...worldOf(args, args.seed, args.nearWrap), keepTrace: true });
    for (const line of result.trace) console.log(line);
    console.log(`\nseed ${result.seed}: ${result.config}`);
    console.log(`hash ${result.hash}  stats ${JSON.stringify(result.stats)}`);
    for (const v of result.violations) console.log(`VIOLATION ${v}`);
    process.exitCode = result.violations.length > 0 ? 1 : 0;
    return;
  }
  const started = performance.now();
  const cpuStart = process.cpuUsage();
  const totals: Record<string, number> = {};
  const failures: { seed: number; violations: string[]; tail: string[] }[] = [];
  const mismatches: number[] = [];
  let worlds = 0;
  for (let seed = args.from; seed < args.from + args.count; seed++) {
    const nearWrap = args.nearWrap || seed >= args.from + args.count - args.wrapLast;
    const result = await runWorld(worldOf(args, seed, nearWrap));
    worlds++;
    for (const [k, v] of Object.entries(result.stats)) totals[k] = (totals[k] ?? 0) + v;
    if (args.twice) {
      const again = await runWorld(worldOf(args, seed, nearWrap));
      if (again.hash !== result.hash) mismatches.push(seed);
    }
    if (result.violations.length > 0) {
      failures.push({ seed, violations: result.violations, tail: result.trace.slice(-40) });
      if (!args.json)
        console.log(`seed ${seed} FAILED (${result.config}):\n  ${result.violations.join('\n  ')}`);
      if (args.stopAtFirst) break;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const summary = {
    worlds,
    seconds: Number(seconds.toFixed(2)),
    worldsPerSecond: Number((worlds / seconds).toFixed(1)),
    handoffsPerSecond: Math.round((totals.handoffs ?? 0) / seconds),
    cpuSeconds: Number(cpuSeconds.toFixed(2)),
    handoffsPerCpuSecond: Math.round((totals.handoffs ?? 0) / cpuSeconds),
    totals,
    failures,
    mismatches,
  };
  if (args.json) console.log(JSON.stringify(summary));
  else {
    console.log(
      `${worlds} worlds in ${summary.seconds} s (${summary.worldsPerSecond} worlds/s, ${summary.handoffsPerSecond} handoffs/s; ${summary.handoffsPerCpuSecond} handoffs per CPU-second); ${failures.length} failing; totals ${JSON.stringify(totals)}`,
    );
    if (mismatches.length > 0) console.log(`NON-DETERMINISTIC seeds: ${mismatches.join(', ')}`);
    if (failures.length > 0)
      console.log(
        `replay with: npm run sim -- --seed ${failures[0]!.seed}${args.plant ? ` --plant ${args.plant}` : ''}`,
      );
  }
  process.exitCode = failures.length > 0 || mismatches.length > 0 ? 1 : 0;
}

await main();
await writeChildCoverage();
