// Workloads for the recipes beyond the queue locks: ExclusiveLock, MultiLock (with single-lock
// contenders on the same paths), LeaderLatch and LeaderSelector. Each term or lease goes into the
// lease ledger (leases.ts), so "one leader" and "one holder per lock" are judged on what the
// holders are told: valid from the grant until the signal aborts.
import type { Client } from '../../src/client/client.js';
import type { Leadership } from '../../src/locks/index.js';
import {
  ExclusiveLock,
  LeaderLatch,
  LeaderSelector,
  type MultiLease,
  MultiLock,
  Mutex,
} from '../../src/locks/index.js';
import { holdUntil, LeaseLedger, type LedgerEntry } from './leases.js';
import type { Workload } from './workloads.js';
import { isFinal, lockWorkload, ROOT, sleep } from './workloads.js';

import type { World } from './world.js';

const oneHolder = (valid: LedgerEntry[]) => {
  if (valid.length > 1) return 'two holders of one lock';
  // All or nothing: a multi lease is valid only while every lock in it is.
  const partial = valid.find(
    (e) =>
      e.kind === 'multi' &&
      'leases' in e.lease &&
      (e.lease as MultiLease).leases.some((l) => l.signal.aborted),
  );
  return partial ? 'a multi lease valid after one of its locks was lost' : null;
};

const exclusive: Workload = lockWorkload(
  'exclusive',
  `${ROOT}/excl`,
  (client, _world, options) => {
    const lock = new ExclusiveLock(client, `${ROOT}/excl`, options);
    return { acquire: async (timeout) => ['mutex', await lock.acquire({ timeout })] };
  },
  oneHolder,
  [],
);

const A = `${ROOT}/multi-a`;
const B = `${ROOT}/multi-b`;
const multilock: Workload = lockWorkload(
  'multilock',
  A,
  (client, world, options) => {
    const a = new Mutex(client, A, options);
    const b = new Mutex(client, B, options);
    const both = new MultiLock([new Mutex(client, B, options), new Mutex(client, A, options)]);
    return {
      acquire: async (timeout) => {
        const roll = world.rng.next();
        if (roll < 0.5) return ['multi', await both.acquire({ timeout }), [A, B]];
        if (roll < 0.75) return ['lease', await a.acquire({ timeout }), [A]];
        return ['lease', await b.acquire({ timeout }), [B]];
      },
    };
  },
  oneHolder,
  [A, B],
);

/** Processes join an election, lead for a while (until their term's signal aborts), step down. */
function electionWorkload(name: string, path: string, selector: boolean): Workload {
  return {
    name,
    root: ROOT,
    create(world) {
      const ledger = new LeaseLedger(() => world.sched.now);
      const lostSince = new Map<object, number>();
      let lastToken = -1n;
      let lastPath = '';
      // The candidate at the head of the line, and since when (the liveness audit).
      let head: { name: string; since: number } | null = null;
      const granted = (holder: string, client: Client, term: Leadership) => {
        world.stats.handoffs++;
        world.stats.acquires++;
        world.log(`${holder} leads ${term.path} token=${term.fencingToken}`);
        const judged = world.sched.now > world.pauseShadowUntil;
        // A leader keeps its token across a reconnect of the same node; a new term, a higher one.
        if (judged && !term.signal.aborted && term.path !== lastPath) {
          if (term.fencingToken <= lastToken)
            world.violation(
              `fencing token went back: ${holder} leads with ${term.fencingToken} after ${lastToken}`,
            );
        }
        lastToken = term.fencingToken > lastToken ? term.fencingToken : lastToken;
        lastPath = term.path;
        const seen = world.plant?.term ? world.plant.term(term, client, world) : term;
        ledger.grant(path, holder, client, 'leader', seen);
        return seen;
      };
      return {
        async run(ctx) {
          const { client } = ctx;
          const rng = world.rng;
          const seen = world.plant?.wrap ? world.plant.wrap(client, world, ctx.name) : client;
          client.on('state', (state) => {
            if (state === 'connected' || state === 'connected-readonly') lostSince.delete(client);
            else if (!lostSince.has(client)) lostSince.set(client, world.sched.now);
          });
          while (!ctx.stopping() && !isFinal(client.state)) {
            if (selector) {
              const done = new Promise<void>((resolve) => {
                const s = new LeaderSelector(seen as Client, path, {
                  task: async (term) => {
                    const mine = granted(ctx.name, client, term);
                    await holdUntil(world.holdTime(), mine.signal);
                  },
                });
                s.on('error', (error) => world.log(`${ctx.name} selector: ${String(error)}`));
                void s.start();
                void world
                  .track(`${ctx.name} selector`, s.done)
                  .catch(() => {})
                  .then(() => world.track(`${ctx.name} selector close`, s.close()))
                  .catch(() => {})
                  .then(resolve);
              });
              await done;
            } else {
              const latch = new LeaderLatch(seen as Client, path, { id: ctx.name });
              latch.start();
              try {
                const timeout = rng.chance(0.3) ? rng.int(50, 4000) : undefined;
                const term = await world.track(
                  `${ctx.name} leadership`,
                  latch.leadership({ timeout }),
                );
                const mine = granted(ctx.name, client, term);
                await holdUntil(world.holdTime(), mine.signal);
              } catch (error) {
                world.log(`${ctx.name} leadership failed: ${(error as Error).name}`);
              }
              await world.track(`${ctx.name} latch close`, latch.close()).catch(() => {});
            }
            await sleep(rng.int(0, 200));
          }
        },
        check() {
          if (world.sched.now <= world.pauseShadowUntil) return;
          for (const stale of ledger.staleAfterLoss((c) => lostSince.get(c))) {
            world.violation(
              `${stale.holder}'s term ${stale.lease.path} still valid after its connection was lost at ${lostSince.get(stale.client)}`,
            );
            lostSince.delete(stale.client);
          }
          const valid = ledger.validOf(path);
          if (valid.length > 1)
            world.violation(
              `two leaders: ${valid.map((e) => `${e.holder}:${e.lease.path}`).join(', ')}`,
            );
        },
        audit(view) {
          // Liveness: the candidate at the head of the line leads (or is gone) within a bound of
          // getting there. A process that is gone leaves a node only until its session expires.
          const bound = 2 * view.sessionTimeout + 4_000;
          if (view.now < view.serviceSince) {
            head = null;
            return;
          }
          const first = view.children(path).find((c) => c.owner !== 0n);
          if (!first) {
            head = null;
            return;
          }
          if (!head || head.name !== first.name) {
            head = { name: first.name, since: view.now };
            return;
          }
          if (ledger.validOf(path).some((e) => e.lease.path.endsWith(`/${first.name}`))) {
            // Leading: the clock counts only the time the head has gone without leading.
            head.since = view.now;
            return;
          }
          if (view.now - Math.max(head.since, view.serviceSince) < bound) return;
          world.violation(
            `election stuck: ${path}/${first.name} (owner 0x${first.owner.toString(16)}) has headed the line for ${Math.round(view.now - head.since)} ms without leading`,
          );
          head.since = Number.POSITIVE_INFINITY;
        },
      };
    },
  };
}

export const recipeWorkloads: Record<string, Workload> = {
  exclusive,
  multilock,
  latch: electionWorkload('latch', `${ROOT}/election`, false),
  selector: electionWorkload('selector', `${ROOT}/selector`, true),
};

export type { World };
