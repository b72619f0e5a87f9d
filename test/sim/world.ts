// One simulated world: a model ensemble, a few client processes running the real client and lock
// recipes against it, faults, and the invariants checked after every step. Everything comes from
// one seed; `runWorld(seed)` twice gives the same trace hash.
import { createHash } from 'node:crypto';
import { Ensemble } from '../../src/testing/model/ensemble.js';
import { Quorum } from '../../src/testing/model/quorum.js';
import type { DataTree } from '../../src/testing/model/tree.js';
import { EPOCH, scheduleAudits } from './audit.js';
import { drainMicrotasks, installEnvironment, Rng, Scheduler } from './env.js';
import { scheduleFaults } from './faults.js';
import { SimNetwork } from './net.js';
import { type Plant, plants } from './plants.js';
import { Processes } from './processes.js';
import { aimResetsAtWatches } from './watch-audit.js';
import { workloads as queueWorkloads, ROOT, semaphoreSize, type Workload } from './workloads.js';
import { barriersWorkload } from './workloads-barriers.js';
import { cacheWorkload } from './workloads-cache.js';
import { countersWorkload } from './workloads-counters.js';
import { guardedWorkload } from './workloads-guarded.js';
import { recipeWorkloads } from './workloads-recipes.js';
import { registration } from './workloads-registration.js';
import { revocation } from './workloads-revocation.js';
import { drawConfig } from './world-config.js';

/** Every workload a world may draw: the queue locks' and the other recipes'. */
const workloads: Record<string, Workload> = {
  ...queueWorkloads,
  ...recipeWorkloads,
  revocation,
  registration,
  cache: cacheWorkload,
  counters: countersWorkload,
  guarded: guardedWorkload,
  barriers: barriersWorkload,
};

export interface WorldOptions {
  seed: number;
  /** Keep every trace line (for printing); otherwise only the hash and the last lines. */
  keepTrace?: boolean;
  /** A planted bug to run with (test code only). */
  plant?: string;
  /** Virtual ms of workload before the processes close. */
  duration?: number;
  /** Start every lock path's sequence counter a few creates below its 2^31-1 limit. */
  nearWrap?: boolean;
  /**
   * Add the slow-follower faults: a follower applies commits seconds late for a while, and its
   * apply pipeline stalls now and then (one transaction held up, those behind it queued).
   */
  slowFollowers?: boolean;
  /** Member crashes and restarts, and members cut off from the others (default on). */
  memberFaults?: boolean;
  /** Run this workload (by name) instead of drawing one from the pool. */
  workload?: string;
  /**
   * Draw the swarm options per seed (default true): a share of the worlds run at the sequence
   * limit, with slow followers, with digest auth enforced, or with connection resets aimed
   * between a watch and its event (see `swarmDraws`). Options given explicitly stay on.
   */
  swarm?: boolean;
  /** Draw faults from these kinds only (see `scheduleFaults`), e.g. a window aimed at. */
  faults?: string[];
}

/** The per-seed draws of the swarm options: which corners of the space this world visits. */
export interface SwarmDraws {
  nearWrap: boolean;
  slowFollowers: boolean;
  /** The ensemble enforces digest auth (`enforce.auth.enabled`); every client sends it. */
  auth: boolean;
  /** Now and then a process's connection is reset just after it set a one-shot watch. */
  watchResets: boolean;
  /** Members now and then drop every connection right after its handshake (pacing). */
  flaps: boolean;
}

/**
 * Draws the swarm options from their own generator (derived from the seed), so that a world's
 * other draws stay what they were before the swarm existed.
 */
export function swarmDraws(seed: number, on: boolean): SwarmDraws {
  if (!on)
    return { nearWrap: false, slowFollowers: false, auth: false, watchResets: false, flaps: false };
  const draw = new Rng(Math.imul(seed, 0x2c1b3c6d) ^ 0x5eed5eed);
  return {
    nearWrap: draw.chance(1 / 8),
    slowFollowers: draw.chance(1 / 4),
    auth: draw.chance(1 / 4),
    watchResets: draw.chance(1 / 3),
    flaps: draw.chance(1 / 4),
  };
}

/** The digest credentials of the worlds that enforce auth. */
export const DIGEST = 'sim:secret';

