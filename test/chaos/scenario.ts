// One chaos run for one seed against a running ensemble: sessions in this process and in a
// separate worker process hammer the locks through per-session proxies while the fault injector
// works; then everything heals, the workload stops, and the lock paths are inspected twice (with
// the clients still open, and after they closed). The checker judges the log.
import { randomBytes } from 'node:crypto';
import { connect } from '../../src/index.js';
import type { ZkEnsemble } from '../harness/index.js';
import { pause } from './basics.js';
import { check, type Verdict } from './checker.js';
import { WorkerProcess } from './child.js';
import { checkExpiries, type ExpiryVerdict } from './expiries.js';
import { Nemesis, type Target } from './faults.js';
import { settle } from './inspect.js';
import { SessionLinks } from './links.js';
import { streamFor } from './prng.js';
import type { ChaosRecord, Emit, FaultKind } from './records.js';
import { now } from './records.js';
import { TrapBoard, trappedClient } from './traps.js';
import { type LockPaths, Workload } from './workload.js';

export interface SeedOptions {
  seed: number;
  /** How long faults are injected (the run takes longer: set-up, recovery, inspection). */
  durationMs: number;
  /** Requested (and, with the harness's limits, negotiated) session timeout, ms. */
  sessionTimeout: number;
  /** Sessions in this process (default 4). */
  mainSessions?: number;
  /** Sessions in the separate worker process (default 2; 0: no worker process). */
  childSessions?: number;
  maxLeases?: number;
  /** Holders ignore their lease signals (see WorkloadConfig.plant): the run must find violations. */
  plant?: boolean;
  /** Fault kinds to inject (default: all). */
  kinds?: readonly FaultKind[];
  /** Clients renew expired sessions (default true; false shows the workload stopping). */
  renewSession?: boolean;
  log?: (line: string) => void;
  /** Sees every record as it is made (e.g. to stream the log to a file). */
  onRecord?: (record: ChaosRecord) => void;
}

export interface SeedResult {
  seed: number;
  root: string;
  records: ChaosRecord[];
  verdict: Verdict;
  /** Progress after every expiry: each slot whose session expired must take a lock again. */
  expiries: ExpiryVerdict;
  wallMs: number;
}

export async function runSeed(ensemble: ZkEnsemble, options: SeedOptions): Promise<SeedResult> {
  const began = Date.now();
  const { seed, sessionTimeout: T } = options;
  const maxLeases = options.maxLeases ?? 2;
  const log = (line: string) => options.log?.(`[chaos ${seed}] ${line}`);
  const records: ChaosRecord[] = [];
  const emit: Emit = (record) => {
    records.push(record);
    options.onRecord?.(record);
  };

  const root = `/chaos-${seed}-${randomBytes(4).toString('hex')}`;
  const paths: LockPaths = { mutex: `${root}/mutex`, rw: `${root}/rw`, sem: `${root}/sem` };
  const setup = await connect(ensemble.connectString, {
    sessionTimeout: T,
    connectTimeout: 30_000,
  });
  await setup.create(root);
  await setup.close();

  const mains = await Promise.all(
    Array.from({ length: options.mainSessions ?? 4 }, async (_, i) => {
      const name = `m${i}`;
      const target: Target = {
        name,
        links: await SessionLinks.open(name, ensemble),
        traps: new TrapBoard(),
      };
      return target as Target & { traps: TrapBoard };
    }),
  );
  const children = await Promise.all(
    Array.from({ length: options.childSessions ?? 2 }, async (_, i) => ({
      name: `c${i}`,
      links: await SessionLinks.open(`c${i}`, ensemble),
    })),
  );
  const targets: Target[] = [...mains, ...children];

  const workload = new Workload({
    proc: 'main',
    seed,
    slots: mains.map(({ name, links, traps }) => ({
      name,
      connectString: links.connectString,
      wrap: (client, held) => trappedClient(client, links, traps, held),
    })),
    paths,
    maxLeases,
    sessionTimeout: T,
    emit,
    plant: options.plant ?? false,
    renewSession: options.renewSession ?? true,
  });
  workload.slots.forEach((slot, i) => {
    mains[i]!.holding = () => slot.held.size > 0;
  });
  let worker: WorkerProcess | undefined;
  try {
    await workload.ready();
    if (children.length > 0) {
      worker = await WorkerProcess.start(
        {
          proc: 'child',
          seed,
          slots: children.map(({ name, links }) => ({ name, connectString: links.connectString })),
          paths,
          maxLeases,
          sessionTimeout: T,
          plant: options.plant ?? false,
          renewSession: options.renewSession ?? true,
          stopLimitMs: 3 * T + 5_000,
        },
        emit,
      );
    }
    emit({ t: 'run', phase: 'start', at: now(), seed, sessionTimeout: T, maxLeases });
    workload.start();
    log(
      `${mains.length} sessions here, ${children.length} in process ${worker?.pid ?? '-'}; root ${root}`,
    );

    const nemesis = new Nemesis({
      ensemble,
      targets,
      sessionTimeout: T,
      rand: streamFor(seed, 'nemesis'),
      emit,
      log,
      ...(options.kinds ? { kinds: options.kinds } : {}),
    });
    await nemesis.run(Date.now() + options.durationMs);
    await nemesis.healAll();
    // Let the last fault's consequences (expiries, reconnects) play out under load, so that the
    // final stretch is judged like every other.
    await pause(T + 1_000);
    emit({ t: 'run', phase: 'stop', at: now() });

    await Promise.all([
      workload.stop(3 * T + 5_000),
      worker?.stop(3 * T + 10_000, emit) ?? Promise.resolve(),
    ]);
    worker = undefined;

    // Every session idle but open: nothing of the workload may be left on the lock paths (a
    // session ended by a fault may still own nodes until the server expires it: T and a tick).
    const observer = await connect(ensemble.connectString, {
      sessionTimeout: T,
      connectTimeout: 30_000,
    });
    try {
      const limit = 2 * T + 3_000;
      const idle = await settle(observer, ensemble, paths, root, limit);
      report(idle, 'idle', emit);
      await workload.closeClients();
      const closed = await settle(observer, ensemble, paths, root, limit);
      report(closed, 'closed', emit);
    } finally {
      await observer.close();
    }
  } finally {
    await worker?.stop(5_000, emit);
    await workload.closeClients();
    await Promise.all(targets.map((t) => t.links.close()));
  }

  const verdict = check(records);
  const expiries = checkExpiries(records, T);
  return { seed, root, records, verdict, expiries, wallMs: Date.now() - began };
}

function report(
  found: Awaited<ReturnType<typeof settle>>,
  phase: 'idle' | 'closed',
  emit: Emit,
): void {
  for (const node of found.nodes) emit({ t: 'orphan', phase, ...node });
  for (const watch of found.watches) emit({ t: 'watch', phase, ...watch });
  for (const member of found.unreadable)
    emit({
      t: 'hung',
      proc: 'inspect',
      what: `wchp of member ${member} unreadable (${phase})`,
      at: now(),
    });
}
