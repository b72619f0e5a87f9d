// startServer({ kind: 'real' }): a real ZooKeeper (JVMs of a local install) behind the same
// handle as the model. Clients reach it through relays (loopback TCP listeners and the in-memory
// transport), whose Links carry the network faults; the faults a real server allows from
// outside are the handle's: expiry (a second connection takes the session over and closes it,
// as Curator's KillSession), dropped connections, black holes, reply delays, a lost reply, and a
// member's crash and restart. Partitions and lagging followers need the model.
import { connect } from '../../client/client.js';
import { makeError } from '../../protocol/errors.js';
import type { Transport } from '../../session/transport.js';
import { TaskClock } from '../clock.js';
import { NetworkFaults } from '../faults.js';
import { ServerFront } from '../front.js';
import type { Link } from '../links.js';
import { keyOf, nonNegative, sessionIdOf } from '../targets.js';
import type {
  ClientTarget,
  SessionTarget,
  TestServer,
  TestServerMember,
  TestServerOptions,
} from '../types.js';
import { findLocalInstall } from './install.js';
import { JvmMember, type MemberPorts, type Mode } from './jvm.js';
import { loadNodeModules, type NodeModules } from './node-modules.js';
import { type GrantedSession, relay } from './relay.js';

const START_TIMEOUT_MS = 60_000;

/** @internal Starts the JVMs and the relays; resolves once every member serves. */
export async function startRealServer(options: TestServerOptions): Promise<TestServer> {
  if (options.clock !== undefined && options.clock !== 'real')
    throw makeError(
      'BADARGUMENTS',
      "startServer: a real ZooKeeper runs on real time (clock: 'real')",
    );
  const node = await loadNodeModules();
  const install = findLocalInstall({
    env: node.env,
    exists: node.fs.existsSync,
    isFile: (path) => node.fs.statSync(path, { throwIfNoEntry: false })?.isFile() ?? false,
    list: (dir) => node.fs.readdirSync(dir),
    join: node.path.join,
    delimiter: node.path.delimiter,
  });
  if (typeof install === 'string')
    throw makeError(
      'BADARGUMENTS',
      `startServer({ kind: 'real' }) needs a ZooKeeper and Java on this machine: ${install}. ` +
        "Install Debian's zookeeper package or set ZOOKEEPER_HOME to a release; or use the model (kind: 'model').",
    );
  const count = options.members ?? 1;
  const ports: MemberPorts[] = [];
  for (let i = 0; i < count; i++)
    ports.push({
      client: await freePort(node),
      quorum: await freePort(node),
      election: await freePort(node),
    });
  const dir = node.fs.mkdtempSync(node.path.join(node.os.tmpdir(), 'zkts-real-'));
  const settings = {
    install,
    tickTime: options.tickTime ?? 2000,
    requireDigest: options.requireDigest,
    members: ports,
    dir,
  };
  const server = new RealServer(
    node,
    ports.map((_, i) => new JvmMember(node, settings, i + 1)),
    dir,
  );
  try {
    for (const member of server.jvms) member.spawn();
    await server.settle();
    if (options.listen !== false) await server.listen(options.host ?? '127.0.0.1', options.port);
  } catch (error) {
    await server.close();
    throw error;
  }
  return server;
}

function freePort(node: NodeModules): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = node.net.createServer();
    probe.once('error', reject);
    probe.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

class RealServer implements TestServer {
  readonly kind = 'real';
  readonly transport: Transport;
  private readonly clock = new TaskClock('real');
  private readonly faults = new NetworkFaults(() => this.clock.now);
  private readonly front: ServerFront<JvmMember>;
  private readonly sessions = new Map<Link, GrantedSession>();
  private readonly passwords = new Map<bigint, Uint8Array>();
  private readonly lostReplies = new Set<string>();
  private readonly modes = new Map<number, Mode | undefined>();
  private closing: Promise<void> | undefined;

  constructor(
    private readonly node: NodeModules,
    readonly jvms: JvmMember[],
    private readonly dir: string,
  ) {
    this.front = new ServerFront(jvms, this.faults, this.clock, {
      isUp: (member) => member.running,
      closing: () => this.closing !== undefined,
      attach: (member, link) => this.relayLink(member, link),
    });
    this.transport = this.transportFor('client');
  }

  listen(host: string, port: number | undefined): Promise<void> {
    return this.front.listen(host, port);
  }

  get connectString(): string {
    return this.front.connectString;
  }

  get members(): TestServerMember[] {
    return this.jvms.map((m) => {
      const mode = this.modes.get(m.id);
      return {
        id: m.id,
        address: this.front.addressOf(m),
        leader: mode === 'leader' || mode === 'standalone',
        up: m.running,
        serving: m.running && mode !== undefined,
      };
    });
  }

  transportFor(client: string): Transport {
    return this.front.transportFor(client);
  }

  /** Relays a new Link to the member's JVM, noting the sessions it grants. */
  private relayLink(member: JvmMember, link: Link): void {
    const upstream = this.node.net.connect({ host: '127.0.0.1', port: member.ports.client });
    relay(link, upstream, {
      granted: (l, session) => {
        this.sessions.set(l, session);
        this.passwords.set(session.id, session.password);
      },
      takeLostReply: (l) => this.lostReplies.delete(l.client),
    });
  }

