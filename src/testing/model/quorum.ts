// Member faults and the quorum rules a client can observe: a member crash (its clients are cut
// off, new connections refused until it restarts), a member cut off from the others (it stops
// serving once it notices), the leader stepping down without a majority, the election pause in
// which nobody serves, and the catch-up a member makes before it serves again.
//
// As in ZooKeeper, a member notices a lost leader (or a leader its lost majority) only after a
// detection delay (the quorum links' read timeout); until then a cut-off follower keeps answering
// reads from its stale state, while its writes and session checks go nowhere. A crashed leader is
// noticed at once (its links reset). The model loses no transaction it ordered: its leader
// commits as it orders, so every ordered change survives an election (a legal ZooKeeper outcome;
// losing an unacknowledged proposal is the other legal one, and is not modelled).

import type { Ensemble } from './ensemble.js';
import type { ModelScheduler } from './host.js';
import type { Member } from './member.js';

export interface QuorumTiming {
  /** How long a member takes to notice a lost leader or a lost majority (ms). */
  detect: number;
  /** The election pause (ms), drawn per election. */
  electionPause: () => number;
  /** How long a member takes to catch up with the leader before it serves (ms). */
  catchUp: () => number;
}

export class Quorum {
  /** Members in the same group talk to each other; a partition puts some in group 1. */
  private readonly group = new Map<number, number>();
  /** An election is under way, or the leader is about to notice it lost its majority. */
  private electing = false;
  /** The sync a member is making (epoch and generation), so a second review does not restart it. */
  private readonly syncing = new Map<number, string>();

  constructor(
    private readonly ensemble: Ensemble,
    private readonly sched: ModelScheduler,
    private readonly timing: QuorumTiming,
    private readonly trace: (line: string) => void,
  ) {
    for (const m of ensemble.members) this.group.set(m.id, 0);
  }

  private linked(a: Member, b: Member): boolean {
    return this.group.get(a.id) === this.group.get(b.id);
  }

  private get majority(): number {
    return Math.floor(this.ensemble.members.length / 2) + 1;
  }

  /** A member's process dies; it restarts `downFor` ms later (never by itself when unset). */
  crash(member: Member, downFor?: number): void {
    if (!member.alive) return;
    this.ensemble.stats.crashes++;
    this.trace(`fault crash zk${member.id}${member.isLeader ? ' (leader)' : ''} for ${downFor} ms`);
    member.alive = false;
    member.detach();
    member.stopServing();
    if (member.isLeader && this.ensemble.ordering) {
      // Its followers' links reset at once: no detection delay.
      this.ensemble.ordering = false;
      this.startElection();
    } else this.review();
    if (downFor !== undefined) this.sched.at(downFor, 'server', () => this.restart(member));
  }

  /** A crashed member's process starts again: it rejoins (catches up) or joins an election. */
  restart(member: Member): void {
    if (member.alive) return;
    this.trace(`zk${member.id} restarts`);
    member.alive = true;
    this.review();
  }

  /** Cuts `member` off from every other member for `duration` ms. */
  partition(member: Member, duration: number): void {
    if (this.ensemble.members.length < 2 || this.group.get(member.id) !== 0) return;
    this.ensemble.stats.partitions++;
    this.trace(
      `fault partition zk${member.id}${member.isLeader ? ' (leader)' : ''} from the others for ${duration} ms`,
    );
    this.group.set(member.id, 1);
    this.review();
    this.sched.at(duration, 'server', () => {
      this.trace(`partition of zk${member.id} heals`);
      this.group.set(member.id, 0);
      this.review();
    });
  }

  /** Brings every member in line with the links and processes as they are now. */
  review(): void {
    const ens = this.ensemble;
    if (!ens.ordering) {
      if (!this.electing) this.startElection();
      return;
    }
    const leader = ens.leader;
    const behind = ens.members.filter((m) => m.alive && this.linked(m, leader));
    if (behind.length < this.majority) {
      // The leader cannot commit any more; it steps down once it notices, and its followers
      // start an election once they notice it is gone.
      this.trace(`zk${leader.id} (leader) lost its majority`);
      ens.ordering = false;
      this.electing = true;
      this.notice(() => this.startElection());
      return;
    }
    for (const m of ens.members) {
      if (m === leader) continue;
      if (m.attached && (!m.alive || !this.linked(m, leader))) {
        m.detach();
        const gen = m.gen;
        // Still serving stale reads until it notices.
        this.notice(() => {
          if (m.gen === gen && !m.attached && m.serving) {
            this.trace(`zk${m.id} lost the leader: stops serving`);
            m.stopServing();
          }
        });
      } else if (!m.attached && m.alive && this.linked(m, leader)) this.join(m);
    }
  }

  private notice(action: () => void): void {
    this.sched.at(this.timing.detect, 'server', action);
  }

  /** A follower syncs with the leader (a snapshot of the committed state), then serves. */
  private join(member: Member): void {
    const ens = this.ensemble;
    const epoch = ens.epoch;
    // Already syncing with this leader: let it finish.
    if (this.syncing.get(member.id) === `${epoch}:${member.gen}`) return;
    // Stop serving the stale state while it syncs (a member that never noticed keeps none).
    if (member.serving) member.stopServing();
    member.attached = false;
    const gen = ++member.gen;
    this.syncing.set(member.id, `${epoch}:${gen}`);
    this.sched.at(this.timing.catchUp(), 'server', () => {
      if (member.gen !== gen || ens.epoch !== epoch || !ens.ordering) return;
      if (!member.alive || !this.linked(member, ens.leader)) return;
      member.resync(ens.committed.clone());
      this.trace(`zk${member.id} caught up to 0x${member.tree.lastZxid.toString(16)}: serving`);
    });
  }

  /** Every member stops serving; after the pause, a majority that can talk elects a leader. */
  private startElection(): void {
    const ens = this.ensemble;
    this.electing = true;
    ens.ordering = false;
    this.trace('election: no member serves');
    for (const m of ens.members) {
      m.detach();
      if (m.serving) m.stopServing();
    }
    this.sched.at(this.timing.electionPause(), 'server', () => this.elect());
  }

  private elect(): void {
    const ens = this.ensemble;
    const alive = ens.members.filter((m) => m.alive);
    const voters = alive.filter(
      (m) => alive.filter((o) => this.linked(m, o)).length >= this.majority,
    );
    if (voters.length === 0) {
      this.sched.at(this.timing.electionPause(), 'server', () => this.elect());
      return;
    }
    // The most up-to-date member wins (ties: the highest id, as ZooKeeper's vote order).
    const leader = voters.reduce((best, m) =>
      m.tree.lastZxid > best.tree.lastZxid ||
      (m.tree.lastZxid === best.tree.lastZxid && m.id > best.id)
        ? m
        : best,
    );
    this.electing = false;
    ens.newLeader(leader);
    this.trace(
      `election: zk${leader.id} leads epoch ${ens.epoch} from 0x${leader.tree.lastZxid.toString(16)}`,
    );
    for (const m of voters) if (m !== leader) this.join(m);
  }
}
