import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { freshDir } from './cleanup.js';
import type { NodePorts, QuorumSpec } from './config.js';
import type { ServerMode } from './four-letter.js';
import { BIND_RETRIES, tlsFor } from './local-setup.js';
import { managedSource } from './managed.js';
import { DEFAULT_START_TIMEOUT_MS, LocalNode } from './node.js';
import { freePorts } from './ports.js';
import type { ServerOptions, TlsInfo, ZkEnsemble, ZkMember } from './types.js';
import { waitFor } from './wait.js';

const QUORUM_MODES: readonly ServerMode[] = ['leader', 'follower', 'observer'];

/** A member: a local node that also knows its place in the ensemble. */
class Member extends LocalNode implements ZkMember {
  constructor(
    readonly index: number,
    readonly quorumPort: number,
    readonly electionPort: number,
    spec: ConstructorParameters<typeof LocalNode>[0],
  ) {
    super(spec);
  }

  get id(): number {
    return this.index + 1;
  }
}

/**
 * Starts `size` (default 3) servers on 127.0.0.1 as one ensemble and waits until they form a
 * quorum. Each member has its own client port; `connectString` lists them all.
 */
export async function startEnsemble(
  opts: ServerOptions & { size?: number } = {},
): Promise<ZkEnsemble> {
  const size = opts.size ?? 3;
  if (!Number.isInteger(size) || size < 1 || size > 254)
    throw new Error(`ensemble size must be 1..254, got ${size}`);
  const source = await managedSource('startEnsemble()', 'an ensemble');
  if (source.kind !== 'local') throw new Error('unreachable: ensembles always run locally');
  const tls = await tlsFor(source.install, opts);
  const timeoutMs = opts.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  for (let attempt = 1; ; attempt++) {
    const dir = freshDir('ensemble');
    const memberPorts: NodePorts[] = [];
    for (let i = 0; i < size; i++) {
      const [client, quorum, election, tlsPort] = await freePorts(tls ? 4 : 3);
      memberPorts.push({
        client: client!,
        quorum: quorum!,
        election: election!,
        ...(tls ? { tls: tlsPort! } : {}),
      });
    }
    const members: QuorumSpec['members'] = memberPorts.map((ports, i) => ({ id: i + 1, ports }));
    let ensemble: Ensemble | undefined;
    const nodes = memberPorts.map((ports, i) => {
      const memberDir = join(dir, `server${i + 1}`);
      mkdirSync(memberDir);
      return new Member(i, ports.quorum!, ports.election!, {
        dir: memberDir,
        install: source.install,
        opts,
        ports,
        quorum: { myid: i + 1, members },
        ...(tls ? { tls } : {}),
        ready: (node) => ensemble!.memberReady(node, timeoutMs),
      });
    });
    ensemble = new Ensemble(dir, nodes);
    for (const node of nodes) node.spawn();
    try {
      await Promise.all(nodes.map((node) => node.waitAlive(timeoutMs)));
      await ensemble.waitForQuorum(timeoutMs);
      return ensemble;
    } catch (err) {
      const retry = attempt < BIND_RETRIES && nodes.some((node) => node.failedToBind());
      await Promise.all(nodes.map((node) => node.kill()));
      if (!retry) throw err;
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

class Ensemble implements ZkEnsemble {
  readonly connectString: string;
  readonly tlsConnectString?: string;
  readonly tls?: TlsInfo;
  readonly superAuth?: string;

  constructor(
    private readonly dir: string,
    readonly members: Member[],
  ) {
    this.connectString = members.map((m) => m.connectString).join(',');
    const first = members[0]!;
    if (first.tls) {
      this.tls = first.tls;
      this.tlsConnectString = members.map((m) => m.tlsConnectString).join(',');
    }
    if (first.superAuth) this.superAuth = first.superAuth;
  }

  private member(i: number): Member {
    const member = this.members[i];
    if (!member) throw new RangeError(`no ensemble member ${i} (size ${this.members.length})`);
    return member;
  }

  /** After a (re)start: the JVM answers, and it joins the quorum if a majority is running. */
  async memberReady(node: LocalNode, timeoutMs: number): Promise<void> {
    await node.waitAlive(timeoutMs);
    const running = this.members.filter((m) => m.running).length;
    if (running > this.members.length / 2) await node.waitForMode(QUORUM_MODES, timeoutMs);
  }

  async leader(): Promise<number> {
    return waitFor(
      async () => {
        const modes = await this.modes();
        const leaders = modes.flatMap((mode, i) => (mode === 'leader' ? [i] : []));
        return leaders.length === 1 ? leaders[0] : undefined;
      },
      {
        what: 'exactly one leader',
        timeoutMs: 15_000,
        intervalMs: 100,
        details: () => this.describe(),
      },
    );
  }

  async followers(): Promise<number[]> {
    await this.leader();
    const modes = await this.modes();
    return modes.flatMap((mode, i) => (mode === 'follower' ? [i] : []));
  }

  mode(i: number): Promise<ServerMode | undefined> {
    return this.member(i).mode();
  }

  stop(i: number): Promise<void> {
    return this.member(i).stop();
  }

  kill(i: number): Promise<void> {
    return this.member(i).kill();
  }

  start(i: number): Promise<void> {
    return this.member(i).start();
  }

  fourLetter(i: number, cmd: string): Promise<string> {
    return this.member(i).fourLetter(cmd);
  }

  async waitForQuorum(timeoutMs = DEFAULT_START_TIMEOUT_MS): Promise<void> {
    if (!this.members.some((m) => m.running))
      throw new Error('waitForQuorum(): no member is running');
    await waitFor(
      async () => {
        const modes = await this.modes();
        const running = modes.filter((_, i) => this.members[i]!.running);
        const inQuorum = running.every((mode) => mode !== undefined && QUORUM_MODES.includes(mode));
        const leaders = running.filter((mode) => mode === 'leader').length;
        return inQuorum && leaders === 1 ? true : undefined;
      },
      {
        what: 'a quorum of every running member',
        timeoutMs,
        intervalMs: 100,
        details: () => this.describe(),
      },
    );
  }

  async close(): Promise<void> {
    await Promise.all(this.members.map((m) => m.kill()));
    rmSync(this.dir, { recursive: true, force: true });
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** Modes of all members, `undefined` for stopped or not-serving ones. */
  private modes(): Promise<(ServerMode | undefined)[]> {
    return Promise.all(
      this.members.map((m) => (m.running ? m.mode() : Promise.resolve(undefined))),
    );
  }

  private describe(): string {
    return this.members
      .map(
        (m) =>
          `--- member ${m.index} (${m.connectString}, ${m.running ? 'running' : 'stopped'}) ---\n${m.logTail(15)}`,
      )
      .join('\n');
  }
}
