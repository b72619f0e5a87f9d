// startServer: the model ensemble (src/testing/model) run on a real or manual clock, reached over
// TCP on loopback ports and over an in-memory transport, with the fault controls a test calls.
import { makeError } from '../protocol/errors.js';
import type { Transport } from '../session/transport.js';
import { TaskClock } from './clock.js';
import { NetworkFaults } from './faults.js';
import { ServerFront } from './front.js';
import type { Link } from './links.js';
import { Ensemble } from './model/ensemble.js';
import type { Member } from './model/member.js';
import { Quorum } from './model/quorum.js';
import { keyOf, nonNegative, sessionIdOf } from './targets.js';
import type { SessionTarget, TestServer, TestServerMember, TestServerOptions } from './types.js';

const JUTE_MAX_BUFFER = 0xfffff;

let nextRandomSeed = 1;

/** A small, fast PRNG (mulberry32): session passwords and the order of listed children. */
function randomSource(seed: number): { int(min: number, max: number): number } {
  let state = seed >>> 0;
  return {
    int(min, max) {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      const unit = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
      return min + Math.floor(unit * (max - min + 1));
    },
  };
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1)
    throw makeError(
      'BADARGUMENTS',
      `startServer: ${name} must be a whole number >= 1, got ${value}`,
    );
  return value;
}

/** @internal */
export class InProcessServer implements TestServer {
  readonly kind = 'model';
  readonly transport: Transport;
  readonly ensemble: Ensemble;
  readonly quorum: Quorum;
  private readonly clock: TaskClock;
  private readonly faults: NetworkFaults;
  private readonly front: ServerFront<Member>;
  private readonly lags = new Map<number, number>();
  private closing: Promise<void> | undefined;

  constructor(options: TestServerOptions) {
    const members = positiveInteger('members', options.members, 1);
    const tickTime = positiveInteger('tickTime', options.tickTime, 2000);
    const clock = options.clock;
    if (clock !== undefined && clock !== 'real' && !(clock instanceof TaskClock))
      throw makeError('BADARGUMENTS', "startServer: clock must be 'real' or manualClock()");
    this.clock = clock instanceof TaskClock ? clock : new TaskClock('real');
    this.faults = new NetworkFaults(() => this.clock.now);
    this.ensemble = new Ensemble(
      this.clock,
      randomSource(options.seed ?? nextRandomSeed++ * 0x9e3779b1),
      {
        members,
        tickTime,
        maxBuffer: JUTE_MAX_BUFFER,
        followerLag: (member) => this.lags.get(member) ?? 0,
        forwardLag: () => 0,
        containerSweep: 60_000,
        ...(options.requireDigest === undefined ? {} : { requireDigest: options.requireDigest }),
      },
      () => {},
      () => {},
    );
    this.quorum = new Quorum(
      this.ensemble,
      this.clock,
      {
        // A follower notices a lost leader after about one tick (the quorum link's read timeout).
        detect: tickTime,
        electionPause: () => 200,
        catchUp: () => 20,
      },
      () => {},
    );
    this.front = new ServerFront(this.ensemble.members, this.faults, this.clock, {
      isUp: (member) => member.alive,
      closing: () => this.closing !== undefined,
      attach: (member, link) => member.accept(link.server),
    });
    this.transport = this.transportFor('client');
  }

  async listen(host: string, port: number | undefined): Promise<void> {
    await this.front.listen(host, port);
  }

  /** Closes the listeners (a failed listen): the in-memory addresses stay the connect string. */
  unlisten(): Promise<void> {
    return this.front.unlisten();
  }

  get connectString(): string {
    return this.front.connectString;
  }

  get members(): TestServerMember[] {
    return this.ensemble.members.map((m) => ({
      id: m.id,
      address: this.front.addressOf(m),
      leader: m.isLeader && this.ensemble.ordering,
      up: m.alive,
      serving: m.serving,
    }));
  }

  transportFor(client: string): Transport {
    return this.front.transportFor(client);
  }

  // ---- fault controls ----------------------------------------------------------------------

  async expireSession(target: SessionTarget): Promise<boolean> {
    return this.expire(target);
  }

