// The model ensemble: a leader that orders every change, and followers that apply the same
// transactions later (each with its own lag), so a follower answers reads from its own, possibly
// stale, state. Sessions are tracked by the leader and expire there; sync, session moves, the
// refusal of a client that has seen more than a member, and container cleanup follow ZooKeeper 3.8.
import { ErrorCode } from '../../protocol/errors.js';
import type { Cnxn } from './cnxn.js';
import type { ModelRng, ModelScheduler } from './host.js';
import { hashSetCopyOrder } from './java-order.js';
import { Member } from './member.js';
import { single } from './prepare.js';
import { DataTree, type Trigger, type Txn } from './tree.js';

export interface EnsembleOptions {
  members: number;
  tickTime: number;
  /** Largest request frame a member accepts (jute.maxbuffer). */
  maxBuffer: number;
  /** Extra delay with which each follower applies what the leader committed. */
  followerLag: (member: number) => number;
  /** Delay of a follower's messages to the leader (forwarded requests, session checks). */
  forwardLag: (member: number) => number;
  /** Paths whose committed changes are recorded (for the watch invariants). */
  recordChanges?: (path: string) => boolean;
  /** Period of the container manager's sweep. */
  containerSweep: number;
  /**
   * `enforce.auth.enabled` with the digest scheme: a connection must send these digest
   * credentials (`user:password`) before anything else, or its first other request is answered
   * SESSIONCLOSEDREQUIRESASLAUTH and the connection closed. Unset: auth packets are accepted.
   */
  requireDigest?: string;
}

export interface SessionInfo {
  id: bigint;
  timeout: number;
  password: Uint8Array;
  expiresAt: number;
  closing: boolean;
  owner: Cnxn | null;
  /**
   * The member the session was last (re)established through, as the leader's session tracker
   * records it: a write still arriving from another member fails with SESSIONMOVED.
   */
  ownerMember: number;
}

export class Ensemble {
  readonly members: Member[] = [];
  /** The leader, or the last one while an election runs (its tree stays the committed state). */
  leader: Member;
  /** The leader has a quorum behind it and orders changes; false from a step-down to an election. */
  ordering = true;
  /** When the current leader began ordering (virtual ms). */
  orderingSince = 0;
  /** The leader's epoch: the high 32 bits of every zxid it hands out. */
  epoch = 0;
  readonly sessions = new Map<bigint, SessionInfo>();
  /**
   * Client processes whose next write's reply is lost (the link resets just before it), with
   * how long every follower but the write's own member stalls applying that write (ms, 0: none).
   */
  readonly loseWriteReply = new Map<string, number>();
  /**
   * Clients whose next reconnect through a follower has that follower's link to the leader stall
   * (ms): the revalidation arrives after the client gave up on it and moved on, and moves the
   * session's owner away from the member it is on now (the ZOOKEEPER-710 window).
   */
  readonly lateRevalidation = new Map<string, number>();
  private zxid = 0n;
  private sessionCounter = 0n;
  /** Counters the world reports. */
  readonly stats = {
    txns: 0,
    expired: 0,
    refusedAhead: 0,
    containersDeleted: 0,
    elections: 0,
    crashes: 0,
    partitions: 0,
    /** Connections closed because a write reached the leader after its session moved. */
    sessionMoved: 0,
    /** Requests refused because their connection had not authenticated (`requireDigest`). */
    authRefused: 0,
  };
  /** Committed changes of recorded paths, in order: what a watch may legitimately report. */
  readonly changes = new Map<string, { zxid: bigint; type: Trigger['type']; at: number }[]>();

  constructor(
    readonly sched: ModelScheduler,
    readonly rng: ModelRng,
    readonly options: EnsembleOptions,
    readonly trace: (line: string) => void,
    seedTree: (tree: DataTree) => void,
  ) {
    const base = new DataTree();
    seedTree(base);
    for (let i = 0; i < options.members; i++) {
      this.members.push(new Member(this, i + 1, `zk${i + 1}:2181`, base.clone()));
    }
    this.leader = this.members[0]!;
    this.zxid = base.lastZxid;
    this.scheduleExpiryCheck();
    this.scheduleContainerSweep();
  }

  lag(member: number): number {
    return this.options.followerLag(member);
  }

  get lastZxid(): bigint {
    return this.zxid;
  }

  /** Every transaction ever ordered (the model commits as it orders, and loses none). */
  get committed(): DataTree {
    return this.leader.tree;
  }

