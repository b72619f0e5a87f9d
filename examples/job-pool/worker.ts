// A worker of the job pool (docs/job-pool.md). Start the store, then as many workers as you like:
//   npx tsx examples/job-pool/worker.ts 127.0.0.1:2181 http://127.0.0.1:8080 worker-1
// Arguments: the ZooKeeper servers, the store's URL, this worker's name, the number of jobs the
// pool runs in all (default 20; the first worker writes it), the session timeout in ms (default 10000).
// In your project the imports are 'zookeeper-ts', 'zookeeper-ts/locks' and 'zookeeper-ts/recipes'.
import { setTimeout as pause } from 'node:timers/promises';
import { BadVersionError, connect, NodeExistsError, Op } from '../../src/index.js';
import { LeaderSelector, type Leadership, type Lease, Mutex } from '../../src/locks/index.js';
import {
  DistributedAtomicLong,
  ensurePath,
  PersistentNode,
  TreeCache,
} from '../../src/recipes/index.js';

const [
  servers = '127.0.0.1:2181',
  store = 'http://127.0.0.1:8080',
  name = `worker-${process.pid}`,
] = process.argv.slice(2);
const TOTAL_JOBS = Number(process.argv[5] ?? 20);
const SESSION_TIMEOUT = Number(process.argv[6] ?? 10_000);

const POOL = '/job-pool';
const SCHEDULE = `${POOL}/schedule`; // {"next": n, "total": m}: how far the scheduler has got
const JOBS = `${POOL}/jobs`; // the jobs waiting to be done, one child each
const DONE = `${POOL}/done`; // the jobs done, one child each: who did it, with which token
const MAX_WAITING = 4; // the scheduler keeps at most this many jobs waiting
const WORK_MS = 50; // how long a job takes (here the work is a pause)

const stopping = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stopping.abort());

const zk = await connect(servers, { sessionTimeout: SESSION_TIMEOUT });
zk.on('state', (state) => console.log(`${name}: session ${state}`));
for (const path of [JOBS, DONE]) await ensurePath(zk, path, { containers: false });
try {
  await zk.create(SCHEDULE, JSON.stringify({ next: 1, total: TOTAL_JOBS }));
} catch (error) {
  if (!(error instanceof NodeExistsError)) throw error; // another worker wrote it first
}

// Registration: an ephemeral node that exists while this worker has a session, created again
// after a session expiry. `zkts ls /job-pool/workers` lists the live workers.
const registration = new PersistentNode(zk, `${POOL}/workers/${name}`, {
  data: JSON.stringify({ pid: process.pid }),
});
registration.on('error', (error) => console.log(`${name}: registration: ${error.message}`));
await registration.start({ timeout: 30_000 }); // resolves once the node exists
console.log(`${name}: registered at ${registration.actualPath}`);

// The jobs waiting, mirrored in memory: the workers and the scheduler read it instead of
// listing the node, and wake up when it changes.
const waiting = new TreeCache(zk, JOBS, { maxDepth: 1 });
const onChange = new Set<AbortController>();
waiting.on('event', () => {
  for (const controller of onChange) controller.abort();
  onChange.clear();
});
await waiting.start();
const waitingJobs = () => (waiting.childrenOf(JOBS) ?? []).sort();
/** A signal that aborts at the next change of the waiting jobs, or when `also` aborts. */
function nextChange(also: AbortSignal): AbortSignal {
  const controller = new AbortController();
  onChange.add(controller);
  return AbortSignal.any([controller.signal, also]);
}
const aborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });

// Statistics: how many jobs the pool has done (a counter: a lost reply may leave it one short).
const completed = new DistributedAtomicLong(zk, `${POOL}/completed`);