  // ---- fault controls ----------------------------------------------------------------------

  async expireSession(target: SessionTarget): Promise<boolean> {
    const id = sessionIdOf(target);
    const password = this.passwords.get(id);
    const member = this.jvms.find((m) => m.running);
    if (!password || !member) return false;
    // A second connection takes the session over (the server closes the first) and closes it:
    // the server ends it as at a timeout: its ephemerals go, its client learns it expired.
    const killer = await connect(`127.0.0.1:${member.ports.client}`, {
      session: { id, password },
      renewSession: false,
      connectTimeout: 10_000,
    }).catch(() => undefined);
    if (!killer) return false;
    await killer.close();
    this.passwords.delete(id);
    return true;
  }

  async expireSessions(client: string): Promise<number> {
    const ids = new Set(
      [...this.sessions].filter(([link]) => link.client === client).map(([, s]) => s.id),
    );
    let count = 0;
    for (const id of ids) if (await this.expireSession(id)) count++;
    return count;
  }

  dropConnections(target?: SessionTarget | ClientTarget): number {
    const links = [...this.faults.links].filter(this.selector(target));
    for (const link of links) link.close();
    return links.length;
  }

  blackHole(target: SessionTarget | ClientTarget | undefined, ms: number): void {
    this.faults.blackHole(this.selector(target), this.clock.now + nonNegative('blackHole', ms));
  }

  delayReplies(ms: number, target?: SessionTarget | ClientTarget): void {
    this.faults.delayReplies(keyOf(target), this.selector(target), nonNegative('delayReplies', ms));
  }

  loseNextReply(target: SessionTarget | ClientTarget): void {
    for (const link of [...this.faults.links].filter(this.selector(target)))
      this.lostReplies.add(link.client);
    if (typeof target === 'object' && 'client' in target) this.lostReplies.add(target.client);
  }

  partition(): void {
    throw notFromOutside('partition');
  }

  lagFollower(): void {
    throw notFromOutside('lagFollower');
  }

  async crash(member: number, options: { downFor?: number } = {}): Promise<void> {
    const jvm = this.member(member);
    const downFor =
      options.downFor === undefined ? undefined : nonNegative('crash', options.downFor);
    await jvm.kill();
    this.modes.set(member, undefined);
    if (downFor !== undefined)
      this.clock.at(downFor, 'server', () => {
        this.restart(member).catch(() => {});
      });
    await this.settle();
  }

  async restart(member: number): Promise<void> {
    const jvm = this.member(member);
    if (this.closing || jvm.running) return;
    jvm.spawn();
    await this.settle();
  }

  /**
   * Waits until the running members serve (standalone; or one leader, the others following,
   * when a majority runs) and records their modes for `members`.
   */
  async settle(): Promise<void> {
    const deadline = performance.now() + START_TIMEOUT_MS;
    const majority = this.jvms.length === 1 ? 1 : Math.floor(this.jvms.length / 2) + 1;
    for (;;) {
      const running = this.jvms.filter((m) => m.running);
      const modes = await Promise.all(running.map((m) => m.mode()));
      for (const [i, m] of running.entries()) this.modes.set(m.id, modes[i]);
      const serving = modes.filter((mode) => mode !== undefined).length;
      const leaders = modes.filter((mode) => mode === 'leader' || mode === 'standalone').length;
      if (running.length < majority || (serving === running.length && leaders === 1)) return;
      if (running.length === 0) return;
      // A member spawned and gone before it served: its JVM failed (a port, a bad install).
      const failed = this.jvms.find((m) => !m.running && !this.modes.has(m.id));
      if (failed || performance.now() > deadline || this.closing) {
        const member = failed ?? this.jvms[0]!;
        throw makeError(
          'CONNECTIONLOSS',
          `ZooKeeper member ${member.id} did not serve within ${START_TIMEOUT_MS / 1000} s ` +
            `(${member.running ? 'running' : member.exitReason}); its log ends:\n${member.logTail()}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  // ---- lifecycle ---------------------------------------------------------------------------

  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const link of [...this.faults.links]) link.close();
      this.clock.stop();
      await this.front.unlisten();
      await Promise.all(this.jvms.map((m) => m.kill()));
      this.node.fs.rmSync(this.dir, { recursive: true, force: true });
    })();
    return this.closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  private member(id: number): JvmMember {
    const member = this.jvms.find((m) => m.id === id);
    if (!member)
      throw makeError('BADARGUMENTS', `no member ${id}: members are 1 to ${this.jvms.length}`);
    return member;
  }

  private selector(target: SessionTarget | ClientTarget | undefined): (link: Link) => boolean {
    if (target === undefined) return () => true;
    if (typeof target === 'object' && 'client' in target) {
      const name = target.client;
      return (link) => link.client === name;
    }
    const id = sessionIdOf(target);
    return (link) => this.sessions.get(link)?.id === id;
  }
}

function notFromOutside(what: string): Error {
  return makeError(
    'UNIMPLEMENTED',
    `${what} cannot be done to a real ZooKeeper from outside its processes; it needs the model (kind: 'model')`,
  );
}