export interface WorldResult {
  seed: number;
  hash: string;
  violations: string[];
  trace: string[];
  stats: Record<string, number>;
  config: string;
}

const MAX_STEPS = 2_000_000;
const TAIL = 400;

/** Shared view of a world for workloads and invariants. */
export class World {
  readonly sched = new Scheduler();
  readonly rng: Rng;
  readonly violations: string[] = [];
  readonly stats = {
    handoffs: 0,
    acquires: 0,
    timeouts: 0,
    lost: 0,
    faults: 0,
    watchFires: 0,
  } as Record<string, number> & {
    handoffs: number;
    acquires: number;
    timeouts: number;
    lost: number;
    faults: number;
    watchFires: number;
  };
  private readonly hash = createHash('sha256');
  readonly lines: string[] = [];
  private readonly keep: boolean;
  /** Exclusivity holds except around a paused process: until this time, do not judge it. */
  pauseShadowUntil = -1;
  readonly pending = new Map<number, { what: string; since: number }>();
  private nextPending = 0;
  closedAt = Number.POSITIVE_INFINITY;
  chroot = '';
  ensemble: Ensemble | null = null;
  /** The network and the session timeout clients ask for (aimed faults of a workload use them). */
  net: SimNetwork | null = null;
  sessionTimeout = 0;
  /** How many times each process's client went (back) to 'connected'. */
  readonly reconnects = new Map<string, number>();
  /**
   * How long a holder holds (virtual ms), drawn per world: short holds, or holds that span
   * faults (longer than the session timeout), so a lease that learns of its loss late shows.
   */
  holdTime: () => number = () => this.rng.int(0, 300);
  /** One-shot watches set by the workload, for the at-most-once / truthful / live checks. */
  readonly watches: WatchRecord[] = [];
  /** Told when a process has set a one-shot watch (the aimed resets listen). */
  onWatchSet: (process: string) => void = () => {};
  /** The swarm options this world drew. */
  swarm: SwarmDraws = swarmDraws(0, false);

  constructor(
    readonly seed: number,
    keep: boolean,
    readonly plant: Plant | undefined,
  ) {
    this.rng = new Rng(seed);
    this.keep = keep;
  }

  log(line: string): void {
    const text = `${this.sched.now.toFixed(3).padStart(10)} ${line}`;
    this.hash.update(text);
    this.hash.update('\n');
    this.lines.push(text);
    if (!this.keep && this.lines.length > 2 * TAIL) this.lines.splice(0, this.lines.length - TAIL);
  }

  violation(text: string): void {
    if (this.violations.length < 20) this.violations.push(`t=${this.sched.now.toFixed(3)} ${text}`);
    this.log(`VIOLATION ${text}`);
  }

  /** Tracks a promise that must settle within a bound after the processes close. */
  track<T>(what: string, promise: Promise<T>): Promise<T> {
    const id = this.nextPending++;
    this.pending.set(id, { what, since: this.sched.now });
    const done = () => this.pending.delete(id);
    promise.then(done, done);
    return promise;
  }

  digest(): string {
    return this.hash.copy().digest('hex').slice(0, 16);
  }
}

export interface WatchRecord {
  process: string;
  path: string;
  session: bigint;
  /** The client's lastZxid once the registering read was answered. */
  zxid: bigint;
  fired: string | null;
  client: { state: string; sessionId: bigint };
  /** The registering `exists` found no node (an exist watch, not a data watch). */
  absent: boolean;
  /** The process's reconnect count when the watch was set. */
  reconnects: number;
}

