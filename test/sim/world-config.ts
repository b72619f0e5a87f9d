// What a world is made of, drawn from its seed: the ensemble's shape and timing, the processes,
// the workload, the holds, the swarm corners. The draws keep one order (the trace hash of a seed
// depends on it): the configuration's own random stream first, then the holds' stream forked from
// the world's.
import type { Rng } from './env.js';
import type { Workload } from './workloads.js';
import { swarmDraws, type World, type WorldOptions } from './world.js';

export interface WorldConfig {
  /** The stream the configuration was drawn from; the ensemble and quorum draw on from it. */
  readonly rng: Rng;
  readonly members: number;
  readonly tickTime: number;
  readonly sessionTimeout: number;
  readonly processes: number;
  /** Whether faults are scheduled. */
  readonly faulty: boolean;
  /** Each member's apply lag factor (index 0 unused). */
  readonly lags: readonly number[];
  readonly workload: Workload;
  /** Virtual ms of workload before the processes close. */
  readonly duration: number;
  readonly slowFollowers: boolean;
  /** With slow followers: the chance that one transaction stalls a follower's apply pipeline. */
  readonly stallChance: number;
  readonly chroot: string;
  readonly nearWrap: boolean;
  readonly auth: boolean;
  readonly watchResets: boolean;
  readonly flaps: boolean;
  readonly memberFaults: boolean;
  /** The configuration as one trace line. */
  readonly line: string;
}

/**
 * Draws the world's configuration and sets what the world keeps of it (its swarm corners, how
 * long a holder holds), logging it as the trace's first line.
 */
export function drawConfig(
  world: World,
  options: WorldOptions,
  workloads: Record<string, Workload>,
): WorldConfig {
  const rng = world.rng.fork();
  const drawn = rng.pick([1, 3, 3]);
  const members = world.plant?.members ?? drawn;
  const tickTime = rng.pick([500, 1000, 2000]);
  const sessionTimeout = rng.pick([4000, 6000, 10000]);
  const processes = rng.int(2, 5);
  const faulty = world.plant?.faultKinds || options.faults ? true : rng.chance(0.8);
  const lags = Array.from({ length: members + 1 }, () => rng.pick([0.2, 1, 5, 30]));
  // At the sequence limit the elections order candidates by creation (czxid), so they run in
  // the --wrap worlds too. Workloads marked `pooled: false` run only when named.
  const pool = Object.values(workloads).filter((w) => w.pooled !== false);
  const named = world.plant?.workload ?? options.workload;
  const workload: Workload = named ? workloads[named]! : rng.pick(pool);
  const duration = options.duration ?? 30_000;
  const swarm = swarmDraws(world.seed, options.swarm ?? true);
  const slowFollowers =
    world.plant?.slowFollowers ?? ((options.slowFollowers ?? false) || swarm.slowFollowers);
  const chroot = world.plant?.chroot ?? '';
  // Some worlds start the lock parent's cversion just below the int wrap.
  const nearWrap = world.plant?.nearWrap ?? ((options.nearWrap ?? false) || swarm.nearWrap);
  const auth = world.plant?.auth ?? swarm.auth;
  const watchResets = world.plant?.watchResets ?? swarm.watchResets;
  const flaps = swarm.flaps;
  world.swarm = { nearWrap, slowFollowers, auth, watchResets, flaps };
  const memberFaults = options.memberFaults ?? true;
  const stallChance = slowFollowers ? rng.pick([0.02, 0.05, 0.1]) : 0;
  // Holds: short (a holder is always gone before its node could be given away), mixed, or long
  // (beyond the session timeout, so holds span faults and a late loss signal overlaps the next
  // holder).
  const holds = world.plant?.holds ?? rng.pick(['short', 'mixed', 'mixed', 'long'] as const);
  const holdRng = world.rng.fork();
  world.holdTime =
    holds === 'short'
      ? () => holdRng.int(0, 300)
      : holds === 'mixed'
        ? () =>
            holdRng.chance(0.75) ? holdRng.int(0, 300) : holdRng.int(300, 1.5 * sessionTimeout)
        : () =>
            holdRng.chance(0.4)
              ? holdRng.int(0, 300)
              : holdRng.int(sessionTimeout / 2, 2 * sessionTimeout);
  const line = `holds=${holds} members=${members} tick=${tickTime} timeout=${sessionTimeout} processes=${processes} faults=${faulty} workload=${workload.name} lags=${lags.slice(1).join('/')} wrap=${nearWrap} slowFollowers=${slowFollowers}${slowFollowers ? ` stall=${stallChance}` : ''} memberFaults=${memberFaults} auth=${auth} watchResets=${watchResets} flaps=${flaps}${world.plant ? ` plant=${world.plant.name}` : ''}`;
  world.log(`world seed=${world.seed} ${line}`);
  world.stats[`workload.${workload.name}`] = 1;
  return {
    rng,
    members,
    tickTime,
    sessionTimeout,
    processes,
    faulty,
    lags,
    workload,
    duration,
    slowFollowers,
    stallChance,
    chroot,
    nearWrap,
    auth,
    watchResets,
    flaps,
    memberFaults,
    line,
  };
}
