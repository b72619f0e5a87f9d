// Counts the watch events our sessions deliver, so a scenario can report notifications per
// release (1 for a herd-free lock, N-1 for a herd). Events about a lock node the receiving session
// holds or held (a holder watching its own node, which its own release deletes) are counted
// apart: they wake no other contender.
//
// It listens on the library's `zookeeper-ts:watch` channel instead of wrapping the clients: a
// wrapped client is not a `Client`, so the locks would reach it through its public calls (the
// general seam) instead of straight through the session, and the benchmark would measure a path
// users of a plain `Client` never take. Its cost in our client CPU is one message per notification.
//
// The floor counts its events with an increment, so the counting must cost ours about as little:
// it runs in the same process and its CPU is charged to our client. Each contender therefore
// notes the node it holds in a field of its own (no map write per acquisition), and only a
// notification looks anything up, by path: a session id is a bigint, hashed afresh on every
// lookup, so it is only compared, on the one contender that holds the node.

import type { Client } from '../../src/index.js';
import { channel } from '../../src/otel/index.js';
import { ChannelName, type WatchEventMessage } from '../../src/telemetry/index.js';

/** One contender's lock node: the one it holds, or has just released (see the probe). */
export interface HeldNode {
  /** Set at a grant, cleared when the contender's next acquire begins. */
  node: string | undefined;
  /** The contender's session (read once: the probe's sessions are not renewed). */
  readonly sessionId: bigint;
}

export class WatchCounter {
  /** Watchers the sessions handed events to. */
  events = 0;
  /** Of which: about a node the receiving session holds or has just released. */
  ownNodeEvents = 0;
  /**
   * The contenders on each lock path, of every session. A notification finds its lock under the
   * nearest ancestor-or-self of its path that is one: `<lock>` for a lock node `<lock>/<name>`,
   * the lock path itself for an ExclusiveLock's node, `<lock>` for a semaphore's
   * `<lock>/leases/<name>`.
   */
  private readonly locks = new Map<string, HeldNode[]>();
  private readonly listener = (message: unknown): void => {
    const event = message as WatchEventMessage;
    this.events += event.delivered;
    const path = event.path;
    // The parent first: the lock of a lock node, the case of nearly every notification.
    let contenders = this.locks.get(path.slice(0, path.lastIndexOf('/')));
    for (let at = path; contenders === undefined && at.length > 0; ) {
      contenders = this.locks.get(at);
      at = at.slice(0, at.lastIndexOf('/'));
    }
    if (contenders === undefined) return;
    // Mostly one contender holds a node; an ExclusiveLock's one node may be noted by two (the
    // holder, and the one that has just released it).
    for (const contender of contenders) {
      if (contender.node === path && contender.sessionId === event.sessionId) {
        this.ownNodeEvents += event.delivered;
        return;
      }
    }
  };

  /** Starts counting every session's watch events in this process. */
  start(): void {
    channel(ChannelName.watch).subscribe(this.listener);
  }

  stop(): void {
    channel(ChannelName.watch).unsubscribe(this.listener);
  }

  /** The record through which a contender of `client` on `lockPath` tells the node it holds. */
  contender(client: Client, lockPath: string): HeldNode {
    const held: HeldNode = { node: undefined, sessionId: client.sessionId };
    const contenders = this.locks.get(lockPath);
    if (contenders === undefined) this.locks.set(lockPath, [held]);
    else contenders.push(held);
    return held;
  }
}