/** Builds and runs one world; the caller runs worlds one at a time (they share the globals). */
export async function runWorld(options: WorldOptions): Promise<WorldResult> {
  const plant = options.plant ? plants[options.plant] : undefined;
  if (options.plant && !plant) throw new Error(`unknown plant ${options.plant}`);
  if (options.workload && !workloads[options.workload]) {
    throw new Error(`unknown workload ${options.workload}`);
  }
  const world = new World(options.seed, options.keepTrace ?? false, plant);
  const { sched, rng } = world;
  const env = installEnvironment(sched, rng.fork(), EPOCH);
  // A plant may stand behind the library's source of randomness (the reconnect pauses' one).
  if (plant?.random) Math.random = plant.random;
  const onUnhandled = (reason: unknown) =>
    world.violation(
      `unhandled rejection: ${reason instanceof Error ? reason.stack : String(reason)}`,
    );
  process.on('unhandledRejection', onUnhandled);
  try {
    return await simulate(world, options);
  } catch (error) {
    // A model or harness fault is reported like a violation, with its seed, not as a crash of
    // the whole run.
    world.violation(
      `the simulator crashed: ${error instanceof Error ? error.stack : String(error)}`,
    );
    return {
      seed: world.seed,
      hash: world.digest(),
      violations: world.violations,
      trace: world.lines,
      stats: world.stats,
      config: 'crashed',
    };
  } finally {
    // Let the last rejections surface while the handler still listens.
    await drainMicrotasks();
    process.off('unhandledRejection', onUnhandled);
    env.restore();
  }
}

async function simulate(world: World, options: WorldOptions): Promise<WorldResult> {
  const { sched, rng } = world;
  const cfg = drawConfig(world, options, workloads);
  const { members, tickTime, sessionTimeout, processes, workload, duration, chroot, auth } = cfg;
  const cfgRng = cfg.rng;
  const slowUntil = Array.from({ length: members + 1 }, () => 0);

  const netRng = rng.fork();
  const ensemble = new Ensemble(
    sched,
    rng.fork(),
    {
      members,
      tickTime,
      maxBuffer: 1_048_575,
      followerLag: (m) => {
        if (sched.now < slowUntil[m]!) return netRng.int(300, 3000);
        const lag = cfg.lags[m]! * (0.5 + netRng.next());
        // A stall of the apply pipeline, independent of the quorum link (session checks and
        // forwarded requests still flow): the transactions behind it wait.
        const stall = cfg.stallChance;
        return stall > 0 && netRng.chance(stall) ? lag + netRng.int(100, 3000) : lag;
      },
      forwardLag: (m) => cfg.lags[m]! * (0.5 + netRng.next()),
      recordChanges: (path) => path.includes('/flag-') || (workload.records?.(path) ?? false),
      containerSweep: cfgRng.pick([500, 2000, 5000]),
      ...(auth ? { requireDigest: DIGEST } : {}),
    },
    (line) => world.log(line),
    (tree) => seedTree(tree, chroot + workload.root, cfg.nearWrap),
  );
  const quorum = new Quorum(
    ensemble,
    sched,
    {
      // One tick: shorter than any session timeout (at least two ticks), so a client of a member
      // cut off from the leader is disconnected before the leader can expire its session.
      detect: tickTime,
      electionPause: () => cfgRng.int(200, 2000),
      catchUp: () => cfgRng.int(20, 500),
    },
    (line) => world.log(line),
  );
  const acceptors = new Map(ensemble.members.map((m) => [m.host, m] as const));
  const net = new SimNetwork(sched, netRng, acceptors);
  const connectString = ensemble.members.map((m) => m.host).join(',') + chroot;
  world.chroot = chroot;
  world.ensemble = ensemble;
  world.net = net;
  world.sessionTimeout = sessionTimeout;

  const instance = workload.create(world);
  const running = new Processes(world, cfg, net, connectString);
  running.start(instance);
  const { clients } = running;

  scheduleAudits({ world, ensemble, net, processes: running, instance, chroot, sessionTimeout });

  // The semaphore's rare window: a contender whose create reply is lost while every lease is
  // taken recovers its node and has to queue. Picks a process holding no lease, when full.
  const semaphoreFull =
    workload.name === 'semaphore'
      ? () => {
          const leases = ensemble.leader.tree.get(`${chroot}${ROOT}/sem/leases`);
          if (!leases || leases.children.size < semaphoreSize(world)) return null;
          const owners = new Set(
            [...leases.children].map(
              (name) =>
                ensemble.leader.tree.get(`${chroot}${ROOT}/sem/leases/${name}`)?.ephemeralOwner,
            ),
          );
          const free = clients.flatMap((c, p) =>
            c && c.state === 'connected' && !owners.has(c.sessionId) ? [`p${p}`] : [],
          );
          return free.length > 0 ? free[0]! : null;
        }
      : null;
  if (cfg.faulty)
    scheduleFaults(world, {
      net,
      ensemble,
      quorum: cfg.memberFaults ? quorum : null,
      sessionTimeout,
      processes,
      duration,
      slowUntil: cfg.slowFollowers ? slowUntil : null,
      semaphoreFull,
      sessionOf: (process) => clients[Number(process.slice(1))]?.sessionId ?? 0n,
      flaps: cfg.flaps,
      kinds: options.faults,
    });
  if (cfg.watchResets) aimResetsAtWatches(world, net, duration);

  const afterStep = () => {
    running.checkZxids();
    instance.check();
  };

  // A world that keeps the scheduler busy without end (a retry loop that never waits) is a bug.
  const runaway = () => sched.steps > MAX_STEPS;
  await sched.run(duration, afterStep, runaway);
  running.stop();
  world.closedAt = sched.now;
  world.log('closing every process');
  running.closeAll();
  // Every promise must settle within this bound after close; ephemerals must be gone after the
  // server has had time to expire whatever close could not end.
  const settleBound = sessionTimeout * 2 + 6_000;
  await sched.run(world.closedAt + settleBound, afterStep, runaway);
  for (const { what, since } of world.pending.values()) {
    world.violation(
      `${what} (since t=${since.toFixed(0)}) did not settle within ${settleBound} ms of close`,
    );
  }
  const quiet =
    world.closedAt + settleBound + ensemble.negotiate(sessionTimeout) + 4 * tickTime + 1_000;
  await sched.run(quiet, afterStep, runaway);
  if (runaway()) {
    world.violation(`runaway: over ${MAX_STEPS} steps by virtual t=${sched.now.toFixed(0)}`);
  }
  judgeTheEnd(world, ensemble, net, auth);
  const hash = world.digest();
  world.log(`end hash=${hash} violations=${world.violations.length}`);
  return {
    seed: world.seed,
    hash,
    violations: world.violations,
    trace: world.lines,
    stats: world.stats,
    config: cfg.line,
  };
}

