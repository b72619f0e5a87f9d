// Child process of the lock scenarios: runs one lock case (one implementation, its sessions and
// contenders) in a fresh Node process and prints its rounds as JSON. Each implementation gets a
// process of its own, so none inherits another's JIT state, heap or leftover timers, and the
// client CPU per acquisition is that implementation's alone.
import type { Client } from '../src/index.js';
import { ExclusiveLock, type Lease, Mutex, ReadWriteLock, Semaphore } from '../src/locks/index.js';
import { FloorMutex, FloorSession } from './baselines/floor.js';
import { closeNzk, mkdirpNzk } from './baselines/nzk.js';
import { NzkRecipeMutex } from './baselines/nzk-lock.js';
import { type Acquire, runContenders } from './drivers/contenders.js';
import { closeAll, closeOurs, openMany, openNzk, openOurs } from './drivers/sessions.js';
import { type HeldNode, WatchCounter } from './drivers/watch-counter.js';
import {
  ACQUIRE_TIMEOUT_MS,
  PROBE_LOCK,
  type ProbeResult,
  type ProbeSpec,
} from './lock-probe-spec.js';
import { deriveSeed, seededRng } from './rng.js';
import { RoundClock, RoundRecorder } from './stats.js';

/**
 * A contender that notes in `held` which lock node it holds, from its grant until its next acquire
 * begins: its release's deletion event comes before the delete's reply, so it is counted as the
 * session's own, while the events of its next wait (the same path, for an ExclusiveLock) are not.
 * No promise step is added to the release.
 */
function leaseAcquire(acquire: () => Promise<Lease>, held: HeldNode): Acquire {
  // A promise step rather than an async function: the floor's acquire adds no step of its own,
  // and the probe's bookkeeping should cost ours as little as it can.
  const granted = (lease: Lease) => {
    held.node = lease.path;
    return () => lease.release();
  };
  return () => {
    held.node = undefined;
    return acquire().then(granted);
  };
}

function oursContenders(spec: ProbeSpec, clients: Client[], counter: WatchCounter): Acquire[] {
  // As users call it, with a timeout (one options object for all: nothing allocated per call).
  const options = spec.bare ? undefined : { timeout: ACQUIRE_TIMEOUT_MS };
  switch (spec.lock) {
    case PROBE_LOCK.mutex:
      return clients.map((client) => {
        const lock = new Mutex(client, spec.path);
        return leaseAcquire(() => lock.acquire(options), counter.contender(client, spec.path));
      });
    case PROBE_LOCK.manyPaths:
      return spreadOverPaths(spec, clients, (client, path) => {
        const lock = new Mutex(client, path);
        return leaseAcquire(() => lock.acquire(options), counter.contender(client, path));
      });
    case PROBE_LOCK.rwlock:
      return clients.map((client, i) => {
        const lock = new ReadWriteLock(client, spec.path);
        const rng = seededRng(deriveSeed(spec.seed, i));
        const share = spec.readShare ?? 0.9;
        return leaseAcquire(
          () => (rng() < share ? lock.read.acquire(options) : lock.write.acquire(options)),
          counter.contender(client, spec.path),
        );
      });
    case PROBE_LOCK.semaphore:
      return clients.map((client) => {
        const lock = new Semaphore(client, spec.path, { maxLeases: spec.leases ?? 1 });
        return leaseAcquire(() => lock.acquire(options), counter.contender(client, spec.path));
      });
    case PROBE_LOCK.exclusive:
      return clients.map((client) => {
        const lock = new ExclusiveLock(client, spec.path);
        return leaseAcquire(() => lock.acquire(options), counter.contender(client, spec.path));
      });
    default:
      throw new Error(`not one of our locks: ${spec.lock}`);
  }
}

/** The lock paths of a many-paths case, under the case's path. */
function manyPaths(spec: ProbeSpec): string[] {
  return Array.from({ length: spec.paths ?? 1 }, (_, i) => `${spec.path}/p-${i}`);
}

/**
 * One contender per (session, path) pair of the many-paths layout: every session on every path,
 * or (`one-path`) session i on path i mod paths only. A single-path case is one path.
 */
function spreadOverPaths<S, C>(
  spec: ProbeSpec,
  sessions: readonly S[],
  contender: (session: S, path: string) => C,
): C[] {
  const paths = lockPaths(spec);
  if (spec.layout === 'one-path') {
    return sessions.map((session, i) => contender(session, paths[i % paths.length]!));
  }
  return paths.flatMap((path) => sessions.map((session) => contender(session, path)));
}

