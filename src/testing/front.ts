// The side of a test server that clients meet, the same for the model and the real server: each
// member's addresses (`zkN:2181` in memory, and a loopback TCP port once listening), the Links
// opened to a member (a refused one when it is down or the server closing), and the in-memory
// transport. What a Link is attached to on the member's side is the server's own.
import type { Transport } from '../session/transport.js';
import type { TaskClock } from './clock.js';
import type { NetworkFaults } from './faults.js';
import { type ClientSide, Link } from './links.js';
import { memoryTransport } from './memory-transport.js';
import { refused } from './targets.js';
import { listenTcp, type TcpListener } from './tcp.js';

/** @internal What a front asks of its server. */
export interface FrontServer<M> {
  /** Whether `member` runs (a Link to a member that does not is refused). */
  isUp(member: M): boolean;
  /** Whether the server is closing (every new Link is refused). */
  closing(): boolean;
  /** Hands a new Link to the member's side (the model's member, or a relay to the JVM). */
  attach(member: M, link: Link): void;
}

/** @internal The addresses, listeners and Links of a test server's members. */
export class ServerFront<M extends { readonly id: number }> {
  /** Every member's addresses: the in-memory ones first, then the TCP ones. */
  private readonly addresses = new Map<string, M>();
  private listeners: TcpListener[] = [];
  private nextLink = 1;
  private nextClient = 1;
  /** The members' addresses, comma separated: in memory until `listen()`, then TCP. */
  connectString: string;

  constructor(
    private readonly members: readonly M[],
    private readonly faults: NetworkFaults,
    private readonly clock: TaskClock,
    private readonly server: FrontServer<M>,
  ) {
    for (const member of members) this.addresses.set(`zk${member.id}:2181`, member);
    this.connectString = members.map((m) => `zk${m.id}:2181`).join(',');
  }

  /** Listens on `host`, from `port` up (one port a member; 0 or none: any free ports). */
  async listen(host: string, port: number | undefined): Promise<void> {
    const hosts: string[] = [];
    try {
      for (const member of this.members) {
        const listener = await listenTcp(
          host,
          port === undefined || port === 0 ? 0 : port + member.id - 1,
          (client, side) => this.openLink(member, client, side),
        );
        this.listeners.push(listener);
        const address = `${host}:${listener.port}`;
        this.addresses.set(address, member);
        hosts.push(address);
      }
    } catch (error) {
      await this.unlisten();
      throw error;
    }
    this.connectString = hosts.join(',');
  }

  /** Closes the listeners (a failed listen, or the server's close). */
  async unlisten(): Promise<void> {
    const listeners = this.listeners;
    this.listeners = [];
    await Promise.all(listeners.map((l) => l.close()));
  }

  /** The address a member was given last (its TCP one once listening). */
  addressOf(member: M): string {
    return [...this.addresses]
      .filter(([, m]) => m === member)
      .map(([a]) => a)
      .pop()!;
  }

  /** A transport that reaches the members in memory, its Links named `client`. */
  transportFor(client: string): Transport {
    return memoryTransport((address, name, side) => {
      const member = this.addresses.get(address);
      if (!member) throw refused(address, 'no member of this server has that address');
      if (!this.server.isUp(member)) throw refused(address, `member ${member.id} is down`);
      return this.openLink(member, name, side);
    }, client);
  }

  private openLink(member: M, client: string | undefined, side: ClientSide): Link {
    const dead = !this.server.isUp(member) || this.server.closing();
    const id = this.nextLink++;
    const name = client ?? `tcp-${this.nextClient++}`;
    const link = Link.open(this.faults, this.clock, id, name, member.id, side, dead);
    if (!dead) this.server.attach(member, link);
    return link;
  }
}
