// PersistentNode as a service registration: each process keeps an ephemeral node under one
// directory for a while (across reconnects, session renewals and faults), sometimes updates its
// data, closes it, and registers again; now and then it deletes another's node, as an operator
// might. Invariant, at quiescent points: once a process's client
// has been connected for a while, its node exists and belongs to its current session.
import type { Client } from '../../src/client/client.js';
import type { RecipeClient } from '../../src/client/recipe-client.js';
import { PersistentNode } from '../../src/recipes/index.js';
import { type AuditView, isFinal, ROOT, sleep, type Workload } from './workloads.js';

const DIR = `${ROOT}/members`;

interface Registration {
  client: Client;
  path: string;
  name: string;
  /** When the node was started. */
  since: number;
  /** Since when the client has been connected without a break, or null while it is not. */
  connected: { since: number | null };
  /** Since when the audit has seen the node missing (or another session's), or null. */
  missingSince: number | null;
  reported: boolean;
}

export const registration: Workload = {
  name: 'registration',
  root: ROOT,
  create(world) {
    const live = new Map<string, Registration>();
    return {
      async run(ctx) {
        const { client, name } = ctx;
        const rng = world.rng;
        const connected = { since: client.state === 'connected' ? world.sched.now : null };
        const off = client.on('state', (state) => {
          if (state === 'connected') connected.since ??= world.sched.now;
          else connected.since = null;
        });
        const seen = (
          world.plant?.wrap ? world.plant.wrap(client, world, name) : client
        ) as RecipeClient;
        try {
          while (!ctx.stopping() && !isFinal(client.state)) {
            const path = `${DIR}/${name}`;
            const node = new PersistentNode(seen, path, { data: name });
            node.on('error', (error) => world.log(`${name} persistent node: ${String(error)}`));
            // Not awaited: the registration is judged by the audit, not by when start() resolves.
            void node.start();
            world.stats.handoffs++;
            world.log(`${name} registers ${path}`);
            live.set(name, {
              client,
              path,
              name,
              since: world.sched.now,
              connected,
              missingSince: null,
              reported: false,
            });
            // Registrations last long enough to be judged (several session timeouts at most);
            // the wait ends early when the world closes.
            const until = world.sched.now + rng.int(2_000, 40_000);
            while (world.sched.now < until && !ctx.stopping()) await sleep(500);
            // Now and then an operator removes another process's registration: its own
            // PersistentNode must put it back.
            if (rng.chance(0.7)) {
              const other = `${DIR}/p${rng.int(0, 4)}`;
              if (other !== path) {
                await client.delete(other).then(
                  () => world.log(`${name} deleted ${other}`),
                  () => {},
                );
              }
            }
            if (rng.chance(0.3)) await node.setData(`${name}-${world.sched.now}`).catch(() => {});
            live.delete(name);
            await world.track(`${name} node close`, node.close()).catch(() => {});
            world.log(`${name} unregisters ${path}`);
            await sleep(rng.int(0, 300));
          }
        } finally {
          live.delete(name);
          off();
        }
      },
      check() {},
      audit(view: AuditView) {
        // Quiescent: the node has been missing (or another session's) for a session timeout and
        // then some while the client stayed connected, a leader was ordering and no process pause
        // was in the way. A renewal's new node may have to wait out the old session's node until
        // the server expires that session (within the session timeout); a link gone silent for
        // less than the read timeout leaves the client connected but deaf for that long.
        const quiet = view.sessionTimeout + 4_000;
        const members = view.children(DIR);
        for (const r of live.values()) {
          const session = r.client.sessionId;
          const child = members.find((c) => c.name === r.name);
          if (child && child.owner === session) {
            r.missingSince = null;
            continue;
          }
          // The window of a PersistentNode finding a node of an older session of its own at its
          // path (only its process creates there): its client is connected on a newer session.
          if (child && r.connected.since !== null) world.stats['worlds.registrationOldNode'] = 1;
          r.missingSince ??= view.now;
          if (r.reported || r.connected.since === null || view.now < view.serviceSince) continue;
          const from = Math.max(
            r.missingSince,
            r.connected.since,
            r.since,
            view.serviceSince,
            world.pauseShadowUntil,
          );
          if (view.now - from < quiet) continue;
          r.reported = true;
          world.violation(
            `${r.name}'s persistent node ${r.path} ${child ? `belongs to session 0x${child.owner.toString(16)}` : 'does not exist'} for ${Math.round(view.now - r.missingSince)} ms, though its client has been connected on session 0x${session.toString(16)} for ${Math.round(view.now - r.connected.since)} ms`,
          );
        }
      },
    };
  },
};
