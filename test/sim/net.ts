// The simulated network: the real session's Transport seam, with every delivery scheduled on the
// virtual clock. Each direction of a connection is FIFO (TCP); latency, chunking, resets, cuts in
// the middle of a frame and black holes (bytes held, as TCP retransmits, until the hole ends)
// come from the world's random source.
import type {
  Connection,
  Transport,
  TransportConnectOptions,
} from '../../src/session/transport.js';
import { ChunkQueue } from '../../src/session/transports/chunk-queue.js';
import type { Acceptor, ServerEnd } from '../../src/testing/model/host.js';
import type { Rng, Scheduler } from './env.js';

export type { Acceptor, ServerEnd };

export interface LinkStats {
  connections: number;
  resets: number;
  cuts: number;
}

class SimConnection implements Connection {
  readonly chunks = new ChunkQueue();
  readonly closed: Promise<void>;
  private resolveClosed!: () => void;
  isClosed = false;
  serverClosed = false;
  private toServerAt = 0;
  private toClientAt = 0;
  /** Cut the next server->client write in the middle, then reset. */
  cutNext = false;
  /** The server's machine is down: nothing gets through either way, not even its close. */
  silent = false;
  readonly server: ServerEnd;

  constructor(
    private readonly net: SimNetwork,
    readonly id: number,
    readonly client: string,
    readonly host: string,
  ) {
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
    this.server = {
      id,
      client,
      send: (bytes) => this.toClient(bytes),
      close: () => this.closeFromServer(),
      onData: () => {},
      onClose: () => {},
    };
  }

  private due(last: number): number {
    const net = this.net;
    return Math.max(net.sched.now + net.latency(), last, net.holeUntil(this.client, this.host));
  }

  write(bytes: Uint8Array): undefined {
    if (this.isClosed || this.silent) return undefined;
    const copy = bytes.slice();
    const at = this.due(this.toServerAt);
    this.toServerAt = at;
    if (this.net.holeUntil(this.client, this.host) > this.net.sched.now)
      this.net.held(this.client, at);
    this.net.sched.atTime(at, 'server', () => {
      if (!this.serverClosed) this.server.onData(copy);
    });
    return undefined;
  }

  private toClient(bytes: Uint8Array): void {
    if (this.serverClosed || this.silent) return;
    if (this.cutNext && bytes.length > 1) {
      this.cutNext = false;
      this.net.stats.cuts++;
      const cut = this.net.rng.int(1, bytes.length - 1);
      this.deliverToClient(bytes.slice(0, cut));
      this.reset(true);
      return;
    }
    // Split into TCP-like chunks now and then, so frames arrive in pieces.
    if (bytes.length > 8 && this.net.rng.chance(0.1)) {
      const cut = this.net.rng.int(1, bytes.length - 1);
      this.deliverToClient(bytes.slice(0, cut));
      this.deliverToClient(bytes.slice(cut));
    } else {
      this.deliverToClient(bytes.slice());
    }
  }

  private deliverToClient(bytes: Uint8Array): void {
    const at = this.due(this.toClientAt);
    this.toClientAt = at;
    this.net.sched.atTime(at, 'client', () => {
      if (!this.isClosed) this.chunks.push(bytes);
    });
  }

  /** The server closed: the client sees the end after everything sent before it. */
  private closeFromServer(): void {
    if (this.serverClosed) return;
    this.serverClosed = true;
    if (this.silent) return;
    const at = this.due(this.toClientAt);
    this.toClientAt = at;
    this.net.sched.atTime(at, 'client', () => this.endClientSide());
  }

  private endClientSide(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.chunks.end();
    this.resolveClosed();
    this.net.open.delete(this);
  }

  /** The client closed: the server sees the end after the bytes already sent. */
  close(): void {
    if (this.isClosed) return;
    this.endClientSide();
    const at = this.due(this.toServerAt);
    this.net.sched.atTime(at, 'server', () => this.endServerSide());
  }

  private endServerSide(): void {
    if (this.serverClosed) return;
    this.serverClosed = true;
    this.server.onClose();
  }