  /**
   * A new leader takes over: it starts a new epoch (zxids jump to `epoch << 32`), and, as the
   * new leader's session tracker does, gives every session a fresh timeout.
   */
  newLeader(leader: Member): void {
    const committed = this.committed;
    this.leader = leader;
    this.epoch++;
    this.zxid = BigInt(this.epoch) << 32n;
    leader.resync(committed.clone());
    this.ordering = true;
    this.orderingSince = this.sched.now;
    this.stats.elections++;
    for (const session of this.sessions.values()) {
      session.owner = null;
      this.touch(session.id);
    }
  }

  // ---- ordering ----------------------------------------------------------------------------

  /**
   * Orders one change at the leader: `prepare` sees the leader's tree (up to date with every
   * earlier change) and returns the transaction; the leader applies it and streams it to the
   * followers. `finish` runs on the origin member once that member has applied it.
   */
  propose(
    prepare: (tree: DataTree, zxid: bigint) => Txn,
    done?: { cnxn: Cnxn; finish: (m: Member) => void },
    stall?: number,
  ): void {
    const zxid = ++this.zxid;
    const leaderTree = this.leader.tree;
    const txn = prepare(leaderTree, zxid);
    const events = leaderTree.apply(zxid, txn);
    this.stats.txns++;
    const record = this.options.recordChanges;
    if (record) {
      for (const event of events) {
        if (event.type === 'NodeChildrenChanged' || !record(event.path)) continue;
        const list = this.changes.get(event.path) ?? [];
        this.changes.set(event.path, list);
        list.push({ zxid, type: event.type, at: this.sched.now });
      }
    }
    const item = { kind: 'txn' as const, zxid, txn, done, events, stall };
    for (const member of this.members) member.receive(item);
  }

  /** A sync: the origin member answers once it has applied everything the leader has now. */
  sync(done: { cnxn: Cnxn; finish: (m: Member) => void }): void {
    for (const member of this.members) member.receive({ kind: 'sync', done });
  }

  // ---- sessions ----------------------------------------------------------------------------

  negotiate(requested: number): number {
    const tick = this.options.tickTime;
    return Math.min(Math.max(requested, 2 * tick), 20 * tick);
  }

  newSessionId(member: number): bigint {
    return (BigInt(member) << 56n) | ++this.sessionCounter;
  }

  touch(id: bigint): void {
    const session = this.sessions.get(id);
    if (!session || session.closing) return;
    const tick = this.options.tickTime;
    // The expiry queue rounds up to the next tick, as the server's does.
    session.expiresAt = Math.ceil((this.sched.now + session.timeout) / tick) * tick;
  }

  /** Ends a session: a closeSession transaction deleting its ephemerals. */
  closeSession(id: bigint, done?: { cnxn: Cnxn; finish: (m: Member) => void }): void {
    const session = this.sessions.get(id);
    if (session) session.closing = true;
    this.sessions.delete(id);
    this.propose(
      (tree) => ({
        kind: 'closeSession',
        sessionId: id,
        // In the order the server deletes them (its HashSet's), which orders the events.
        paths: hashSetCopyOrder(
          [...(tree.ephemerals.get(id) ?? [])],
          tree.ephemeralPeak.get(id) ?? 0,
        ),
      }),
      done,
    );
  }

  private scheduleExpiryCheck(): void {
    const tick = this.options.tickTime;
    const next = Math.floor(this.sched.now / tick) * tick + tick;
    this.sched.atTime(next, 'server', () => {
      // Only a leader with a quorum expires sessions (and the clocks restart with a new one).
      if (this.ordering) this.expireDue();
      this.scheduleExpiryCheck();
    });
  }

  private expireDue(): void {
    for (const session of [...this.sessions.values()]) {
      if (!session.closing && session.expiresAt <= this.sched.now) {
        this.stats.expired++;
        this.trace(`server expire session 0x${session.id.toString(16)}`);
        this.closeSession(session.id);
      }
    }
  }

  private scheduleContainerSweep(): void {
    this.sched.at(this.options.containerSweep, 'server', () => {
      if (!this.ordering) {
        this.scheduleContainerSweep();
        return;
      }
      const tree = this.leader.tree;
      const empty = [...tree.nodes.entries()]
        .filter(
          ([, node]) =>
            node.children.size === 0 &&
            ((node.container && node.cversion > 0) ||
              // A TTL node with no children, unchanged for longer than its TTL.
              (node.ttl > 0 && Date.now() - Number(node.mtime) > node.ttl)),
        )
        .map(([path]) => path)
        .sort();
      for (const path of empty) {
        this.propose((t) => {
          const node = t.get(path);
          if (!node || node.children.size > 0)
            return single({ type: 'error', err: ErrorCode.NOTEMPTY });
          this.stats.containersDeleted++;
          return single({ type: 'delete', path });
        });
      }
      this.scheduleContainerSweep();
    });
  }
}
