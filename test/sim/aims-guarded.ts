// The aimed expiries of the guarded-writes workload (workloads-guarded.ts): each reaches one of
// issue 38's untried schedules through the process's own client or its dials, at most a few
// times a world, counted under `fault.<kind>` and, once the client has renewed after it, under
// `worlds.<kind>Expired`.
import type { Client } from '../../src/client/client.js';
import { Rng } from './env.js';
import { ABSENT, clientWith } from './plant-kit.js';
import type { World } from './world.js';

export const GUARDED_ROOT = '/guarded';
export const LOCK = `${GUARDED_ROOT}/lock`;
export const ELECTION = `${GUARDED_ROOT}/election`;

/** `names` (children of `dir`) in line: by creation on the leader (czxid), as the recipes order. */
export function inLine(world: World, dir: string, names: readonly string[]): string[] {
  const tree = world.ensemble!.leader.tree;
  const czxid = (name: string) => tree.get(`${world.chroot}${dir}/${name}`)?.czxid ?? 0n;
  return [...names].sort((a, b) => (czxid(a) < czxid(b) ? -1 : czxid(a) > czxid(b) ? 1 : 0));
}

/** How many times a world aims each kind, per process. */
const AIMS_PER_WORLD = 2;

/** Per process: the aims used, and the cut-offs of the aims, for the windows' counts. */
const aimsOf = new WeakMap<World, Map<string, { used: Record<string, number>; rng: Rng }>>();

function aims(world: World, process: string) {
  let map = aimsOf.get(world);
  if (!map) {
    map = new Map();
    aimsOf.set(world, map);
  }
  let mine = map.get(process);
  if (!mine) {
    mine = { used: {}, rng: new Rng(Math.imul(world.seed, 0x5bd1e995) ^ process.charCodeAt(1)) };
    map.set(process, mine);
  }
  return mine;
}

/** Whether the aim `kind` fires now (its chance, at most AIMS_PER_WORLD times a world). */
function aimFires(world: World, process: string, kind: string, chance: number): boolean {
  const { used, rng } = aims(world, process);
  if ((used[kind] ?? 0) >= AIMS_PER_WORLD || !rng.chance(chance)) return false;
  if (world.sched.now > world.closedAt || !world.net) return false;
  used[kind] = (used[kind] ?? 0) + 1;
  world.stats.faults++;
  world.stats[`fault.${kind}`] = (world.stats[`fault.${kind}`] ?? 0) + 1;
  return true;
}

/**
 * Cuts `process` off from every member for 1.3 to 2 session timeouts (its session expires on the
 * server meanwhile); the window counts once the client has renewed after it.
 */
function cutOff(world: World, client: Client, process: string, kind: string): void {
  const d = Math.round(world.sessionTimeout * (1.3 + 0.7 * aims(world, process).rng.next()));
  world.log(`fault black-hole ${process}<->* for ${d} ms (${kind})`);
  world.net!.blackHole(process, '*', world.sched.now + d);
  const off = client.on('renewed', () => {
    world.stats[`worlds.${kind}Expired`] = 1;
    off();
  });
}

/**
 * The expiry during a resume's handshake: `process` dials to resume its session (it has one, and
 * is not connected) shortly before the server would expire it anyway (within the client's budget
 * for one attempt); its bytes are held until just after that expiry, so its ConnectRequest, sent
 * while the session lived, reaches the server after it ended, while the client still waits for the
 * answer. (Expiring the session early instead would be a server ZooKeeper is not: the client's
 * own expiry clock, which the `expired` loss policy relies on, runs behind the server's.)
 */
export function expireAtResume(world: World, client: Client | undefined, process: string): void {
  if (!client || client.closing || client.state === 'connected') return;
  const ensemble = world.ensemble!;
  const session = ensemble.sessions.get(client.sessionId);
  if (!session || session.closing || !ensemble.ordering) return;
  const left = session.expiresAt - world.sched.now;
  const budget = world.sessionTimeout / ensemble.members.length;
  if (left <= 0 || left > budget / 2) return;
  if (!aimFires(world, process, 'expireAtResume', 0.5)) return;
  const until = session.expiresAt + aims(world, process).rng.int(1, 40);
  world.log(
    `fault black-hole ${process}<->* until ${until} (its resume's handshake lands after the server's expiry at ${session.expiresAt})`,
  );
  world.net!.blackHole(process, '*', until);
  const off = client.on('renewed', () => {
    if (world.sched.now < until + world.sessionTimeout)
      world.stats['worlds.expireAtResumeExpired'] = 1;
    off();
  });
}

