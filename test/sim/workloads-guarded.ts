// The guarded-writes workload (`--workload guarded`): processes take a Mutex lease or a
// LeaderLatch term and, while they hold it, write through it (`lease.multi(ops)`,
// `leadership.multi(ops)`): each write creates a node naming the lock node that guards it. Now
// and then a process deletes another's node, as an operator might: the holder of the mutex (its
// write may be on the wire when the node goes), or a participant of the election waiting in line
// (the one behind it must watch the next one ahead). Half the mutex holders never read their
// lease's signal (no watch on the node: only the state listener and the guard know), under each
// loss policy. Invariants:
// - a guarded write is applied only while its lease is held: the lock node that guards it existed
//   when the server applied the write (no deletion of it between its creation and the write);
// - one holder, one leader (the lease ledger, for the holders that read their signal), and a
//   lease or term granted before its client lost contact is over at that moment under the
//   default loss policy;
// - a lease whose signal nobody read reports, when it is first read at the end of the hold, the
//   loss its holder went through: a loss of contact under the default policy, the session's end
//   under `lossPolicy: 'expired'`, its node's deletion by someone else (once its watch answered).
// Aimed at, through the client of odd processes (the others use theirs unwrapped): an expiry during
// the LeaderLatch grant (cut off as the listing that makes it leader is answered), during a
// guarded multi (cut off as it is sent), during a protected create's recovery (the create's reply
// lost, then cut off as the recovery's listing is sent), and during the handshake of a resume
// (the session expired on the server as the client dials to resume it).
import type { Client } from '../../src/client/client.js';
import { CreateMode } from '../../src/client/types.js';
import { Op } from '../../src/index.js';
import { LeaderLatch, type LossPolicy, Mutex } from '../../src/locks/index.js';
import {
  aimedClient,
  ELECTION,
  expireAtResume,
  GUARDED_ROOT,
  inLine,
  LOCK,
} from './aims-guarded.js';
import { holdUntil, LeaseLedger } from './leases.js';
import type { Workload } from './workloads.js';
import { isFinal, sleep } from './workloads.js';

/** A write sent, not yet seen applied: its node, and the lock node that guards it. */
interface Sent {
  path: string;
  guard: string;
  czxid: bigint;
  by: string;
}

/** What failed, in one word: the class of a lease's loss, else the error's code. */
const codeOf = (error: unknown) => {
  const name = (error as { name?: string }).name;
  if (name === 'LockLostError' || name === 'LeaseReleasedError') return name;
  return (error as { code?: string }).code ?? name ?? String(error);
};

/** A lease or term, as the workload writes through it. */
interface Hold {
  path: string;
  fencingToken: bigint;
  multi: (ops: readonly Op[]) => Promise<unknown>;
}

