import { connect, createServer, type Server, type Socket } from 'node:net';
import { LOOPBACK } from './ports.js';

/**
 * What `freeze()` does to bytes in flight:
 * - `drop`: a black hole. Bytes vanish; sockets stay open with no FIN, like a cable pulled out.
 *   A TCP stream cannot lose bytes in the middle and carry on, so on `thaw()` every connection that
 *   lost bytes is reset; connections that carried nothing during the freeze continue.
 * - `hold`: a partition that heals. Bytes wait and are delivered, in order, on `thaw()`, like TCP
 *   retransmission after a network outage.
 */
export type FreezeMode = 'drop' | 'hold';

type Item = { due: number; chunk: Buffer } | { due: number; end: true };

/**
 * A TCP proxy on 127.0.0.1 for fault tests: put it between a client and a server, then freeze, cut,
 * slow down or refuse its connections. New connections go to the current target.
 */
export class TcpProxy {
  private readonly links = new Set<Link>();
  private target: { host: string; port: number };
  private refusing = false;
  /** @internal read by links */
  frozen: FreezeMode | undefined;
  /** @internal read by links */
  delayMs = 0;
  private readonly totals = { up: 0, down: 0, dropped: 0 };
  private refusedCount = 0;

  private constructor(
    private readonly server: Server,
    readonly port: number,
    targetHost: string,
    targetPort: number,
  ) {
    this.target = { host: targetHost, port: targetPort };
    server.on('connection', (socket) => this.accept(socket));
  }

  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    const server = createServer({ allowHalfOpen: true, pauseOnConnect: false });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: LOOPBACK, port: 0 }, () => resolve());
    });
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('proxy failed to listen');
    return new TcpProxy(server, address.port, targetHost, targetPort);
  }

  /** `127.0.0.1:<proxy port>`, to give to the client instead of the server's address. */
  get connectString(): string {
    return `${LOOPBACK}:${this.port}`;
  }

  /** Where new connections go; existing ones keep their server. */
  setTarget(host: string, port: number): void {
    this.target = { host, port };
  }

  /** Stops all traffic both ways without closing anything (see {@link FreezeMode}). */
  freeze(mode: FreezeMode = 'drop'): void {
    this.frozen = mode;
  }

  /** Ends a freeze: held bytes flow, connections that lost bytes are reset. */
  thaw(): void {
    if (this.frozen === undefined) return;
    this.frozen = undefined;
    for (const link of this.links) link.thaw();
  }

  /** Destroys every current connection: `rst` (default) resets both sides, `fin` closes them cleanly. */
  cut(how: 'rst' | 'fin' = 'rst'): void {
    for (const link of this.links) link.close(how);
  }

  /** Delays every later chunk by `ms` in both directions, keeping order. 0 turns it off. */
  delay(ms: number): void {
    this.delayMs = Math.max(0, ms);
  }

  /** While on, new connections are closed as soon as they are accepted. */
  refuse(on: boolean): void {
    this.refusing = on;
  }

  /**
   * Connections refused so far (while `refuse(true)`): each is a dial the client made, for tests
   * that wait until it has tried again instead of sleeping.
   */
  refused(): number {
    return this.refusedCount;
  }

  /** Currently open client connections. */
  connections(): number {
    return this.links.size;
  }

  /** Bytes delivered so far: `up` client→server, `down` server→client. */
  bytes(): { up: number; down: number; dropped: number } {
    return { ...this.totals };
  }

  async close(): Promise<void> {
    for (const link of this.links) link.close('rst');
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** @internal */
  count(direction: 'up' | 'down' | 'dropped', bytes: number): void {
    this.totals[direction] += bytes;
  }

  /** @internal */
  forget(link: Link): void {
    this.links.delete(link);
  }

  private accept(client: Socket): void {
    if (this.refusing) {
      this.refusedCount++;
      client.destroy();
      return;
    }
    this.links.add(new Link(this, client, this.target));
  }
}

