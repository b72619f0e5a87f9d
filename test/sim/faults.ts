// The faults a world suffers: which kinds it may draw, and the timer that injects one every few
// seconds (links reset or cut mid-frame, replies lost, black holes, pauses, slow followers, member
// crashes and partitions, latency spikes), each logged and counted in the world's stats.
import type { Ensemble } from '../../src/testing/model/ensemble.js';
import type { Quorum } from '../../src/testing/model/quorum.js';
import type { SimNetwork } from './net.js';
import type { World } from './world.js';

export interface FaultContext {
  net: SimNetwork;
  ensemble: Ensemble;
  /** Null when member faults are off. */
  quorum: Quorum | null;
  sessionTimeout: number;
  processes: number;
  duration: number;
  slowUntil: number[] | null;
  /** In semaphore worlds: a process holding no lease while every lease is taken, or null. */
  semaphoreFull: (() => string | null) | null;
  /** Members may flap (drop each connection right after its handshake) for a while. */
  flaps: boolean;
  /** The session process `p<n>` is on now (0n before its first). */
  sessionOf: (process: string) => bigint;
  /** The fault kinds to draw from instead of the menu (a plant's take precedence). */
  kinds: string[] | undefined;
}

/** The fault menu: each kind's weight is how often it appears. */
function faultMenu(ctx: FaultContext): string[] {
  const menu = ['reset', 'cut', 'holeShort', 'holeLong', 'pause', 'lag', 'reset', 'holeShort'];
  menu.push('lostReply');
  if (ctx.semaphoreFull) menu.push('lostReplyFull', 'lostReplyFull');
  if (ctx.flaps) menu.push('flap');
  if (ctx.slowUntil) menu.push('slowFollower', 'lostReplyStall');
  if (ctx.quorum) {
    menu.push('crash');
    if (ctx.ensemble.members.length > 1) menu.push('partition');
  }
  if (ctx.ensemble.members.length > 1) menu.push('lateRevalidation');
  return menu;
}