// The scheduler: one worker at a time turns the schedule into jobs, and another takes over
// when it dies or is cut off.
async function schedule(term: Leadership): Promise<void> {
  console.log(`${name}: scheduling (token ${term.fencingToken})`);
  while (!term.signal.aborted) {
    const changed = nextChange(term.signal);
    try {
      const { data, stat } = await zk.getData(SCHEDULE);
      const { next, total } = JSON.parse(new TextDecoder().decode(data));
      if (next > total || waitingJobs().length >= MAX_WAITING) {
        await aborted(changed); // all scheduled, or enough waiting: until a job is taken
        continue;
      }
      const job = `job-${String(next).padStart(6, '0')}`;
      // Guarded by the term: applied only while this worker still leads, and only if the
      // schedule is where it read it. So no job is created twice, even by a deposed scheduler.
      await term.multi([
        Op.create(`${JOBS}/${job}`, JSON.stringify({ input: next })),
        Op.setData(SCHEDULE, JSON.stringify({ next: next + 1, total }), stat.version),
      ]);
      console.log(`${name}: scheduled ${job}`);
    } catch (error) {
      if (term.signal.aborted) return; // the term ended: the guarded write applied nothing
      if (!(error instanceof BadVersionError)) throw error; // reported to selector.on('error')
    }
  }
}
const scheduler = new LeaderSelector(zk, `${POOL}/scheduler`, {
  id: name,
  requeue: true,
  task: schedule,
});
scheduler.on('error', (error) => console.log(`${name}: scheduler: ${error.message}`));
await scheduler.start();

/** Tells the store about a step of `job`; false if it refused (a later holder has begun). */
async function tell(job: string, step: 'begin' | 'finish', token: bigint): Promise<boolean> {
  const response = await fetch(`${store}/jobs/${job}/${step}`, {
    method: 'POST',
    body: JSON.stringify({ worker: name, token: String(token) }),
  });
  if (response.status === 409)
    console.log(`${name}: the store refused ${step} ${job} (token ${token})`);
  else if (!response.ok) throw new Error(`the store answered ${response.status}`);
  return response.ok;
}

/** Does `job` while `lease` holds its lock. */
async function work(job: string, lease: Lease): Promise<void> {
  try {
    // The cache lags behind the server: the job may have been done just before we got its lock.
    if (!(await zk.exists(`${JOBS}/${job}`))) return;
    const token = lease.fencingToken;
    if (!(await tell(job, 'begin', token))) return;
    await pause(WORK_MS, undefined, { signal: lease.signal }); // the work, stopped if the lock may be lost
    if (!(await tell(job, 'finish', token))) return;
    // Guarded by the lock: the job leaves the queue only while this worker still holds it.
    await lease.multi([
      Op.delete(`${JOBS}/${job}`),
      Op.create(`${DONE}/${job}`, JSON.stringify({ worker: name, token: String(token) })),
    ]);
    const { postValue } = await completed.increment();
    console.log(`${name}: done ${job} (token ${token}; ${postValue} done in all)`);
  } catch (error) {
    if (!lease.signal.aborted) throw error;
    console.log(`${name}: gave up ${job}: ${(lease.signal.reason as Error).message}`);
  } finally {
    await lease
      .release()
      .catch((error: Error) => console.log(`${name}: release: ${error.message}`));
  }
}

// The workers: take a free job; with none free, queue for the oldest one (its holder may have
// died: its lock frees when that session ends) until the waiting jobs change.
const lockOf = (job: string) => new Mutex(zk, `${POOL}/locks/${job}`);
async function nextJob(changed: AbortSignal): Promise<{ job: string; lease: Lease } | undefined> {
  for (const job of waitingJobs()) {
    const lease = await lockOf(job).tryAcquire();
    if (lease) return { job, lease };
  }
  const oldest = waitingJobs()[0];
  if (oldest === undefined) return undefined;
  return { job: oldest, lease: await lockOf(oldest).acquire({ signal: changed }) };
}
while (!stopping.signal.aborted) {
  const changed = nextChange(stopping.signal);
  try {
    const next = await nextJob(changed);
    if (next) await work(next.job, next.lease);
    else await aborted(changed);
  } catch (error) {
    if (changed.aborted) continue; // a change (or the stop) ended the wait for a lock
    console.log(`${name}: ${(error as Error).message}; trying again`);
    await pause(500, undefined, { signal: stopping.signal }).catch(() => {});
  }
}

console.log(`${name}: stopping`);
await scheduler.close();
await waiting.close();
await registration.close();
await zk.close();
console.log(`${name}: stopped`);