/** The paths a case's contenders lock (created before the run: the recipes do not create them). */
function lockPaths(spec: ProbeSpec): string[] {
  return spec.paths === undefined ? [spec.path] : manyPaths(spec);
}

/** One holder at a time on one path: the cases where a handoff is well defined. */
function singleHolder(spec: ProbeSpec): boolean {
  const oneAtATime: string[] = [
    PROBE_LOCK.mutex,
    PROBE_LOCK.exclusive,
    PROBE_LOCK.nzkRecipe,
    PROBE_LOCK.nzkNoRelist,
    PROBE_LOCK.floor,
    PROBE_LOCK.floorNamed,
  ];
  return spec.sessions > 1 && spec.paths === undefined && oneAtATime.includes(spec.lock);
}

async function measure(spec: ProbeSpec, contenders: Acquire[]) {
  const clock = new RoundClock(spec.timing);
  // Client CPU per acquisition: this process runs only these contenders meanwhile.
  const recorder = new RoundRecorder(clock, contenders.length, true);
  const totals = await runContenders(clock, recorder, contenders, singleHolder(spec));
  return { rounds: recorder.results(), acquisitions: totals.acquisitions };
}

async function runFloor(spec: ProbeSpec): Promise<ProbeResult> {
  const sessions = await openMany(
    spec.sessions,
    () => FloorSession.open(spec.server, undefined, spec.floorReads),
    (s) => s.close(),
  );
  try {
    for (const path of lockPaths(spec)) await sessions[0]!.mkdirp(path);
    const named =
      spec.lock === PROBE_LOCK.floorNamed || spec.lock === PROBE_LOCK.floorManyPathsNamed;
    const locks = spreadOverPaths(
      spec,
      sessions,
      (session, path) => new FloorMutex(session, path, named),
    );
    const measured = await measure(
      spec,
      locks.map((lock) => () => lock.acquire()),
    );
    return { ...measured, notifications: locks.reduce((sum, l) => sum + l.watchEvents, 0) };
  } finally {
    await closeAll(sessions, (s) => s.close());
  }
}

async function run(spec: ProbeSpec): Promise<ProbeResult> {
  if (
    spec.lock === PROBE_LOCK.floor ||
    spec.lock === PROBE_LOCK.floorManyPaths ||
    spec.lock === PROBE_LOCK.floorManyPathsNamed ||
    spec.lock === PROBE_LOCK.floorNamed
  ) {
    return runFloor(spec);
  }
  if (spec.lock === PROBE_LOCK.nzkRecipe || spec.lock === PROBE_LOCK.nzkNoRelist) {
    const clients = await openNzk(spec.server, spec.sessions);
    try {
      // The recipe does not create its lock path (the benchmark does; a hand-run probe may not).
      for (const path of lockPaths(spec)) await mkdirpNzk(clients[0]!, path);
      const relist = spec.lock === PROBE_LOCK.nzkRecipe;
      const locks = spreadOverPaths(
        spec,
        clients,
        (client, path) => new NzkRecipeMutex(client, path, relist),
      );
      const measured = await measure(
        spec,
        locks.map((lock) => () => lock.acquire()),
      );
      return { ...measured, notifications: locks.reduce((sum, l) => sum + l.watchEvents, 0) };
    } finally {
      await closeAll(clients, closeNzk);
    }
  }
  const clients: Client[] = await openOurs(spec.server, spec.sessions);
  try {
    const counter = new WatchCounter();
    counter.start();
    try {
      const measured = await measure(spec, oursContenders(spec, clients, counter));
      return {
        ...measured,
        notifications: counter.events,
        ownNodeNotifications: counter.ownNodeEvents,
      };
    } finally {
      counter.stop();
    }
  } finally {
    await closeAll(clients, closeOurs);
  }
}

const spec = JSON.parse(process.argv[2] ?? '') as ProbeSpec;
const result = await run(spec);
process.stdout.write(
  `${JSON.stringify(result, (_key, value) => (typeof value === 'number' && !Number.isFinite(value) ? null : value))}\n`,
);
// A baseline library may keep a timer or socket alive: the result is out, leave.
process.exit(0);
