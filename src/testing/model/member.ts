// One member of the model ensemble: whether its process runs and it serves, its own tree (as far
// as it has applied the leader's stream), its watch tables and client connections, and its link
// to the leader (forwarded requests, session checks, the stream of transactions it applies).

import { Cnxn } from './cnxn.js';
import type { Ensemble } from './ensemble.js';
import type { Acceptor, ServerEnd } from './host.js';
import type { DataTree, Trigger, Txn } from './tree.js';
import { WatchTables } from './watches.js';

/** What a member applies, in the leader's order: a transaction or a sync marker. */
export type Item =
  | {
      kind: 'txn';
      zxid: bigint;
      txn: Txn;
      /** The events the leader computed when it applied the change. */
      events: Trigger[];
      done?: { cnxn: Cnxn; finish: (m: Member) => void };
      /** Followers other than the origin stall this long before applying it. */
      stall?: number;
    }
  | { kind: 'sync'; done: { cnxn: Cnxn; finish: (m: Member) => void } };

export class Member implements Acceptor {
  /** The server process runs (accepts TCP connections); false between a crash and its restart. */
  alive = true;
  /**
   * Serves clients: a leader that orders with a quorum behind it, or a follower that caught up
   * with one. A member that is not serving closes every client connection, and closes each new one
   * as soon as its handshake arrives ("ZooKeeperServer not running").
   */
  serving = true;
  /** A follower receiving the leader's stream (false from a crash or a cut until it caught up). */
  attached = true;
  /**
   * Bumped whenever this member's link to the leader breaks (crash, cut, election): messages of
   * an older generation (applies, forwarded requests, session checks) are lost.
   */
  gen = 0;
  /**
   * Until then, the member closes every connection right after answering its handshake, as a
   * server does that a client's SetWatches overruns (jute.maxbuffer): a session is had, and lost.
   */
  flapUntil = 0;
  tree: DataTree;
  readonly watches = new WatchTables<Cnxn>();
  readonly cnxns = new Set<Cnxn>();
  private applyAt = 0;
  private forwardAt = 0;

  constructor(
    readonly ensemble: Ensemble,
    readonly id: number,
    readonly host: string,
    tree: DataTree,
  ) {
    this.tree = tree;
  }

  get isLeader(): boolean {
    return this.ensemble.leader === this;
  }

  /** Accepts TCP (the net refuses a connection to a member whose process is down). */
  get up(): boolean {
    return this.alive;
  }

  accept(end: ServerEnd): void {
    const cnxn = new Cnxn(this, end);
    this.cnxns.add(cnxn);
  }

  /** The link to the leader broke: whatever was in flight on it is lost. */
  detach(): void {
    this.gen++;
    this.attached = false;
    this.applyAt = this.ensemble.sched.now;
    this.forwardAt = this.ensemble.sched.now;
  }

  /** Stops serving clients: every client connection is closed (the server shuts down). */
  stopServing(): void {
    this.serving = false;
    for (const cnxn of [...this.cnxns]) cnxn.close();
  }

  /** Caught up with the leader's committed state (a snapshot of it); serving again. */
  resync(tree: DataTree): void {
    this.detach();
    this.tree = tree;
    this.attached = true;
    this.serving = true;
  }

  /**
   * Queues something for the leader, in order (a follower forwards over its quorum link). Lost if
   * the link breaks on the way or the leader cannot commit (it answers nothing: the client's
   * connection is closed once the member stops serving).
   */
  /**
   * The link to the leader stalls for `ms`: this member's forwarded messages (and those behind
   * them, in order) reach the leader that much later.
   */
  holdForwards(ms: number): void {
    this.forwardAt = Math.max(this.forwardAt, this.ensemble.sched.now + ms);
  }

  forward(task: () => void): void {
    const ensemble = this.ensemble;
    if (this.isLeader) {
      if (ensemble.ordering) task();
      return;
    }
    if (!this.attached) return;
    const sched = ensemble.sched;
    const gen = this.gen;
    const at = Math.max(sched.now + ensemble.options.forwardLag(this.id), this.forwardAt);
    this.forwardAt = at;
    sched.atTime(at, 'server', () => {
      if (this.gen === gen && ensemble.ordering) task();
    });
  }

  /** Sends something back from the leader to this member (lost if the link breaks meanwhile). */
  back(task: () => void): void {
    if (this.isLeader) {
      task();
      return;
    }
    const gen = this.gen;
    this.ensemble.sched.at(this.ensemble.options.forwardLag(this.id), 'server', () => {
      if (this.gen === gen) task();
    });
  }

  /** Receives the next item of the leader's stream; a follower applies it after its lag. */
  receive(item: Item): void {
    if (this.isLeader) {
      this.applyItem(item);
      return;
    }
    if (!this.attached) return;
    const sched = this.ensemble.sched;
    const gen = this.gen;
    const stall = item.kind === 'txn' && item.done?.cnxn.member !== this ? (item.stall ?? 0) : 0;
    const at = Math.max(sched.now + this.ensemble.lag(this.id) + stall, this.applyAt);
    this.applyAt = at;
    sched.atTime(at, 'server', () => {
      if (this.gen === gen) this.applyItem(item);
    });
  }

  private applyItem(item: Item): void {
    if (item.kind === 'txn') {
      // The leader's tree is already up to date: it applied when it ordered the change.
      const events = this.isLeader ? item.events : this.tree.apply(item.zxid, item.txn);
      for (const event of events) {
        for (const cnxn of this.watches.fire(event)) cnxn.notify(event.type, event.path);
      }
      if (item.txn.kind === 'closeSession') {
        for (const cnxn of [...this.cnxns]) {
          if (cnxn.sessionId === item.txn.sessionId && cnxn !== item.done?.cnxn) cnxn.close();
        }
      }
    }
    if (item.done && item.done.cnxn.member === this) item.done.finish(this);
  }

  dropCnxn(cnxn: Cnxn): void {
    this.cnxns.delete(cnxn);
    this.watches.drop(cnxn);
  }
}
