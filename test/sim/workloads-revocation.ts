// Revocation (Curator's Revoker): holders take a revocable mutex lease and half of them hold "until
// asked", so the lock moves on only when a waiter's revoke() reaches them. Contenders ask the
// holder to let go before they queue, and again now and then while they wait. Invariants: the
// lease ledger's (one holder, loss of contact ends a lease), and a revoked holder releases within
// a bound: once revoke() has written to a node, that node is gone within the bound.
import type { Lease, RevocableLease } from '../../src/locks/index.js';
import { Mutex, revoke } from '../../src/locks/index.js';
import { type AuditView, lockWorkload, ROOT, sleep, type Workload } from './workloads.js';
import type { World } from './world.js';

const PATH = `${ROOT}/revocable`;

/** A holder that waits to be asked holds at most this long (virtual ms). */
const UNTIL_ASKED = 60_000;

interface Request {
  /** The node revoke() wrote `__REVOKE__` into. */
  node: string;
  by: string;
  at: number;
  reported: boolean;
}

/** The revocation requests of each world, for the audit. */
const requests = new WeakMap<World, Request[]>();

const base = lockWorkload(
  'revocation',
  PATH,
  (client, world, options, raw) => {
    const mutex = new Mutex(client, PATH, options);
    const ask = async (by: string) => {
      try {
        const node = await revoke(raw, PATH);
        if (node) {
          world.log(`${by} asked the holder of ${node} to release`);
          requests.get(world)?.push({ node, by, at: world.sched.now, reported: false });
        }
      } catch {
        // Connection losses: asking again later is the revoker's business.
      }
    };
    return {
      async acquire(timeout) {
        const me = `0x${raw.sessionId.toString(16)}`;
        if (world.rng.chance(0.5)) await ask(me);
        const acquiring = mutex.acquire({ timeout, revocable: true });
        let waiting = true;
        const settled = () => {
          waiting = false;
        };
        acquiring.then(settled, settled);
        // While waiting, ask again now and then (a request can reach a holder that has just let
        // go, and the next holder needs asking too).
        void world.track(
          'revoker',
          (async () => {
            while (waiting && !client.closing) {
              await sleep(world.rng.int(500, 3000));
              if (waiting && !client.closing && world.rng.chance(0.5)) await ask(me);
            }
          })(),
        );
        return ['mutex', await acquiring];
      },
      hold(granted: Lease, seen: Lease) {
        const revocation = (granted as RevocableLease).revocation;
        return {
          ms: world.rng.chance(0.5) ? UNTIL_ASKED : world.holdTime(),
          signal: AbortSignal.any([seen.signal, revocation]),
        };
      },
    };
  },
  (valid) => (valid.length > 1 ? 'two mutex holders' : null),
);

export const revocation: Workload = {
  ...base,
  create(world) {
    const inner = base.create(world);
    const asked: Request[] = [];
    requests.set(world, asked);
    return {
      run: (ctx) => inner.run(ctx),
      check: () => inner.check(),
      audit(view: AuditView) {
        inner.audit(view);
        auditRevocations(world, view, asked);
      },
    };
  },
};

/**
 * A revoked holder releases within a bound: a connected holder is told at once and lets go; one
 * that lost contact has its lease ended by the loss, and its node goes with the release or with
 * its session (a session timeout). A process pause and an election restart the clock.
 */
function auditRevocations(world: World, view: AuditView, asked: Request[]): void {
  const bound = view.sessionTimeout + 4_000;
  const pauseEnd = world.pauseShadowUntil - view.sessionTimeout;
  for (let i = asked.length - 1; i >= 0; i--) {
    const request = asked[i]!;
    const dir = request.node.slice(0, request.node.lastIndexOf('/'));
    const name = request.node.slice(dir.length + 1);
    if (!view.children(dir).some((c) => c.name === name)) {
      asked.splice(i, 1);
      continue;
    }
    if (request.reported || view.now < view.serviceSince) continue;
    // A holder cut off by a black hole hears of the request late or never; what it sent before it
    // gave up reaches the server when the hole ends and keeps its session alive from then.
    const owner = view.children(dir).find((c) => c.name === name)?.owner ?? 0n;
    const since = Math.max(request.at, view.serviceSince, pauseEnd, view.heldBytesLanded(owner));
    if (view.now - since <= bound) continue;
    request.reported = true;
    world.violation(
      `revoked holder did not release: ${request.node} (asked by ${request.by} at ${Math.round(request.at)}) still exists ${Math.round(view.now - request.at)} ms later`,
    );
  }
}