  /**
   * A reset: bytes in flight are lost and both ends learn of it. `afterSent` lets the client first
   * read what was already on its way (a cut in the middle of a frame).
   */
  reset(afterSent = false): void {
    if (this.serverClosed && this.isClosed) return;
    this.net.stats.resets++;
    const wasOpen = !this.serverClosed;
    this.serverClosed = true;
    const clientAt = afterSent ? Math.max(this.toClientAt, this.net.sched.now) : this.net.sched.now;
    this.net.sched.atTime(clientAt, 'client', () => this.endClientSide());
    if (wasOpen) this.net.sched.at(this.net.latency(), 'server', () => this.server.onClose());
  }
}

export class SimNetwork {
  readonly open = new Set<SimConnection>();
  readonly stats: LinkStats = { connections: 0, resets: 0, cuts: 0 };
  private readonly holes = new Map<string, number>();
  private readonly heldBytes = new Map<string, number>();
  private readonly down = new Map<string, number>();
  private nextId = 1;
  /** Typical one-way latency (ms) and the chance of a slow packet. */
  baseLatency = 0.5;
  spikeChance = 0.01;

  constructor(
    readonly sched: Scheduler,
    readonly rng: Rng,
    private readonly members: ReadonlyMap<string, Acceptor>,
  ) {}

  latency(): number {
    const base = this.baseLatency * (0.5 + this.rng.next());
    return this.rng.chance(this.spikeChance) ? base + this.rng.int(5, 200) : base;
  }

  /**
   * The machine of `host` goes down until `until`: its open connections go silent (the client
   * hears nothing, not even a close, and learns of it only by its own timeouts) and are reset
   * when the machine is back; a connect to it hangs until then (SYNs unanswered).
   */
  machineDown(host: string, until: number): void {
    this.down.set(host, Math.max(this.down.get(host) ?? 0, until));
    for (const c of [...this.open]) {
      if (c.host !== host) continue;
      c.silent = true;
      this.sched.atTime(until, 'server', () => c.reset());
    }
  }

  holeUntil(client: string, host: string): number {
    return Math.max(this.holes.get(`${client}|${host}`) ?? 0, this.holes.get(`${client}|*`) ?? 0);
  }

  /**
   * When the last bytes `client` wrote while a black hole held them reach the server (-Infinity
   * if none were held). They may keep its session alive past the client's own giving up: a
   * session lives a session timeout from the last request or ping the server read, and TCP
   * delivers what it retransmitted once the path is back, even after the client closed.
   */
  heldUntil(client: string): number {
    return this.heldBytes.get(client) ?? Number.NEGATIVE_INFINITY;
  }

  held(client: string, until: number): void {
    this.heldBytes.set(client, Math.max(this.heldUntil(client), until));
  }

  /** Holds every byte between `client` and `host` ('*' = every member) until `until`. */
  blackHole(client: string, host: string, until: number): void {
    const key = `${client}|${host}`;
    this.holes.set(key, Math.max(this.holes.get(key) ?? 0, until));
  }

  /** The Transport one client process uses. */
  transportFor(client: string): Transport {
    return { connect: (options) => this.connect(client, options) };
  }

  connectionsOf(client: string): SimConnection[] {
    return [...this.open].filter((c) => c.client === client);
  }

  private connect(client: string, options: TransportConnectOptions): Promise<Connection> {
    const host = `${options.host}:${options.port}`;
    return new Promise((resolve, reject) => {
      if (options.signal.aborted) {
        reject(options.signal.reason);
        return;
      }
      let done = false;
      const onAbort = () => {
        if (done) return;
        done = true;
        reject(options.signal.reason);
      };
      options.signal.addEventListener('abort', onAbort, { once: true });
      const member = this.members.get(host);
      const at = Math.max(
        this.sched.now + 2 * this.latency(),
        this.holeUntil(client, host),
        this.down.get(host) ?? 0,
      );
      this.sched.atTime(at, 'client', () => {
        if (done) return;
        done = true;
        options.signal.removeEventListener('abort', onAbort);
        if (!member?.up) {
          reject(new Error(`connect ECONNREFUSED ${host}`));
          return;
        }
        const connection = new SimConnection(this, this.nextId++, client, host);
        this.open.add(connection);
        this.stats.connections++;
        member.accept(connection.server);
        resolve(connection);
      });
    });
  }
}