  private expire(target: SessionTarget): boolean {
    const id = sessionIdOf(target);
    const session = this.ensemble.sessions.get(id);
    if (!session || session.closing) return false;
    this.ensemble.stats.expired++;
    this.ensemble.closeSession(id);
    return true;
  }

  async expireSessions(client: string): Promise<number> {
    let count = 0;
    for (const id of this.sessionsOf(client)) if (this.expire(id)) count++;
    return count;
  }

  dropConnections(target?: SessionTarget | { readonly client: string }): number {
    const links = [...this.faults.links].filter(this.selector(target));
    for (const link of links) link.close();
    return links.length;
  }

  blackHole(target: SessionTarget | { readonly client: string } | undefined, ms: number): void {
    this.faults.blackHole(this.selector(target), this.clock.now + nonNegative('blackHole', ms));
  }

  delayReplies(ms: number, target?: SessionTarget | { readonly client: string }): void {
    this.faults.delayReplies(keyOf(target), this.selector(target), nonNegative('delayReplies', ms));
  }

  loseNextReply(target: SessionTarget | { readonly client: string }): void {
    const clients = new Set(
      [...this.faults.links].filter(this.selector(target)).map((l) => l.client),
    );
    if ('client' in (target as object)) clients.add((target as { client: string }).client);
    for (const client of clients) this.ensemble.loseWriteReply.set(client, 0);
  }

  partition(member: number, ms: number): void {
    this.quorum.partition(this.member(member), nonNegative('partition', ms));
  }

  async crash(member: number, options: { downFor?: number } = {}): Promise<void> {
    const downFor =
      options.downFor === undefined ? undefined : nonNegative('crash', options.downFor);
    this.quorum.crash(this.member(member), downFor);
  }

  async restart(member: number): Promise<void> {
    const restarted = this.member(member);
    this.quorum.restart(restarted);
    // On real time, resolve once it serves (as the real server's handle does); a manual clock
    // moves only when the test advances it, so there it resolves at once.
    if (this.clock.kind === 'manual') return;
    const majority = Math.floor(this.ensemble.members.length / 2) + 1;
    const deadline = performance.now() + 30_000;
    while (
      !restarted.serving &&
      restarted.alive &&
      !this.closing &&
      this.ensemble.members.filter((m) => m.alive).length >= majority &&
      performance.now() < deadline
    )
      await new Promise((resolve) => setTimeout(resolve, 10));
  }

  lagFollower(member: number, ms: number): void {
    this.member(member);
    this.lags.set(member, nonNegative('lagFollower', ms));
  }

  // ---- lifecycle ---------------------------------------------------------------------------

  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const member of this.ensemble.members) member.stopServing();
      for (const link of [...this.faults.links]) link.close();
      this.clock.stop();
      await this.front.unlisten();
    })();
    return this.closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  private member(id: number): Member {
    const member = this.ensemble.members.find((m) => m.id === id);
    if (!member)
      throw makeError(
        'BADARGUMENTS',
        `no member ${id}: members are 1 to ${this.ensemble.members.length}`,
      );
    return member;
  }

  private sessionsOf(client: string): bigint[] {
    const ids = new Set<bigint>();
    for (const member of this.ensemble.members)
      for (const cnxn of member.cnxns)
        if (cnxn.end.client === client && cnxn.sessionId !== 0n) ids.add(cnxn.sessionId);
    return [...ids];
  }

  private selector(
    target: SessionTarget | { readonly client: string } | undefined,
  ): (link: Link) => boolean {
    if (target === undefined) return () => true;
    if (typeof target === 'object' && 'client' in target) {
      const name = target.client;
      return (link) => link.client === name;
    }
    const id = sessionIdOf(target);
    return (link) => this.sessionOfLink(link) === id;
  }

  private sessionOfLink(link: Link): bigint | undefined {
    const member = this.ensemble.members.find((m) => m.id === link.member);
    for (const cnxn of member?.cnxns ?? []) if (cnxn.end === link.server) return cnxn.sessionId;
    return undefined;
  }
}
