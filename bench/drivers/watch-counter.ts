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
import { channel } from '../../src/otel/index.js';
import { ChannelName, type WatchEventMessage } from '../../src/telemetry/index.js';

export class WatchCounter {
  /** Watchers the sessions handed events to. */
  events = 0;
  /** Of which: about a node the receiving session holds or has just released. */
  ownNodeEvents = 0;
  /**
   * The sessions (by id) that hold each lock node, or have just released it: see the probe's
   * leaseAcquire. Keyed by the node's path, whose hash a string caches, where a session id, a
   * bigint, is hashed afresh on every lookup; a sequential node has one holder, the exclusive
   * lock's one node one at a time (and the one that has just released it).
   */
  private readonly holders = new Map<string, bigint[]>();
  private readonly listener = (message: unknown): void => {
    const event = message as WatchEventMessage;
    this.events += event.delivered;
    if (this.holders.get(event.path)?.includes(event.sessionId)) {
      this.ownNodeEvents += event.delivered;
    }
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
    const ids = this.holders.get(path);
    if (ids === undefined) this.holders.set(path, [client.sessionId]);
    else ids.push(client.sessionId);
  }

  /** Events on `path` are no longer about a node of the session of `client`. */
  forgets(client: Client, path: string): void {
    const ids = this.holders.get(path);
    if (ids === undefined) return;
    const at = ids.indexOf(client.sessionId);
    if (at >= 0) ids.splice(at, 1);
    if (ids.length === 0) this.holders.delete(path);
  }
}