/**
 * A renewal while the server still has the old session: `process`, joining the lock's queue, is
 * cut off until a moment after its client has declared the session expired (a session timeout
 * after it last heard the server) and before the server expires it (its tick-rounded expiry).
 * The pings held by the hole then land and keep the old session alive a while longer, so the
 * renewed session's listings show the old session's node: the acquisition must not take it for
 * its own.
 */
function renewBeforeServerExpiry(world: World, client: Client, process: string): void {
  const session = world.ensemble!.sessions.get(client.sessionId);
  if (!session || session.closing) return;
  const from = world.sched.now + world.sessionTimeout + 10;
  const room = session.expiresAt - 10 - from;
  if (room <= 0 || !aimFires(world, process, 'renewBeforeServerExpiry', 0.15)) return;
  const until = Math.round(from + room * aims(world, process).rng.next());
  world.log(
    `fault black-hole ${process}<->* until ${until} (after its client's expiry, before the server's at ${session.expiresAt})`,
  );
  world.net!.blackHole(process, '*', until);
  const off = client.on('renewed', () => {
    world.stats['worlds.renewBeforeServerExpiryRenewed'] = 1;
    off();
  });
}

/** The process's client with the aimed expiries of this workload (see the top of the file). */
export function aimedClient(client: Client, world: World, process: string): Client {
  let recovering = false;
  // This process's earlier sessions: a listing on a renewed session may still show their nodes.
  const earlier = new Set<bigint>();
  client.on('renewed', ({ previousSessionId }) => earlier.add(previousSessionId));
  return clientWith(client, (prop, target) => {
    // No session core: the lock engine then sends its requests through the calls below (the
    // even processes' locks keep the direct path).
    if (prop === 'core') return ABSENT;
    if (prop === 'multi') {
      return (...args: Parameters<Client['multi']>) => {
        if (aimFires(world, process, 'guardedMultiHole', 0.05)) {
          cutOff(world, target, process, 'guardedMultiHole');
        }
        return target.multi(...args);
      };
    }
    if (prop === 'create2') {
      return (...args: Parameters<Client['create2']>) => {
        const [path] = args;
        if (path.startsWith(`${LOCK}/`)) renewBeforeServerExpiry(world, target, process);
        if (path.startsWith(`${LOCK}/`) && aimFires(world, process, 'recoveryLostReply', 0.1)) {
          world.log(`fault lost-reply ${process} (its lock create's reply)`);
          world.ensemble!.loseWriteReply.set(process, 0);
          recovering = true;
        }
        return target.create2(...args);
      };
    }
    if (prop === 'getChildren') {
      return (...args: Parameters<Client['getChildren']>) => {
        const [path] = args;
        if (path === LOCK && recovering) {
          // The protected create's recovery: its listing, as it is sent.
          recovering = false;
          if (aimFires(world, process, 'recoveryHole', 1)) {
            cutOff(world, target, process, 'recoveryHole');
          }
        }
        const listing = target.getChildren(...args);
        if (path === LOCK && earlier.size > 0) {
          // The window of an acquisition deciding on a listing, answered on the renewed
          // session, that still shows its old node (the server has not expired that session).
          void listing.then(
            (names) => {
              const tree = world.ensemble!.leader.tree;
              const old = names.some((name) => {
                const owner = tree.get(`${world.chroot}${LOCK}/${name}`)?.ephemeralOwner;
                return owner !== undefined && earlier.has(owner);
              });
              if (old) world.stats['worlds.listingShowsOldNode'] = 1;
            },
            () => {},
          );
        }
        if (path !== ELECTION) return listing;
        return listing.then((names) => {
          // The grant: this listing puts our node first (the latch leads on it).
          const tree = world.ensemble!.leader.tree;
          const first = inLine(world, ELECTION, names)[0];
          const owner = first && tree.get(`${world.chroot}${ELECTION}/${first}`)?.ephemeralOwner;
          if (owner === target.sessionId && aimFires(world, process, 'grantHole', 0.25)) {
            cutOff(world, target, process, 'grantHole');
          }
          return names;
        });
      };
    }
    return undefined;
  });
}