export const guardedWorkload: Workload = {
  name: 'guarded',
  root: GUARDED_ROOT,
  pooled: false,
  records: (path) => path.includes(`${LOCK}/`) || path.includes(`${ELECTION}/`),
  create(world) {
    const sent = new Map<string, Sent>();
    const ledger = new LeaseLedger(() => world.sched.now);
    const lostSince = new Map<object, number>();
    // Lock nodes an operator deleted: the hold ended on the server then (the holder is told
    // only when its watch answers, if it reads its signal at all).
    const deletedByOperator = new Map<string, AbortController>();
    // Every node an operator deleted: a lease granted on a listing (from a follower that has not
    // applied the delete) that still shows its own deleted node is over from the start.
    const deleted = new Set<string>();
    // Under `lossPolicy: 'expired'` the holder learns of the expiry by its own clock, which starts
    // at the last reply it heard, while the server's starts at the last request it received: the
    // gap is a network delay plus the time the server took to answer (seed 1581: a follower's
    // stalled apply held a reply 800 ms, and a new leader was elected 700 ms before the old one's
    // clock ran out). The contract allows that overlap (the fencing token and guarded writes
    // cover it): such a lease counts as over in the ledger once the server ended its session.
    const sessionEnds = new Map<bigint, AbortController>();
    const untilServerExpiry = (lease: { path: string; signal: AbortSignal }, session: bigint) => {
      let ended = sessionEnds.get(session);
      if (!ended) {
        ended = new AbortController();
        sessionEnds.set(session, ended);
      }
      return { path: lease.path, signal: AbortSignal.any([lease.signal, ended.signal]) };
    };
    /** The operator's end of a hold through `path`, aborted once an operator deletes the node. */
    const operatorEnd = (path: string) => {
      const operator = new AbortController();
      if (deleted.has(path)) operator.abort();
      deletedByOperator.set(path, operator);
      return operator;
    };
    const clients = new Map<string, Client>();
    const count = (name: string) => {
      world.stats[name] = (world.stats[name] ?? 0) + 1;
    };
    const reached = (window: string) => {
      world.stats[`worlds.${window}`] = 1;
    };
    const leaderTree = () => world.ensemble!.leader.tree;

    /** One guarded write through `hold`; what came of it is counted. */
    const write = async (hold: Hold, name: string, n: number) => {
      const path = `${GUARDED_ROOT}/w-${name}-${n}`;
      const data = JSON.stringify({ guard: hold.path, czxid: String(hold.fencingToken) });
      sent.set(path, { path, guard: hold.path, czxid: hold.fencingToken, by: name });
      try {
        await hold.multi([Op.create(path, data, { mode: CreateMode.PERSISTENT })]);
        count('guardedApplied');
        return true;
      } catch (error) {
        const code = codeOf(error);
        count(`guarded.${code}`);
        if (code === 'LockLostError') {
          // Refused by the server because the guard's node was gone, or before sending.
          const why = (error as { reason?: string }).reason;
          if (why === 'deleted') reached('guardRefusedNodeGone');
          return false;
        }
        return code !== 'LeaseReleasedError';
      }
    };

    /** Deletes another process's node under `dir` (the first, or one behind the first). */
    const operatorDelete = async (client: Client, dir: string, waiting: boolean) => {
      try {
        await client.getChildren(dir);
        // The line as the leader has it now: a follower's listing may still show nodes that
        // are gone, and a waiting participant picked from it could be the leader.
        const live = leaderTree().get(world.chroot + dir)?.children ?? new Set<string>();
        const names = inLine(world, dir, [...live]);
        const candidates = waiting ? names.slice(1) : names.slice(0, 1);
        const name = candidates[world.rng.int(0, Math.max(0, candidates.length - 1))];
        if (!name) return;
        const path = `${dir}/${name}`;
        const node = leaderTree().get(world.chroot + path);
        if (!node || node.ephemeralOwner === client.sessionId) return;
        // The hold ends on the server when the delete lands; the ledger ends it as it is sent.
        deleted.add(path);
        deletedByOperator.get(path)?.abort();
        await client.delete(path);
        world.log(`operator deleted ${path}`);
        count(waiting ? 'operatorDeletedWaiting' : 'operatorDeletedHolder');
        if (waiting) reached('electionNodeDeletedByOther');
      } catch {
        // Gone already, a lost link...
      }
    };

    const track = (client: Client) => {
      client.on('state', (state) => {
        if (state === 'connected' || state === 'connected-readonly') lostSince.delete(client);
        else if (!lostSince.has(client)) lostSince.set(client, world.sched.now);
      });
    };

    /** A mutex lease, its guarded writes, and the check of an unread signal at the end. */
    const holdMutex = async (client: Client, seen: Client, name: string, index: number) => {
      const rng = world.rng;
      // Each process keeps one loss policy: the ledger's loss-of-contact rule is the default's.
      const policy: LossPolicy = index % 2 === 0 ? 'suspended' : 'expired';
      const readsSignal = rng.chance(0.5);
      const mutex = new Mutex(seen, LOCK, { lossPolicy: policy });
      const timeout = rng.chance(0.3) ? rng.int(50, 4000) : undefined;
      const lease = await world.track(`${name} acquire`, mutex.acquire({ timeout }));
      world.stats.handoffs++;
      const session = client.sessionId;
      const operator = operatorEnd(lease.path);
      let lostContact = false;
      let expired = false;
      const offState = client.on('state', (state) => {
        if (state !== 'connected' && state !== 'connected-readonly') lostContact = true;
        if (state === 'expired') expired = true;
      });
      const offRenewed = client.on('renewed', () => {
        expired = true;
      });
      if (readsSignal) {
        const seenLease = {
          path: lease.path,
          signal: AbortSignal.any([lease.signal, operator.signal]),
        };
        if (policy === 'suspended') ledger.grant(LOCK, name, client, 'mutex', seenLease);
        else ledger.grant(LOCK, name, {}, 'mutex', untilServerExpiry(seenLease, session));
      }
      world.log(
        `${name} holds ${lease.path} (${policy}, signal ${readsSignal ? 'read' : 'unread'})`,
      );
      const until = world.sched.now + world.holdTime();
      let n = 0;
      while (world.sched.now < until && !(readsSignal && lease.signal.aborted)) {
        if (!(await write(lease, name, world.stats.handoffs * 100 + n++))) break;
        await sleep(rng.int(10, 200));
      }
      offState();
      offRenewed();
      if (!readsSignal) {
        // The first read of a signal nobody read: it must tell the loss the holder went through.
        const deleted = operator.signal.aborted;
        const aborted = lease.signal.aborted;
        const lost = policy === 'suspended' ? lostContact : expired;
        if (lost) reached(`unreadLost.${policy}`);
        if (lost && !aborted && !client.closing) {
          world.violation(
            `${name}'s lease ${lease.path} (${policy}, signal unread) was not lost after its ${policy === 'suspended' ? 'connection was lost' : 'session expired'} (session 0x${session.toString(16)})`,
          );
        }
        if (deleted) {
          reached('unreadDeleted');
          // Its first read sets the watch whose request finds the node gone.
          await holdUntil(world.sessionTimeout * 3, lease.signal);
          if (!lease.signal.aborted && client.state === 'connected') {
            world.violation(
              `${name}'s lease ${lease.path} (signal unread) missed its node's deletion`,
            );
          }
        }
      }
      deletedByOperator.delete(lease.path);
      await world.track(`${name} release`, lease.release()).catch(() => {});
    };

    /** A LeaderLatch term and its guarded writes. */
    const lead = async (client: Client, seen: Client, name: string, index: number) => {
      const rng = world.rng;
      const policy: LossPolicy = index % 2 === 0 ? 'suspended' : 'expired';
      const latch = new LeaderLatch(seen, ELECTION, { id: name, lossPolicy: policy });
      void latch.start().catch(() => {});
      try {
        const timeout = rng.chance(0.3) ? rng.int(50, 4000) : undefined;
        const term = await world.track(`${name} leadership`, latch.leadership({ timeout }));
        world.stats.handoffs++;
        world.log(`${name} leads ${term.path} token=${term.fencingToken}`);
        // Only a waiting participant's node is deleted on purpose, but it may lead by the time
        // the delete lands: its term ends in the ledger as the delete is sent.
        const seenTerm = {
          path: term.path,
          signal: AbortSignal.any([term.signal, operatorEnd(term.path).signal]),
        };
        if (policy === 'suspended') ledger.grant(ELECTION, name, client, 'leader', seenTerm);
        else
          ledger.grant(ELECTION, name, {}, 'leader', untilServerExpiry(seenTerm, client.sessionId));
        const until = world.sched.now + world.holdTime();
        let n = 0;
        while (world.sched.now < until && !term.signal.aborted) {
          if (!(await write(term, name, world.stats.handoffs * 100 + n++))) break;
          await sleep(rng.int(10, 200));
        }
      } catch (error) {
        world.log(`${name} leadership failed: ${codeOf(error)}`);
      }
      if (latch.ourPath) deletedByOperator.delete(latch.ourPath);
      await world.track(`${name} latch close`, latch.close()).catch(() => {});
    };

    return {
      async run(ctx) {
        const { client, name, index } = ctx;
        const rng = world.rng;
        clients.set(name, client);
        track(client);
        const aimed = index % 2 === 1 ? aimedClient(client, world, name) : client;
        const seen = (world.plant?.wrap ? world.plant.wrap(aimed, world, name) : aimed) as Client;
        while (!ctx.stopping() && !isFinal(client.state)) {
          const roll = rng.next();
          try {
            if (roll < 0.1) await operatorDelete(client, LOCK, false);
            else if (roll < 0.2) await operatorDelete(client, ELECTION, true);
            else if (roll < 0.6) await holdMutex(client, seen, name, index);
            else await lead(client, seen, name, index);
          } catch (error) {
            world.log(`${name} failed: ${codeOf(error)}`);
          }
          await sleep(rng.int(0, 200));
        }
      },
      check() {
        for (const [session, ended] of sessionEnds) {
          if (world.ensemble!.sessions.has(session)) continue;
          ended.abort();
          sessionEnds.delete(session);
        }
        // A guarded write is applied only while its lease is held: its guard's node existed.
        const tree = leaderTree();
        for (const [path, write] of sent) {
          const node = tree.get(world.chroot + path);
          if (!node) continue;
          sent.delete(path);
          count('guardedChecked');
          const changes = world.ensemble!.changes.get(world.chroot + write.guard) ?? [];
          const gone = changes.find(
            (c) => c.type === 'NodeDeleted' && c.zxid > write.czxid && c.zxid < node.czxid,
          );
          if (gone) {
            world.violation(
              `${write.by}'s guarded write ${path} (zxid ${node.czxid}) was applied after its guard ${write.guard} was deleted (zxid ${gone.zxid})`,
            );
          }
        }
        if (world.sched.now <= world.pauseShadowUntil) return;
        for (const stale of ledger.staleAfterLoss((c) => lostSince.get(c))) {
          world.violation(
            `${stale.holder}'s ${stale.kind} ${stale.lease.path} still valid after its connection was lost at ${lostSince.get(stale.client)}`,
          );
          lostSince.delete(stale.client);
        }
        for (const lock of ledger.locks()) {
          const valid = ledger.validOf(lock);
          if (valid.length > 1) {
            world.violation(
              `two holders of ${lock}: ${valid.map((e) => `${e.holder}:${e.lease.path}`).join(', ')}`,
            );
          }
        }
      },
      audit() {},
      dialed(process) {
        expireAtResume(world, clients.get(process), process);
      },
    };
  },
};
