// The watches' part of a world: resets aimed just after a watch is set, the liveness audit (a
// one-shot watch fires once a change after it commits), and the check of every event a watch
// reports against the committed changes.
import { Rng } from './env.js';
import type { SimNetwork } from './net.js';
import type { WatchRecord, World } from './world.js';

/**
 * A reconnect between a watch and its event: now and then a process's connection is reset just
 * after it set a one-shot watch, so the watch lives on only if SetWatches restores it.
 */
export function aimResetsAtWatches(world: World, net: SimNetwork, duration: number): void {
  const aim = new Rng(Math.imul(world.seed, 0x1f3d5b79) ^ 0x3a7c4e1);
  world.onWatchSet = (process) => {
    if (world.sched.now > duration || !aim.chance(0.4)) return;
    world.sched.at(aim.int(1, 150), 'server', () => {
      world.stats.faults++;
      world.stats['fault.watchReset'] = (world.stats['fault.watchReset'] ?? 0) + 1;
      world.log(`fault reset ${process} (just after it set a watch)`);
      for (const c of net.connectionsOf(process)) c.reset();
    });
  };
}

/** A one-shot watch fires once a change after its registration commits (liveness). */
export function auditWatches(world: World, sessionTimeout: number): void {
  const ensemble = world.ensemble;
  if (!ensemble) return;
  // Tight enough that a lost watch shows as a stall: a connected client hears of the change
  // within a few seconds; one that lost contact is back (SetWatches) or has lost its session
  // within a session timeout. A process pause and an election restart the clock.
  const bound = sessionTimeout + 6_000;
  const pauseEnd = world.pauseShadowUntil - sessionTimeout;
  for (const w of world.watches) {
    if (w.fired !== null) continue;
    if (
      w.client.sessionId !== w.session ||
      ['closed', 'expired', 'auth-failed'].includes(w.client.state)
    ) {
      w.fired = 'session over';
      continue;
    }
    const path = world.chroot + w.path;
    const changes = ensemble.changes.get(path) ?? [];
    let change = changes.find((c) => c.zxid > w.zxid);
    // An exist watch restored by SetWatches is re-armed if the node is absent then: a node
    // created and deleted again while the client was away is legitimately missed (the server
    // compares existence only). It is owed an event once the node exists again, from then.
    if (change && w.absent && (world.reconnects.get(w.process) ?? 0) !== w.reconnects) {
      if (!ensemble.committed.get(path)) continue;
      change = changes.findLast((c) => c.zxid > w.zxid && c.type === 'NodeCreated') ?? change;
    }
    // An election restarts the clock: the change reaches the watcher once a leader serves again.
    const since = change ? Math.max(change.at, ensemble.orderingSince, pauseEnd) : 0;
    if (change && ensemble.ordering && world.sched.now - since > bound) {
      world.violation(
        `${w.process} one-shot watch on ${w.path} (set at zxid ${w.zxid}) never fired for ${change.type} at zxid ${change.zxid}, ${Math.round(world.sched.now - change.at)} ms ago`,
      );
      w.fired = 'reported';
    }
  }
}

/** An event a watch reported must match a committed change after its registration. */
export function checkWatchEvent(world: World, w: WatchRecord, type: string): void {
  if (type === 'None') return;
  const changes = world.ensemble?.changes.get(world.chroot + w.path) ?? [];
  // A watch restored by SetWatches after a reconnect hears NodeDataChanged for a node deleted and
  // created again meanwhile: the server compares only the node's current mzxid with the client's.
  const matches = (c: { type: string }) =>
    c.type === type || (type === 'NodeDataChanged' && c.type === 'NodeCreated');
  if (!changes.some((c) => c.zxid > w.zxid && matches(c))) {
    world.violation(
      `${w.process} watch on ${w.path} reported ${type}, but no such change committed after zxid ${w.zxid}`,
    );
  }
}
