// Counts the watch events our sessions deliver, so a scenario can report notifications per
// release (1 for a herd-free lock, N-1 for a herd). Events about a lock node the receiving session
// holds or held (a holder watching its own node, which its own release deletes) are counted
// apart: they wake no other contender.
//
// It listens on the library's `zookeeper-ts:watch` channel instead of wrapping the clients: a
// wrapped client is not a `Client`, so the locks would reach it through its public calls (the
// general seam) instead of straight through the session, and the benchmark would measure a path
// users of a plain `Client` never take. Its cost in our client CPU is one message per notification.
// The nodes a session holds are told by the probe from the leases it gets (`holds`, `forgets`).

import type { Client } from '../../src/index.js';
import { ChannelName, channel, type WatchEventMessage } from '../../src/telemetry/index.js';

export class WatchCounter {
  /** Watchers the sessions handed events to. */
  events = 0;
  /** Of which: about a node the receiving session holds or has just released. */
  ownNodeEvents = 0;
  /** Lock nodes each session (by id) holds, or has just released: see the probe's leaseAcquire. */
  private readonly heldBy = new Map<bigint, Set<string>>();
  private readonly listener = (message: unknown): void => {
    const event = message as WatchEventMessage;
    this.events += event.delivered;
    if (this.heldBy.get(event.sessionId)?.has(event.path)) this.ownNodeEvents += event.delivered;
  };

  /** Starts counting every session's watch events in this process. */
  start(): void {
    channel(ChannelName.watch).subscribe(this.listener);
  }

  stop(): void {
    channel(ChannelName.watch).unsubscribe(this.listener);
  }

  /** The session of `client` was granted node `path`. */
  holds(client: Client, path: string): void {
    let held = this.heldBy.get(client.sessionId);
    if (held === undefined) {
      held = new Set();
      this.heldBy.set(client.sessionId, held);
    }
    held.add(path);
  }

  /** Events on `path` are no longer about a node of this session's. */
  forgets(client: Client, path: string): void {
    this.heldBy.get(client.sessionId)?.delete(path);
  }
}
