// The barriers workload (`--workload barriers`): p0 raises and lowers a DistributedBarrier (now
// and then it keeps it raised for a long while), the other processes wait at it; every process
// also enters and leaves a DistributedDoubleBarrier of them all. Invariants:
// - a wait at the barrier resolves only if the barrier was down at some moment of the wait: never
//   while its node has existed on the leader since well before the wait began (a follower's read
//   may lag, so a raise less than STALE ms before the wait began is not judged);
// - a waiter is released: once the node has been gone from the leader for a session timeout plus
//   4 s while the waiter's client stayed connected, its wait has resolved;
// - the double barrier's enter and leave settle (their timeouts bound them), close removes the
//   member's node, and the world's end checks hold (no ephemeral node, promise or timer left).
import type { Client } from '../../src/client/client.js';
import { DistributedBarrier, DistributedDoubleBarrier } from '../../src/recipes/index.js';
import type { AuditView, Workload } from './workloads.js';
import { isFinal, sleep } from './workloads.js';

export const BARRIERS_ROOT = '/barriers';
const GATE = `${BARRIERS_ROOT}/gate`;
const DOUBLE = `${BARRIERS_ROOT}/double`;
/** How far a follower's read may lag the leader, at most, in these worlds (virtual ms). */
const STALE = 10_000;

/** A wait at the barrier in progress. */
interface Waiting {
  name: string;
  client: Client;
  since: number;
  /** Since when its client has been connected without a break, or null while it is not. */
  connected: { since: number | null };
  reported: boolean;
}

export const barriersWorkload: Workload = {
  name: 'barriers',
  root: BARRIERS_ROOT,
  pooled: false,
  records: (path) => path.endsWith(GATE),
  create(world) {
    const waiting = new Set<Waiting>();
    const count = (name: string) => {
      world.stats[name] = (world.stats[name] ?? 0) + 1;
    };
    const gateChanges = () => world.ensemble!.changes.get(world.chroot + GATE) ?? [];
    const gateUp = () => world.ensemble!.leader.tree.get(world.chroot + GATE) !== undefined;

    /** Whether the gate has existed on the leader without a break since `from` (virtual ms). */
    const upSince = (from: number): boolean => {
      if (!gateUp()) return false;
      const last = gateChanges().findLast((c) => c.type === 'NodeCreated');
      return last !== undefined && last.at <= from;
    };

    const control = async (client: Client, stopping: () => boolean) => {
      const rng = world.rng;
      /** A sleep that ends early once the world closes. */
      const nap = async (ms: number) => {
        const until = world.sched.now + ms;
        while (world.sched.now < until && !stopping())
          await sleep(Math.min(200, until - world.sched.now));
      };
      const barrier = new DistributedBarrier(client, GATE);
      while (!stopping() && !isFinal(client.state)) {
        try {
          await world.track('p0 raise', barrier.raise());
          count('raised');
          await nap(rng.chance(0.3) ? rng.int(STALE + 2_000, STALE + 8_000) : rng.int(300, 3_000));
          await world.track('p0 lower', barrier.lower());
          count('lowered');
        } catch {
          // A lost link, an expiry: the barrier stays as the server has it.
        }
        // Now and then down for longer than a session timeout: its waiters must be released.
        await nap(
          rng.chance(0.3) ? world.sessionTimeout + rng.int(5_000, 8_000) : rng.int(200, 2_000),
        );
      }
    };

    const wait = async (
      client: Client,
      seen: Client,
      name: string,
      connected: Waiting['connected'],
    ) => {
      const rng = world.rng;
      const barrier = new DistributedBarrier(seen, GATE);
      const entry: Waiting = { name, client, since: world.sched.now, connected, reported: false };
      waiting.add(entry);
      const timeout = rng.chance(0.5) ? rng.int(500, 8_000) : undefined;
      try {
        await world.track(`${name} wait`, barrier.wait({ timeout }));
        count('released');
        // A process paused past a reply acts on it late: not judged in a pause's shadow.
        if (world.sched.now > world.pauseShadowUntil && upSince(entry.since - STALE)) {
          world.violation(
            `${name}'s wait at ${GATE} (from ${Math.round(entry.since)}) resolved while the barrier has been raised since before ${Math.round(entry.since - STALE)}`,
          );
        }
      } catch (error) {
        count(`wait.${(error as Error).name}`);
      } finally {
        waiting.delete(entry);
      }
    };

    const double = async (client: Client, name: string, memberQty: number) => {
      const rng = world.rng;
      const barrier = new DistributedDoubleBarrier(client, DOUBLE, { memberQty });
      try {
        await world.track(`${name} enter`, barrier.enter({ timeout: rng.int(1_000, 10_000) }));
        count('entered');
        await sleep(rng.int(0, 500));
        await world.track(`${name} leave`, barrier.leave({ timeout: rng.int(1_000, 10_000) }));
        count('left');
      } catch (error) {
        count(`double.${(error as Error).name}`);
      } finally {
        await world.track(`${name} double close`, barrier.close()).catch(() => {});
      }
    };

    return {
      async run(ctx) {
        const { client, name, index } = ctx;
        const rng = world.rng;
        const connected = { since: client.state === 'connected' ? world.sched.now : null };
        client.on('state', (state) => {
          if (state === 'connected') connected.since ??= world.sched.now;
          else connected.since = null;
        });
        const seen = world.plant?.wrap ? (world.plant.wrap(client, world, name) as Client) : client;
        if (index === 0) {
          await control(client, ctx.stopping);
          return;
        }
        while (!ctx.stopping() && !isFinal(client.state)) {
          if (rng.chance(0.7)) await wait(client, seen, name, connected);
          else await double(client, name, rng.int(1, 3));
          await sleep(rng.int(0, 300));
        }
      },
      check() {},
      audit(view: AuditView) {
        // Released: the gate has been down for a while and the waiter's client connected.
        if (gateUp() || view.now < view.serviceSince) return;
        const down = gateChanges().findLast((c) => c.type === 'NodeDeleted')?.at ?? 0;
        const bound = view.sessionTimeout + 4_000;
        for (const w of waiting) {
          if (w.reported || w.connected.since === null) continue;
          const from = Math.max(down, w.since, w.connected.since, view.serviceSince);
          if (view.now - from < bound || world.sched.now <= world.pauseShadowUntil) continue;
          w.reported = true;
          world.violation(
            `${w.name}'s wait at ${GATE} is not released: the barrier has been down since ${Math.round(down)} and its client connected since ${Math.round(w.connected.since)}`,
          );
        }
      },
    };
  },
};
