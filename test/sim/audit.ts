// The audits a world runs once a virtual second until its processes close: the workload's own
// (its queue as the leader's tree shows it), the one-shot watches', and that no request went
// without the credentials the ensemble enforces.
import type { Ensemble } from '../../src/testing/model/ensemble.js';
import type { SimNetwork } from './net.js';
import type { Processes } from './processes.js';
import { auditWatches } from './watch-audit.js';
import type { WorkloadInstance } from './workloads.js';
import type { World } from './world.js';

/** Where the world's clock starts: node creation times are told relative to it. */
export const EPOCH = 1_700_000_000_000;

export interface AuditedWorld {
  readonly world: World;
  readonly ensemble: Ensemble;
  readonly net: SimNetwork;
  readonly processes: Processes;
  readonly instance: WorkloadInstance;
  readonly chroot: string;
  readonly sessionTimeout: number;
}

/** Schedules the audits, the first one virtual second from now. */
export function scheduleAudits(audited: AuditedWorld): void {
  const { world, ensemble, net, processes, instance, chroot, sessionTimeout } = audited;
  const { sched } = world;
  const { clients, processOfSession } = processes;
  let authReported = 0;
  const audit = () => {
    const leaderTree = ensemble.leader.tree;
    instance.audit({
      children: (path) => {
        const node = leaderTree.get(chroot + path);
        if (!node) return [];
        return [...node.children]
          .map((name) => {
            const child = leaderTree.get(`${chroot}${path}/${name}`)!;
            return {
              name,
              czxid: child.czxid,
              created: Number(child.ctime) - EPOCH,
              owner: child.ephemeralOwner,
            };
          })
          .sort((a, b) => (a.czxid < b.czxid ? -1 : 1));
      },
      sessionOf: (process) => {
        const c = clients[Number(process.slice(1))];
        return c ? c.sessionId : null;
      },
      connected: (process) => clients[Number(process.slice(1))]?.state === 'connected',
      now: sched.now,
      serviceSince: ensemble.ordering ? ensemble.orderingSince : Number.POSITIVE_INFINITY,
      sessionTimeout,
      heldBytesLanded: (owner) => {
        const process = processOfSession.get(owner);
        return process ? net.heldUntil(process) : Number.NEGATIVE_INFINITY;
      },
    });
    auditWatches(world, sessionTimeout);
    // Every process sends the credentials the ensemble enforces: a request refused for want of
    // them means a connection went without (credentials not sent again after a reconnect).
    if (ensemble.stats.authRefused > authReported) {
      authReported = ensemble.stats.authRefused;
      world.violation(
        `a request was refused for want of auth (SESSIONCLOSEDREQUIRESASLAUTH, ${authReported} so far), though every client has the credentials`,
      );
    }
    // Past the close, processes' nodes go with their sessions: stop judging the queue then.
    if (sched.now < world.closedAt) sched.at(1000, 'server', audit);
  };
  sched.at(1000, 'server', audit);
}