export function scheduleFaults(world: World, ctx: FaultContext): void {
  const { net, ensemble, sessionTimeout, processes, duration, slowUntil } = ctx;
  const { sched, rng } = world;
  const [gapMin, gapMax] = world.plant?.faultGap ?? [500, 6000];
  const menu = world.plant?.faultKinds ?? ctx.kinds ?? faultMenu(ctx);
  const next = () => rng.int(gapMin, gapMax);
  const fault = () => {
    if (sched.now > duration) return;
    const client = `p${rng.int(0, processes - 1)}`;
    const conns = net.connectionsOf(client);
    const kind = rng.pick(menu);
    world.stats.faults++;
    world.stats[`fault.${kind}`] = (world.stats[`fault.${kind}`] ?? 0) + 1;
    switch (kind) {
      case 'reset':
        world.log(`fault reset ${client}`);
        for (const c of conns) c.reset();
        break;
      case 'cut':
        world.log(`fault cut-mid-frame ${client}`);
        for (const c of conns) c.cutNext = true;
        break;
      case 'lostReply':
        world.log(`fault lost-reply ${client} (its next write's reply)`);
        ensemble.loseWriteReply.set(client, 0);
        break;
      case 'lateRevalidation': {
        // The client reconnects now; the follower it reaches first forwards its revalidation
        // only after the client's attempt budget, so it moves on and settles elsewhere first.
        const perHost = sessionTimeout / ensemble.members.length;
        const d = Math.round(perHost + rng.int(200, 1500));
        world.log(`fault late revalidation ${client} (${d} ms) and reset`);
        ensemble.lateRevalidation.set(client, d);
        for (const c of conns) c.reset();
        break;
      }
      case 'flap': {
        const member = rng.pick(ensemble.members);
        const d = rng.int(1000, 5000);
        world.log(`fault zk${member.id} drops every connection after its handshake for ${d} ms`);
        member.flapUntil = sched.now + d;
        break;
      }
      case 'lostReplyFull': {
        // Wait (a few seconds at most) for the semaphore to be full, then lose the reply of the
        // next write of a process that holds no lease: its create, as it joins the queue.
        let tries = 0;
        const aim = () => {
          const target = ctx.semaphoreFull?.() ?? null;
          if (target) {
            world.log(`fault lost-reply ${target} (its next write's reply; the semaphore is full)`);
            ensemble.loseWriteReply.set(target, 0);
            // The window is reached once the write whose reply is lost was sent (the entry used).
            sched.at(sessionTimeout, 'server', () => {
              if (!ensemble.loseWriteReply.has(target)) world.stats['worlds.lostReplyAtFull'] = 1;
            });
          } else if (++tries < 50 && sched.now < duration) sched.at(100, 'server', aim);
        };
        aim();
        break;
      }
      case 'renewBeforeServerExpiry': {
        // Not in the menu (`--faults` names it): the process is cut off until after its client
        // has declared the session expired (a session timeout after it last heard the server)
        // and before the server's tick-rounded expiry; the pings the hole held then land and
        // keep the old session, and its nodes, alive a while after the renewal. The renewed
        // session's recipes find the old session's nodes (a lock's listing, a PersistentNode's
        // path).
        const session = ensemble.sessions.get(ctx.sessionOf(client));
        const from = sched.now + sessionTimeout + 10;
        const room = session && !session.closing ? session.expiresAt - 10 - from : 0;
        if (room <= 0) break;
        const until = Math.round(from + room * rng.next());
        world.log(
          `fault black-hole ${client}<->* until ${until} (after its client's expiry, before the server's at ${session!.expiresAt})`,
        );
        net.blackHole(client, '*', until);
        break;
      }
      case 'lostReplyStall': {
        // Aimed at the moment that matters: the other followers are slow to apply exactly the
        // write whose reply is lost, so a reconnect may reach one that has not applied it yet.
        const d = rng.int(100, 3000);
        world.log(
          `fault lost-reply ${client} (its next write's reply; other followers ${d} ms late)`,
        );
        ensemble.loseWriteReply.set(client, d);
        break;
      }
      case 'holeShort':
      case 'holeLong': {
        const d = Math.round(
          kind === 'holeShort'
            ? sessionTimeout * (0.1 + 0.5 * rng.next())
            : sessionTimeout * (1.2 + rng.next()),
        );
        const host = rng.chance(0.5) ? '*' : rng.pick(ensemble.members).host;
        world.log(`fault black-hole ${client}<->${host} for ${d} ms`);
        net.blackHole(client, host, sched.now + d);
        break;
      }
      case 'pause': {
        const d = Math.round(sessionTimeout * (0.1 + 1.4 * rng.next()));
        world.log(`fault client-clock-jump (process pause) ${d} ms`);
        sched.pauseClients(sched.now + d);
        world.pauseShadowUntil = Math.max(world.pauseShadowUntil, sched.now + d + sessionTimeout);
        break;
      }
      case 'slowFollower': {
        if (!slowUntil || ensemble.members.length < 2) break;
        const member = rng.int(1, ensemble.members.length);
        if (ensemble.members[member - 1]!.isLeader) break;
        const d = rng.int(2000, 8000);
        world.log(`fault slow follower zk${member} for ${d} ms`);
        slowUntil[member] = sched.now + d;
        break;
      }
      case 'crash': {
        const member = rng.pick(ensemble.members);
        const d = Math.round(sessionTimeout * (0.1 + 1.4 * rng.next()));
        // Half the crashes take the machine down (its clients hear nothing), half only the
        // process (its clients' connections are closed at once).
        if (member.alive && rng.chance(0.5)) {
          world.log(`fault machine of zk${member.id} down`);
          net.machineDown(member.host, sched.now + d);
        }
        ctx.quorum?.crash(member, d);
        break;
      }
      case 'partition': {
        const member = rng.pick(ensemble.members);
        ctx.quorum?.partition(member, Math.round(sessionTimeout * (0.1 + 1.4 * rng.next())));
        break;
      }
      case 'lag': {
        world.log('fault latency spike period');
        net.spikeChance = 0.3;
        sched.at(rng.int(500, 3000), 'server', () => {
          net.spikeChance = 0.01;
        });
        break;
      }
    }
    sched.at(next(), 'server', fault);
  };
  sched.at(next(), 'server', fault);
}