/** One client connection and its server connection. */
class Link {
  private upstream: Socket | undefined;
  private upstreamReady = false;
  private readonly up: Item[] = [];
  private readonly down: Item[] = [];
  private lastDue = { up: 0, down: 0 };
  private timer: NodeJS.Timeout | undefined;
  private lostBytes = false;
  private closedDuringFreeze = false;
  private closed = false;

  constructor(
    private readonly proxy: TcpProxy,
    private readonly client: Socket,
    private readonly target: { host: string; port: number },
  ) {
    client.setNoDelay(true);
    this.wire(client, 'up');
    if (proxy.frozen === undefined) this.connectUpstream();
  }

  thaw(): void {
    if (this.lostBytes || this.closedDuringFreeze) {
      this.close('rst');
      return;
    }
    if (!this.upstream) this.connectUpstream();
    this.pump();
  }

  close(how: 'rst' | 'fin'): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    for (const socket of [this.client, this.upstream]) {
      if (!socket || socket.destroyed) continue;
      if (how === 'fin') {
        socket.end();
        // The link is forgotten now; make sure a peer that never answers the FIN cannot keep it.
        setTimeout(() => socket.destroy(), 1000).unref();
      } else if (socket.connecting) socket.destroy();
      else socket.resetAndDestroy();
    }
    this.proxy.forget(this);
  }

  private connectUpstream(): void {
    const upstream = connect({
      host: this.target.host,
      port: this.target.port,
      allowHalfOpen: true,
    });
    this.upstream = upstream;
    upstream.setNoDelay(true);
    upstream.once('connect', () => {
      this.upstreamReady = true;
      this.pump();
    });
    this.wire(upstream, 'down');
  }

  /** Feeds what `source` sends into the queue for `direction`. */
  private wire(source: Socket, direction: 'up' | 'down'): void {
    source.on('data', (chunk: Buffer) => this.enqueue(direction, chunk));
    source.on('end', () => this.enqueue(direction, undefined));
    source.on('error', () => {
      // 'close' follows; a refused or reset peer is reported there.
    });
    source.on('close', (hadError) => {
      if (this.closed) return;
      if (hadError) {
        // A black hole tells the other side nothing; settle it on thaw.
        if (this.proxy.frozen !== undefined) this.closedDuringFreeze = true;
        else this.close('rst');
        return;
      }
      // A clean close comes after both FINs; the 'end' markers already carry them across.
      if (this.client.destroyed && (this.upstream?.destroyed ?? true)) {
        this.closed = true;
        clearTimeout(this.timer);
        this.proxy.forget(this);
      }
    });
  }

  private enqueue(direction: 'up' | 'down', chunk: Buffer | undefined): void {
    if (this.closed) return;
    if (chunk && this.proxy.frozen === 'drop') {
      this.lostBytes = true;
      this.proxy.count('dropped', chunk.length);
      return;
    }
    const due = Math.max(Date.now() + this.proxy.delayMs, this.lastDue[direction]);
    this.lastDue[direction] = due;
    const queue = direction === 'up' ? this.up : this.down;
    queue.push(chunk ? { due, chunk } : { due, end: true });
    this.pump();
  }

  /** Delivers every due item in order; re-arms a timer for the next one. */
  private pump(): void {
    if (this.closed || this.proxy.frozen !== undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    const now = Date.now();
    let next = Number.POSITIVE_INFINITY;
    for (const [queue, destination, direction] of [
      [this.up, this.upstreamReady ? this.upstream : undefined, 'up'],
      [this.down, this.client, 'down'],
    ] as const) {
      if (!destination) continue;
      while (queue.length > 0 && queue[0]!.due <= now) {
        const item = queue.shift()!;
        if ('end' in item) destination.end();
        else {
          destination.write(item.chunk);
          this.proxy.count(direction, item.chunk.length);
        }
      }
      if (queue.length > 0) next = Math.min(next, queue[0]!.due);
    }
    if (next !== Number.POSITIVE_INFINITY) this.timer = setTimeout(() => this.pump(), next - now);
  }
}