/**
 * After every process closed and the server had time to expire what close could not end: no
 * ephemeral node, no session, no client timer may be left. Then the world's figures.
 */
function judgeTheEnd(world: World, ensemble: Ensemble, net: SimNetwork, auth: boolean): void {
  const { sched } = world;
  const leaderTree = ensemble.leader.tree;
  for (const [path, node] of leaderTree.nodes) {
    if (node.ephemeralOwner !== 0n)
      world.violation(`orphan ephemeral ${path} of 0x${node.ephemeralOwner.toString(16)}`);
  }
  if (ensemble.sessions.size > 0)
    world.violation(`${ensemble.sessions.size} sessions still open on the server`);
  const leaked = sched.pending('client');
  if (leaked > 0)
    world.violation(`${leaked} client timers still pending after every process closed`);
  world.stats.steps = sched.steps;
  world.stats.txns = ensemble.stats.txns;
  world.stats.expired = ensemble.stats.expired;
  world.stats.refusedAhead = ensemble.stats.refusedAhead;
  world.stats.authRefused = ensemble.stats.authRefused;
  if (auth) world.stats.authWorlds = 1;
  world.stats.sessionMoved = ensemble.stats.sessionMoved;
  world.stats.crashes = ensemble.stats.crashes;
  world.stats.partitions = ensemble.stats.partitions;
  world.stats.elections = ensemble.stats.elections;
  world.stats.connections = net.stats.connections;
  world.stats.virtualMs = Math.round(sched.now);
}

/** The initial tree: the workload's root, and near-wrap counters where the world wants them. */
function seedTree(tree: DataTree, root: string, nearWrap: boolean): void {
  let path = '';
  for (const part of root.split('/').filter(Boolean)) {
    const parent = path || '/';
    path = `${path}/${part}`;
    tree.nodes.set(path, { ...tree.get('/zookeeper')!, children: new Set(), container: false });
    tree.get(parent)!.children.add(part);
  }
  if (nearWrap) {
    // Every lock path under the root starts with a cversion a few creates below 2^31-1.
    tree.wrapFrom = 0x7fffffff - 6;
  }
}
